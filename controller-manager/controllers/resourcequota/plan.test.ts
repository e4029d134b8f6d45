import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { desiredStatus, resourceOfName, sameStatus, type Counted } from './plan.ts';

const pod = (cpu: string, phase = 'Running', extra: object = {}) => ({
  metadata: { name: `p-${cpu}`, namespace: 'lab' },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu, memory: '64Mi' }, limits: { cpu } } }], ...extra },
  status: { phase },
});

test('names map to the resource they count', () => {
  const cases: Array<[string, Counted | undefined]> = [
    ['pods', { group: '', plural: 'pods' }],
    ['requests.cpu', { group: '', plural: 'pods' }],
    ['limits.memory', { group: '', plural: 'pods' }],
    ['cpu', { group: '', plural: 'pods' }],
    ['services.nodeports', { group: '', plural: 'services' }],
    ['requests.storage', { group: '', plural: 'persistentvolumeclaims' }],
    ['gold.storageclass.storage.k8s.io/requests.storage', { group: '', plural: 'persistentvolumeclaims' }],
    ['configmaps', { group: '', plural: 'configmaps' }],
    ['count/deployments.apps', { group: 'apps', plural: 'deployments' }],
    ['count/secrets', { group: '', plural: 'secrets' }],
    ['something-else', undefined],
  ];
  for (const [name, want] of cases) assert.deepEqual(resourceOfName(name), want, name);
});

test('status.used is recomputed from the objects; finished pods and unwatched names as kube', () => {
  const quota: ResourceQuota = {
    metadata: { name: 'q', namespace: 'lab' },
    spec: {
      hard: { pods: '10', 'requests.cpu': '4', 'limits.cpu': '4', 'requests.memory': '1Gi', configmaps: '5', 'count/jobs.batch': '3' },
    },
    status: { used: { 'count/jobs.batch': '2', pods: '99' } },
  };
  const objects: Record<string, unknown[]> = {
    '/pods': [pod('500m'), pod('1500m'), pod('1', 'Succeeded')],
    '/configmaps': [{ metadata: { name: 'a' } }],
  };
  const status = desiredStatus(quota, (r) => objects[`${r.group}/${r.plural}`]);
  assert.deepEqual(status, {
    hard: quota.spec!.hard,
    used: { pods: '2', 'requests.cpu': '2', 'limits.cpu': '2', 'requests.memory': '128Mi', configmaps: '1', 'count/jobs.batch': '2' },
  });
  assert.equal(sameStatus(quota.status, status), false);
  assert.equal(sameStatus(structuredClone(status), status), true);
  // Scopes select the pods they name.
  const terminating: ResourceQuota = { ...quota, spec: { hard: { pods: '5' }, scopes: ['Terminating'] } };
  objects['/pods'].push(pod('100m', 'Running', { activeDeadlineSeconds: 30 }));
  assert.deepEqual(desiredStatus(terminating, (r) => objects[`${r.group}/${r.plural}`]).used, { pods: '1' });
});
