// Namespace, ConfigMap, Secret, ServiceAccount and ResourceQuota rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { configMapPrinter, namespacePrinter, resourceQuotaPrinter, secretPrinter, serviceAccountPrinter } from './core.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const meta = (name: string, age = 600) => ({ name, namespace: 'default', creationTimestamp: ago(age) });
const ctx = { now: NOW };

test('namespace: Active and Terminating', () => {
  assert.deepEqual(namespacePrinter.row({ metadata: meta('default', 30 * 86400), status: { phase: 'Active' } }, ctx).cells, [
    'default',
    'Active',
    '30d',
  ]);
  assert.deepEqual(namespacePrinter.row({ metadata: meta('gone', 90), status: { phase: 'Terminating' } }, ctx).cells, [
    'gone',
    'Terminating',
    '90s',
  ]);
  assert.deepEqual(
    namespacePrinter.columns.map((c) => c.name),
    ['Name', 'Status', 'Age'],
  );
});

test('configmap: Data counts data and binaryData', () => {
  const cm = { metadata: meta('kube-root-ca.crt'), data: { 'ca.crt': '-----BEGIN CERTIFICATE-----' } };
  assert.deepEqual(configMapPrinter.row(cm, ctx).cells, ['kube-root-ca.crt', 1, '10m']);
  assert.deepEqual(configMapPrinter.row({ metadata: meta('mixed'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, ctx).cells, [
    'mixed',
    3,
    '10m',
  ]);
  assert.deepEqual(configMapPrinter.row({ metadata: meta('empty') }, ctx).cells, ['empty', 0, '10m']);
});

test('secret: Type and Data', () => {
  assert.deepEqual(secretPrinter.row({ metadata: meta('db'), type: 'Opaque', data: { user: 'YQ==', password: 'Yg==' } }, ctx).cells, [
    'db',
    'Opaque',
    2,
    '10m',
  ]);
  assert.deepEqual(
    secretPrinter.row({ metadata: meta('tls'), type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }, ctx).cells,
    ['tls', 'kubernetes.io/tls', 2, '10m'],
  );
  // stringData is folded into data by kube on write.
  assert.deepEqual(
    secretPrinter.row({ metadata: meta('s'), type: 'Opaque', data: { a: 'YQ==' }, stringData: { a: 'x', b: 'y' } }, ctx).cells,
    ['s', 'Opaque', 2, '10m'],
  );
  assert.deepEqual(
    secretPrinter.columns.map((c) => c.name),
    ['Name', 'Type', 'Data', 'Age'],
  );
});

test('serviceaccount: Name and Age only (kube 1.35 dropped the Secrets column)', () => {
  const sa = { metadata: meta('default', 5 * 86400), secrets: [{ name: 'default-token-abcde' }] };
  assert.deepEqual(serviceAccountPrinter.row(sa, ctx).cells, ['default', '5d']);
  assert.deepEqual(
    serviceAccountPrinter.columns.map((c) => c.name),
    ['Name', 'Age'],
  );
});

test('resourcequota: sorted request and limit usage, canonical quantities', () => {
  const rq: ResourceQuota = {
    metadata: meta('compute', 3600),
    spec: { hard: { pods: '10', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi' } },
    status: {
      hard: {
        pods: '10',
        'requests.cpu': '1',
        'requests.memory': '1Gi',
        'limits.cpu': '2',
        'limits.memory': '2Gi',
        'count/configmaps': '5',
      },
      used: { pods: '3', 'requests.cpu': '500m', 'requests.memory': '512Mi', 'limits.cpu': '1000m', 'limits.memory': '1024Mi' },
    },
  };
  assert.deepEqual(resourceQuotaPrinter.row(rq, ctx).cells, [
    'compute',
    'count/configmaps: 0/5, pods: 3/10, requests.cpu: 500m/1, requests.memory: 512Mi/1Gi',
    'limits.cpu: 1/2, limits.memory: 1Gi/2Gi',
    '60m',
  ]);
  assert.deepEqual(resourceQuotaPrinter.row({ metadata: meta('new', 5) }, ctx).cells, ['new', '', '', '5s']);
  assert.deepEqual(
    resourceQuotaPrinter.columns.map((c) => c.name),
    ['Name', 'Request', 'Limit', 'Age'],
  );
});
