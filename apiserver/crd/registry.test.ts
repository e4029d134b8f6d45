// The served custom resources as a request sees them across a CRD reconcile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceInfo, serveCRDs, servedForCRD } from './registry.ts';
import type { CustomResourceDefinition } from './crd.ts';

const names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
const gadgets: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names,
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
  status: { storedVersions: ['v1'], acceptedNames: names },
};

test('a ResourceType resolved before a reconcile still finds its custom resource, and the current one', () => {
  try {
    serveCRDs([gadgets]);
    const before = servedForCRD('gadgets.example.com')[0].rt;
    serveCRDs([{ ...gadgets, metadata: { ...gadgets.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }]);
    const after = servedForCRD('gadgets.example.com')[0];
    assert.notEqual(after.rt, before, 'a reconcile builds new ResourceTypes');
    assert.equal(customResourceInfo(before), after, 'the old one resolves to the served info');
    assert.equal(customResourceInfo(before)?.terminating, true);
    serveCRDs([]);
    assert.equal(customResourceInfo(before), undefined, 'no longer served');
  } finally {
    serveCRDs([]);
  }
});
