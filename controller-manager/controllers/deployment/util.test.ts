import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import {
  equalIgnoringHash,
  fenceposts,
  maxUnavailable,
  newReplicaSetReplicas,
  podTemplateHash,
  newReplicaSetAnnotations,
  proportion,
  replicasAnnotations,
  scaledValue,
  type DeploymentLike,
  type ReplicaSetLike,
} from './util.ts';

const dep = (replicas: number, maxSurge?: number | string, maxUnavailableV?: number | string, type = 'RollingUpdate') => ({
  metadata: { name: 'd', annotations: {} },
  spec: { replicas, strategy: { type, rollingUpdate: { maxSurge, maxUnavailable: maxUnavailableV } } },
});
const rs = (replicas: number, extra: { annotations?: Record<string, string>; status?: Partial<ReplicaSetStatus> } = {}) => ({
  metadata: { name: `rs-${replicas}`, annotations: extra.annotations ?? {} },
  spec: { replicas },
  status: extra.status ?? {},
});

test('int-or-percent scaling rounds surge up and unavailability down', () => {
  const cases: [number | string, number, boolean, number][] = [
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['25%', 1, true, 1],
    ['25%', 1, false, 0],
    ['50%', 3, false, 1],
    ['100%', 7, true, 7],
    [2, 10, true, 2],
    ['0%', 10, true, 0],
  ];
  for (const [v, total, up, want] of cases)
    assert.equal(scaledValue(v, total, up), want, `${v} of ${total} rounding ${up ? 'up' : 'down'}`);
});

test('fenceposts: both zero makes maxUnavailable 1; defaults are 25%/25%', () => {
  const cases: [DeploymentLike, { surge: number; unavailable: number }][] = [
    [dep(10, 0, 0), { surge: 0, unavailable: 1 }],
    [dep(10, 1, 0), { surge: 1, unavailable: 0 }],
    [dep(10, 0, 1), { surge: 0, unavailable: 1 }],
    [dep(10, undefined, undefined), { surge: 3, unavailable: 2 }],
    [dep(1, '25%', '25%'), { surge: 1, unavailable: 0 }],
    [dep(4, '50%', '50%'), { surge: 2, unavailable: 2 }],
  ];
  for (const [d, want] of cases) assert.deepEqual(fenceposts(d), want, JSON.stringify(d.spec?.strategy));
  assert.equal(maxUnavailable(dep(2, 0, 5)), 2, 'never more than replicas');
  assert.equal(maxUnavailable(dep(3, 1, 1, 'Recreate')), 0);
  assert.equal(maxUnavailable(dep(0, 1, 1)), 0);
});

test('the new ReplicaSet grows only within replicas + maxSurge', () => {
  const cases: [DeploymentLike, ReplicaSetLike[], number, number][] = [
    // d, all RSs (old first), index of new RS, expected size
    [dep(10, 3, 2), [rs(10), rs(0)], 1, 3],
    [dep(10, 3, 2), [rs(10), rs(3)], 1, 3],
    [dep(10, 3, 2), [rs(7), rs(3)], 1, 6],
    [dep(10, 0, 1), [rs(10), rs(0)], 1, 0],
    [dep(10, 0, 1), [rs(9), rs(0)], 1, 1],
    [dep(3, 1, 0), [rs(0)], 0, 3],
    [dep(5, 1, 1, 'Recreate'), [rs(5), rs(0)], 1, 5],
  ];
  for (const [d, all, i, want] of cases)
    assert.equal(newReplicaSetReplicas(d, all, all[i]), want, `${JSON.stringify(d.spec)} ${all.map((r) => r.spec?.replicas).join(',')}`);
});

test('proportional scaling shares an increase by each ReplicaSet size', () => {
  const d = dep(15, 3, 2);
  const a = rs(6, { annotations: { 'deployment.kubernetes.io/max-replicas': '13' } });
  const b = rs(4, { annotations: { 'deployment.kubernetes.io/max-replicas': '13' } });
  // From 10 (max 13) to 15 (max 18): 5 more to share.
  assert.equal(proportion(a, d, 8, 0), Math.round((6 * 18) / 13) - 6);
  assert.equal(proportion(b, d, 8, 2), Math.round((4 * 18) / 13) - 4);
  assert.equal(proportion(rs(0), d, 8, 0), 0);
});

test('new ReplicaSet annotations (SetNewReplicaSetAnnotations): copy, revision, revision-history, replica annotations', () => {
  const REV = 'deployment.kubernetes.io/revision';
  const HIST = 'deployment.kubernetes.io/revision-history';
  const CAUSE = 'kubernetes.io/change-cause';
  const owned = {
    'kubectl.kubernetes.io/last-applied-configuration': '{}',
    [REV]: '9',
    [HIST]: '7,8',
    'deployment.kubernetes.io/desired-replicas': '99',
    'deployment.kubernetes.io/max-replicas': '99',
    'deprecated.deployment.rollback.to': '1',
  };
  const d = (annotations: Record<string, string>) => ({
    metadata: { annotations },
    spec: { replicas: 4, strategy: { rollingUpdate: { maxSurge: 1 } } },
  });
  const cases: {
    name: string;
    d: DeploymentLike;
    rs: Record<string, string>;
    rev: number;
    exists: boolean;
    limit?: number;
    want: Record<string, string>;
  }[] = [
    {
      name: 'created: the Deployment annotations but the owned ones, revision, replica annotations',
      d: d({ ...owned, [CAUSE]: 'v2', team: 'a' }),
      rs: {},
      rev: 3,
      exists: false,
      want: {
        [CAUSE]: 'v2',
        team: 'a',
        [REV]: '3',
        'deployment.kubernetes.io/desired-replicas': '4',
        'deployment.kubernetes.io/max-replicas': '5',
      },
    },
    {
      name: 'still the new one: a changed cause is copied, the revision stays, no replica annotations',
      d: d({ [CAUSE]: 'v2 fixed' }),
      rs: { [CAUSE]: 'v2', [REV]: '3', other: 'kept' },
      rev: 3,
      exists: true,
      want: { [CAUSE]: 'v2 fixed', [REV]: '3', other: 'kept' },
    },
    {
      name: 'a revision above newRevision is kept (old ReplicaSets were deleted)',
      d: d({}),
      rs: { [REV]: '5' },
      rev: 3,
      exists: true,
      want: { [REV]: '5' },
    },
    {
      name: 'rolled back to: the old revision goes to revision-history',
      d: d({ [CAUSE]: 'v1' }),
      rs: { [CAUSE]: 'v1', [REV]: '1' },
      rev: 5,
      exists: true,
      want: { [CAUSE]: 'v1', [REV]: '5', [HIST]: '1' },
    },
    {
      name: 'rolled back to again: appended to the history',
      d: d({}),
      rs: { [REV]: '5', [HIST]: '1,3' },
      rev: 7,
      exists: true,
      want: { [REV]: '7', [HIST]: '1,3,5' },
    },
    {
      name: 'the history drops its oldest entries past the character limit',
      d: d({}),
      rs: { [REV]: '12', [HIST]: '1,3,10' },
      rev: 14,
      exists: true,
      limit: 8,
      want: { [REV]: '14', [HIST]: '3,10,12' },
    },
    {
      name: 'a revision that is no integer is left alone, the copy still happens',
      d: d({ team: 'b' }),
      rs: { [REV]: 'x' },
      rev: 2,
      exists: true,
      want: { [REV]: 'x', team: 'b' },
    },
    {
      name: 'an empty revision counts as 0; kube still records it, empty, as the history',
      d: d({}),
      rs: { [REV]: '' },
      rev: 2,
      exists: true,
      want: { [REV]: '2', [HIST]: '' },
    },
  ];
  for (const c of cases) {
    const before = structuredClone(c.rs);
    assert.deepEqual(newReplicaSetAnnotations(c.d, { metadata: { annotations: c.rs } }, c.rev, c.exists, c.limit), c.want, c.name);
    assert.deepEqual(c.rs, before, `${c.name}: the ReplicaSet is not changed in place`);
  }
  assert.deepEqual(replicasAnnotations(d({})), {
    'deployment.kubernetes.io/desired-replicas': '4',
    'deployment.kubernetes.io/max-replicas': '5',
  });
});

test('templates compare without the hash label and without empty values; hashes use the safe alphabet', () => {
  const t = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
  const withHash = {
    metadata: { labels: { app: 'a', 'pod-template-hash': 'abc' }, creationTimestamp: null },
    spec: { containers: [{ name: 'c', image: 'x', resources: {} }] },
  };
  // kubectl sends creationTimestamp: null in templates, which no PodTemplateSpec type admits.
  assert.ok(equalIgnoringHash(t, withHash as unknown as PodTemplateSpec));
  assert.ok(!equalIgnoringHash(t, { ...t, spec: { containers: [{ name: 'c', image: 'y' }] } }));
  const h = podTemplateHash(t);
  assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  assert.equal(podTemplateHash(t), h);
  assert.notEqual(podTemplateHash(t, 1), h);
});
