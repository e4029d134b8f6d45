import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { DESCRIPTION_ANNOTATION, rootCaAction } from './plan.ts';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const ns = (phase = 'Active', deleting = false): Namespace => ({
  metadata: { name: 'lab', ...(deleting ? { deletionTimestamp: '2026-12-01T00:00:00Z' } : {}) },
  status: { phase },
});

test('an active namespace without the ConfigMap gets one with the CA bundle and the description', () => {
  const a = rootCaAction(ns(), undefined, CA);
  assert.equal(a.op, 'create');
  if (a.op !== 'create') return;
  assert.equal(a.configMap.metadata?.namespace, 'lab');
  assert.equal(a.configMap.metadata?.name, 'kube-root-ca.crt');
  assert.deepEqual(a.configMap.data, { 'ca.crt': CA });
  assert.match(a.configMap.metadata?.annotations?.[DESCRIPTION_ANNOTATION] ?? '', /CA bundle/);
});

test('a terminating or missing namespace gets nothing', () => {
  assert.equal(rootCaAction(ns('Terminating'), undefined, CA).op, 'none');
  assert.equal(rootCaAction(ns('Active', true), undefined, CA).op, 'none');
  assert.equal(rootCaAction(undefined, undefined, CA).op, 'none');
});

test('an edited ConfigMap is restored; an exact one is left alone', () => {
  const created = rootCaAction(ns(), undefined, CA);
  assert.equal(created.op, 'create');
  const exact = (created as { configMap: ConfigMap }).configMap;
  assert.equal(rootCaAction(ns(), exact, CA).op, 'none');
  const edited: ConfigMap = { ...exact, data: { 'ca.crt': 'tampered', extra: 'x' } };
  const fix = rootCaAction(ns(), edited, CA);
  assert.equal(fix.op, 'update');
  assert.deepEqual((fix as { configMap: ConfigMap }).configMap.data, { 'ca.crt': CA });
  const noAnnotation: ConfigMap = { ...exact, metadata: { ...exact.metadata, annotations: {} } };
  assert.equal(rootCaAction(ns(), noAnnotation, CA).op, 'update');
  assert.equal(rootCaAction(ns(), exact, CA + 'rotated').op, 'update');
});
