import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { controllerRevisionPrinter, endpointSlicePrinter, priorityClassPrinter } from './more.ts';

const now = new Date('2026-11-30T12:00:00Z');
const created = '2026-11-30T11:59:00Z';

test('EndpointSlice, PriorityClass and ControllerRevision rows as kubectl prints them', () => {
  const slice = {
    metadata: { name: 'web-abcde', creationTimestamp: created },
    addressType: 'IPv4',
    ports: [{ port: 80 }, { port: 443 }],
    endpoints: [{ addresses: ['10.244.0.5'] }, { addresses: ['10.244.1.5'] }, { addresses: ['10.244.2.5'] }, { addresses: ['10.244.3.5'] }],
  };
  assert.deepEqual(endpointSlicePrinter.row(slice, { now }).cells, [
    'web-abcde',
    'IPv4',
    '80,443',
    '10.244.0.5,10.244.1.5,10.244.2.5 + 1 more...',
    '60s',
  ]);
  assert.deepEqual(
    // No endpoints at all: kubernetes-types calls the field required, kube's JSON can still lack it.
    endpointSlicePrinter
      .row({ metadata: { name: 'e', creationTimestamp: created }, addressType: 'IPv4' } as EndpointSlice, { now })
      .cells.slice(2, 4),
    ['<none>', '<none>'],
  );
  assert.deepEqual(priorityClassPrinter.row({ metadata: { name: 'high', creationTimestamp: created }, value: 1000 }, { now }).cells, [
    'high',
    1000,
    false,
    '60s',
    'PreemptLowerPriority',
  ]);
  const cr = {
    metadata: {
      name: 'ds-1',
      creationTimestamp: created,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', controller: true }],
    },
    revision: 2,
  };
  assert.deepEqual(controllerRevisionPrinter.row(cr as ControllerRevision, { now }).cells, ['ds-1', 'daemonset.apps/ds', 2, '60s']);
});
