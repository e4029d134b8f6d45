import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyScale, toScale } from './scale.ts';

const meta = { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' };

test('an RC scale: its map selector as a selector string, sorted', () => {
  const rc = {
    kind: 'ReplicationController',
    metadata: meta,
    spec: { replicas: 3, selector: { tier: 'fe', app: 'web' } },
    status: { replicas: 2 },
  };
  const s = toScale(rc);
  assert.deepEqual(s.spec, { replicas: 3 });
  assert.deepEqual(s.status, { replicas: 2, selector: 'app=web,tier=fe' });
  assert.equal(s.metadata!.uid, 'u1');
  assert.equal(toScale({ kind: 'ReplicationController', metadata: meta, spec: {} }).status!.selector, '');
});

test('a ReplicaSet scale keeps its LabelSelector rendering', () => {
  const rs = {
    kind: 'ReplicaSet',
    metadata: meta,
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['a'] }] } },
  };
  assert.equal(toScale(rs).status!.selector, 'app=web,env in (a)');
});

test('applyScale writes spec.replicas only, and refuses a negative count', () => {
  const rc = { kind: 'ReplicationController', metadata: meta, spec: { replicas: 1, selector: { app: 'web' } } };
  assert.deepEqual(applyScale(rc, { spec: { replicas: 5 } }).spec, { replicas: 5, selector: { app: 'web' } });
  assert.throws(
    () => applyScale(rc, { metadata: { name: 'web' }, spec: { replicas: -1 } }),
    /spec.replicas: Invalid value: -1: must be greater than or equal to 0/,
  );
});
