import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  disruptionCondition,
  matchingTolerations,
  minTolerationMs,
  planEviction,
  planNodeHealth,
  reconcileTaints,
  staleAt,
  tolerates,
  unknownConditions,
  type NodeHealth,
  type ScheduledEviction,
} from './plan.ts';
import type { Node, NodeCondition, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const node = (ready: string, taints: Taint[] = []) => ({
  metadata: { name: 'n1' },
  spec: { taints },
  status: { conditions: [{ type: 'Ready', status: ready, lastHeartbeatTime: iso(NOW - 5000) }] },
});
const lease = (agoMs: number) => ({ spec: { renewTime: new Date(NOW - agoMs).toISOString() } });

const GRACE = 5_000; // 50 s at --speed 10

/** One look by the controller: when (its monotonic ms), and what the cache holds then. */
interface Look {
  at: number;
  /** The Lease's renewTime, in the node's own (maybe skewed) clock; undefined: no Lease. */
  renew?: number;
  /** The Ready condition's lastHeartbeatTime (default: one that never changes). */
  heartbeat?: number;
}

/** Runs the looks through planNodeHealth as the controller does; the Ready status after each. */
function run(looks: Look[], wallSkew = 0, ready = 'True'): string[] {
  let saved: NodeHealth | undefined;
  let conditions: NodeCondition[] = [{ type: 'Ready', status: ready, lastHeartbeatTime: iso(NOW - 600_000) }];
  return looks.map(({ at, renew, heartbeat }) => {
    // The kubelet posting its status: Ready with a new heartbeat.
    if (heartbeat !== undefined) conditions = [{ type: 'Ready', status: ready, lastHeartbeatTime: iso(heartbeat) }];
    const n: Node = { metadata: { name: 'n1' }, status: { conditions } };
    const l = renew === undefined ? undefined : { spec: { renewTime: new Date(renew).toISOString() } };
    const plan = planNodeHealth(saved, n, l, at, at + wallSkew, GRACE);
    saved = plan.health;
    if (plan.write) {
      conditions = plan.write.conditions;
      saved = plan.write.health;
    }
    return conditions.find((c) => c.type === 'Ready')!.status;
  });
}

/** Looks every second from `from` to `to` (monotonic ms after NOW); the node renews at each with its clock off by `nodeSkew`. */
const renewing = (from: number, to: number, nodeSkew: number): Look[] =>
  Array.from({ length: (to - from) / 1000 + 1 }, (_, i) => ({ at: NOW + from + i * 1000, renew: NOW + from + i * 1000 + nodeSkew }));
const quiet = (from: number, to: number): Look[] =>
  Array.from({ length: (to - from) / 1000 + 1 }, (_, i) => ({ at: NOW + from + i * 1000 }));
const all = (status: string, n: number) => Array<string>(n).fill(status);

test("a node's health is judged by when the controller saw its heartbeat change, on its own clock", () => {
  type Case = [string, Look[], number, string[]];
  const cases: Case[] = [
    ['renewing, renewTime 30 s ahead of the controller: Ready', renewing(0, 20_000, 30_000), 0, all('True', 21)],
    ['renewing, renewTime 30 s behind the controller: Ready', renewing(0, 20_000, -30_000), 0, all('True', 21)],
    ["renewing, the controller's wall clock 30 s ahead (chaos skew): Ready", renewing(0, 20_000, 0), 30_000, all('True', 21)],
    ["renewing, the controller's wall clock 30 s behind: Ready", renewing(0, 20_000, 0), -30_000, all('True', 21)],
    [
      'renewTime stops changing at 3 s: Ready until 3 s + the 5 s grace (when the controller last saw it change), Unknown after',
      [...renewing(0, 3_000, 30_000), ...[4, 5, 6, 7, 8, 9].map((s) => ({ at: NOW + s * 1000, renew: NOW + 3_000 + 30_000 }))],
      0,
      [...all('True', 4), 'True', 'True', 'True', 'True', 'True', 'Unknown'],
    ],
    [
      'a freshly seen node with a renewTime 10 min old: not marked at once; Unknown a grace period after first sight',
      [0, 2, 4, 5, 6].map((s) => ({ at: NOW + s * 1000, renew: NOW - 600_000 })),
      0,
      ['True', 'True', 'True', 'True', 'Unknown'],
    ],
    [
      'a freshly seen node without a Lease, whose Ready heartbeat is 10 min old: the same',
      quiet(0, 6_000),
      0,
      [...all('True', 6), 'Unknown'],
    ],
    [
      'no Lease, a Ready lastHeartbeatTime that keeps changing (in any clock): Ready',
      Array.from({ length: 10 }, (_, i) => ({ at: NOW + i * 2000, heartbeat: NOW - 3_600_000 + i * 1000 })),
      0,
      all('True', 10),
    ],
    [
      'an older renewTime than the one counted is no heartbeat (kube: only a later one)',
      [{ at: NOW, renew: NOW }, ...[2, 4, 6].map((s) => ({ at: NOW + s * 1000, renew: NOW - s * 1000 }))],
      0,
      ['True', 'True', 'True', 'Unknown'],
    ],
    [
      'back after going Unknown: the kubelet posts Ready and renews at 8 s, and the grace period counts from then',
      [...quiet(0, 6_000), { at: NOW + 7_000 }, { at: NOW + 8_000, renew: NOW + 8_000, heartbeat: NOW + 8_000 }, ...quiet(12_000, 14_000)],
      0,
      [...all('True', 6), 'Unknown', 'Unknown', 'True', 'True', 'True', 'Unknown'],
    ],
  ];
  for (const [why, looks, wallSkew, want] of cases) assert.deepEqual(run(looks, wallSkew), want, why);
});

test("the Unknown conditions: all four, kube's reason and message, stamped with the wall clock; once", () => {
  const fresh = planNodeHealth(undefined, node('True'), lease(600_000), 1_000, NOW + 30_000, 50_000);
  assert.equal(fresh.write, undefined, 'first sight: not stale');
  assert.equal(fresh.health.probeTimestamp, 1_000);
  const plan = planNodeHealth(fresh.health, node('True'), lease(600_000), 51_001, NOW + 30_000, 50_000);
  const c = plan.write!.conditions;
  assert.deepEqual(
    c.map((x) => `${x.type}=${x.status}`),
    ['Ready=Unknown', 'MemoryPressure=Unknown', 'DiskPressure=Unknown', 'PIDPressure=Unknown'],
  );
  assert.equal(c[0].reason, 'NodeStatusUnknown');
  assert.equal(c[0].message, 'Kubelet stopped posting node status.');
  assert.equal(c[0].lastTransitionTime, iso(NOW + 30_000), "the controller's (skewed) wall clock, as kube writes its own time");
  assert.equal(c[0].lastHeartbeatTime, iso(NOW - 5000), "the kubelet's last heartbeat stays");
  assert.equal(plan.write!.health.probeTimestamp, 1_000, 'the write is no heartbeat');
  assert.equal(staleAt(fresh.health, 50_000), 51_000);
  const again = planNodeHealth(plan.write!.health, { status: { conditions: c } }, lease(600_000), 60_000, NOW, 50_000);
  assert.equal(again.write, undefined, 'already Unknown: no write');
  assert.equal(unknownConditions({ status: { conditions: c } }, NOW), undefined);
});

test('taints follow readiness and keep their timeAdded', () => {
  const unknown = reconcileTaints(node('Unknown'), NOW)!;
  assert.deepEqual(
    unknown.map((t) => `${t.key}:${t.effect}`),
    ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'],
  );
  assert.equal(unknown[1].timeAdded, iso(NOW));
  assert.equal(reconcileTaints(node('Unknown', unknown), NOW + 5000), undefined);
  assert.deepEqual(reconcileTaints(node('True', [...unknown, { key: 'mine', effect: 'NoSchedule' }]), NOW), [
    { key: 'mine', effect: 'NoSchedule' },
  ]);
  assert.deepEqual(
    reconcileTaints(node('False'), NOW)!.map((t) => t.key),
    ['node.kubernetes.io/not-ready', 'node.kubernetes.io/not-ready'],
  );
});

const UNREACH = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const tol = (seconds?: number, o: Partial<Toleration> = {}): Toleration => ({
  key: 'node.kubernetes.io/unreachable',
  operator: 'Exists',
  effect: 'NoExecute',
  ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}),
  ...o,
});
const pending = (createdAt: number, fireAt: number) => ({ createdAt, fireAt, done: false });

test('tolerations match taints as ToleratesTaint does; the first matching one is used', () => {
  const cases: [string, Toleration, Taint, boolean][] = [
    ['Exists with the key', { key: 'k', operator: 'Exists' }, { key: 'k', value: 'v', effect: 'NoExecute' }, true],
    ['Exists without a key tolerates everything', { operator: 'Exists' }, { key: 'k', effect: 'NoExecute' }, true],
    ['Equal needs the value', { key: 'k', operator: 'Equal', value: 'v' }, { key: 'k', value: 'w', effect: 'NoExecute' }, false],
    ['no operator is Equal', { key: 'k', value: 'v' }, { key: 'k', value: 'v', effect: 'NoExecute' }, true],
    ['another effect', { key: 'k', operator: 'Exists', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }, false],
    ['another key', { key: 'j', operator: 'Exists' }, { key: 'k', effect: 'NoExecute' }, false],
  ];
  for (const [why, t, taint, want] of cases) assert.equal(tolerates(t, taint), want, why);
  const first = tol(5);
  assert.deepEqual(matchingTolerations([UNREACH], [first, tol(60)]), [first]);
  assert.equal(matchingTolerations([UNREACH, { key: 'x', effect: 'NoExecute' }], [first]), undefined);
  assert.equal(minTolerationMs([tol(10), tol(30)], 1), 10_000);
  assert.equal(minTolerationMs([tol(10), tol()], 10), 1_000, 'an unlimited one does not count; speed divides');
  assert.equal(minTolerationMs([tol()], 1), undefined, 'forever');
  assert.equal(minTolerationMs([tol(-3)], 1), 0);
});

test('processPodOnNode: evict at once, count down from first sight, keep, cancel', () => {
  type Case = [string, Toleration[], Taint[], ScheduledEviction | undefined, ScheduledEviction | undefined, boolean];
  const cases: Case[] = [
    ['not tolerated: at once', [], [UNREACH], undefined, pending(NOW, NOW), false],
    ['not tolerated with a countdown running: cancelled, at once', [], [UNREACH], pending(NOW - 5, NOW + 10), pending(NOW, NOW), true],
    ['tolerated for 10 s: due in 10 s', [tol(10)], [UNREACH], undefined, pending(NOW, NOW + 10_000), false],
    [
      'a countdown under way goes on (no restart)',
      [tol(10)],
      [UNREACH],
      pending(NOW - 9_000, NOW + 1_000),
      pending(NOW - 9_000, NOW + 1_000),
      false,
    ],
    ['tolerated forever: a countdown is cancelled', [tol()], [UNREACH], pending(NOW - 1, NOW + 5), undefined, true],
    ['taint gone: the countdown is cancelled', [tol(10)], [], pending(NOW - 1, NOW + 5), undefined, true],
    ['taint gone, nothing scheduled: nothing to cancel', [tol(10)], [], undefined, undefined, false],
    [
      'already evicted: not again',
      [tol(10)],
      [UNREACH],
      { createdAt: 1, fireAt: 2, done: true },
      { createdAt: 1, fireAt: 2, done: true },
      false,
    ],
    ['already evicted, taint gone: the entry is dropped quietly', [], [], { createdAt: 1, fireAt: 2, done: true }, undefined, false],
  ];
  for (const [why, tolerations, taints, current, next, cancelled] of cases) {
    assert.deepEqual(planEviction(tolerations, taints, current, NOW, 1), { next, cancelled }, why);
  }
});

test('a taint without timeAdded (kubectl taint) still ends a 10 s toleration: the countdown does not restart', () => {
  // Each look at the Pod (every requeue, every node update) must keep the first deadline.
  let entry: ScheduledEviction | undefined;
  for (let t = NOW; t <= NOW + 10_000; t += 2_500)
    entry = planEviction([tol(10, { key: 'dedicated' })], [{ key: 'dedicated', effect: 'NoExecute' }], entry, t, 1).next;
  assert.equal(entry!.fireAt, NOW + 10_000);
  assert.ok(entry!.fireAt <= NOW + 10_000, 'due by now');
});

test('the DisruptionTarget condition, once', () => {
  const pod: Pod = { spec: { containers: [] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  const c = disruptionCondition(pod, NOW)!;
  assert.deepEqual(c, {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'DeletionByTaintManager',
    message: 'Taint manager: deleting due to NoExecute taint',
    lastTransitionTime: iso(NOW),
  });
  assert.equal(disruptionCondition({ ...pod, status: { conditions: [c] } }, NOW + 1000), undefined);
  const other = disruptionCondition(
    { ...pod, status: { conditions: [{ ...c, reason: 'EvictionByEvictionAPI', lastTransitionTime: iso(NOW - 5000) }] } },
    NOW,
  )!;
  assert.equal(other.lastTransitionTime, iso(NOW - 5000), 'same status: the transition time stays');
});

test('pressure conditions add their NoSchedule taints while True (TaintNodesByCondition)', () => {
  const withConds = (conds: [string, string][], taints: Taint[] = []) => ({
    metadata: { name: 'n1' },
    spec: { taints },
    status: { conditions: conds.map(([type, status]) => ({ type, status })) },
  });
  const t = reconcileTaints(
    withConds([
      ['Ready', 'True'],
      ['MemoryPressure', 'True'],
      ['DiskPressure', 'False'],
      ['PIDPressure', 'True'],
    ]),
    NOW,
  )!;
  assert.deepEqual(
    t.map((x) => `${x.key}:${x.effect}`),
    ['node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule'],
  );
  assert.equal(t[0].timeAdded, undefined, 'NoSchedule taints carry no timeAdded');
  // Relieved: the taints go, others' stay.
  const mine = { key: 'mine', effect: 'NoSchedule' };
  assert.deepEqual(
    reconcileTaints(
      withConds(
        [
          ['Ready', 'True'],
          ['MemoryPressure', 'False'],
        ],
        [...t, mine],
      ),
      NOW,
    ),
    [mine],
  );
  // Unknown (the node went quiet): only the unreachable pair, whatever the pressure said before.
  const unknown = reconcileTaints(
    withConds(
      [
        ['Ready', 'Unknown'],
        ['MemoryPressure', 'Unknown'],
      ],
      t,
    ),
    NOW,
  )!;
  assert.deepEqual(
    unknown.map((x) => x.key),
    ['node.kubernetes.io/unreachable', 'node.kubernetes.io/unreachable'],
  );
  assert.equal(
    reconcileTaints(
      withConds(
        [
          ['Ready', 'True'],
          ['MemoryPressure', 'True'],
        ],
        [t[0]],
      ),
      NOW,
    ),
    undefined,
    'already there: no write',
  );
});
