// Lease, CertificateSigningRequest and PodDisruptionBudget rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { csrPrinter, leasePrinter, podDisruptionBudgetPrinter } from './cluster.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const ctx = { now: NOW };

test('lease: Holder, empty when unheld', () => {
  const held = {
    metadata: { name: 'kube-scheduler', namespace: 'kube-system', creationTimestamp: ago(86400) },
    spec: { holderIdentity: 'kind-control-plane_6a1c9e2f', leaseDurationSeconds: 15 },
  };
  assert.deepEqual(leasePrinter.row(held, ctx).cells, ['kube-scheduler', 'kind-control-plane_6a1c9e2f', '24h']);
  assert.deepEqual(leasePrinter.row({ metadata: { name: 'free', creationTimestamp: ago(5) }, spec: {} }, ctx).cells, ['free', '', '5s']);
  assert.deepEqual(
    leasePrinter.columns.map((c) => c.name),
    ['Name', 'Holder', 'Age'],
  );
});

test('csr: condition summary and requested duration', () => {
  const base: CertificateSigningRequest = {
    metadata: { name: 'csr-8x7kq', creationTimestamp: ago(120) },
    spec: {
      request: 'LS0t',
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      username: 'system:node:kind-worker',
      usages: ['client auth'],
    },
  };
  assert.deepEqual(csrPrinter.row(base, ctx).cells, [
    'csr-8x7kq',
    '2m',
    'kubernetes.io/kube-apiserver-client-kubelet',
    'system:node:kind-worker',
    '<none>',
    'Pending',
  ]);
  const issued: CertificateSigningRequest = {
    ...base,
    spec: { ...base.spec, expirationSeconds: 86400 },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }], certificate: 'LS0tLS1CRUdJTg==' },
  };
  assert.deepEqual(csrPrinter.row(issued, ctx).cells.slice(4), ['24h', 'Approved,Issued']);
  const denied: CertificateSigningRequest = {
    ...base,
    spec: { ...base.spec, expirationSeconds: 3600 },
    status: {
      conditions: [
        { type: 'Approved', status: 'True' },
        { type: 'Denied', status: 'True' },
        { type: 'Failed', status: 'True' },
      ],
    },
  };
  assert.deepEqual(csrPrinter.row(denied, ctx).cells.slice(4), ['60m', 'Denied,Failed']);
  assert.deepEqual(
    csrPrinter.columns.map((c) => c.name),
    ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition'],
  );
});

test('pdb: Min Available / Max Unavailable as numbers or percentages, N/A when unset', () => {
  const min: PodDisruptionBudget = {
    metadata: { name: 'web-pdb', creationTimestamp: ago(600) },
    spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
    status: { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 },
  };
  assert.deepEqual(podDisruptionBudgetPrinter.row(min, ctx).cells, ['web-pdb', '2', 'N/A', 1, '10m']);
  const max = { metadata: { name: 'db-pdb', creationTimestamp: ago(600) }, spec: { maxUnavailable: '25%' } };
  assert.deepEqual(podDisruptionBudgetPrinter.row(max, ctx).cells, ['db-pdb', 'N/A', '25%', 0, '10m']);
  assert.deepEqual(
    podDisruptionBudgetPrinter.columns.map((c) => `${c.name}:${c.type}`),
    ['Name:string', 'Min Available:string', 'Max Unavailable:string', 'Allowed Disruptions:integer', 'Age:string'],
  );
});
