// Tables for the DaemonSet plan: which nodes may run the daemon, what
// manage creates and deletes, what a rolling update replaces (with
// maxUnavailable and with maxSurge), the status counts, and history cleanup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod, Taint } from 'kubernetes-types/core/v1.js';
import {
  computeStatus,
  FailedPodBackoff,
  historyToDelete,
  keptCurrent,
  planManage,
  planRollingUpdate,
  podsByNode,
  rolloutLimits,
  splitHistory,
  daemonSetPatch,
} from './plan.ts';
import {
  createPodTemplate,
  daemonTolerations,
  isPodUpdated,
  nodeNameAffinity,
  nodeShouldRunDaemonPod,
  targetNodeName,
  withDaemonTolerations,
} from './util.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function node(name: string, opts: { labels?: Record<string, string>; taints?: Taint[] } = {}): Node {
  return { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...opts.labels } }, spec: { taints: opts.taints } };
}

function ds(spec: Partial<NonNullable<DaemonSet['spec']>> = {}, extra: Partial<DaemonSet> = {}): DaemonSet {
  return {
    metadata: {
      name: 'agent',
      namespace: 'default',
      uid: 'ds-uid',
      generation: 2,
      annotations: { 'deprecated.daemonset.template.generation': '2' },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      ...spec,
    },
    ...extra,
  };
}

interface PodOpts {
  hash?: string;
  ready?: boolean;
  readySince?: number;
  phase?: string;
  created?: number;
  deleting?: boolean;
  bound?: boolean;
}
function pod(name: string, nodeName: string, o: PodOpts = {}): Pod {
  const ready = o.ready ?? true;
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'agent', 'controller-revision-hash': o.hash ?? 'new' },
      creationTimestamp: iso(o.created ?? NOW - 60_000),
      ...(o.deleting ? { deletionTimestamp: iso(NOW) } : {}),
    },
    spec: {
      containers: [{ name: 'c' }],
      ...(o.bound === false ? { affinity: nodeNameAffinity(undefined, nodeName) } : { nodeName }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(o.readySince ?? NOW - 60_000) }],
    },
  };
}
const names = (ps: Pod[]) => ps.map((p) => p.metadata!.name).sort();

test('node eligibility: selector, affinity, taints and the automatic tolerations', () => {
  const t = (key: string, effect: string, value?: string): Taint => ({ key, effect, ...(value ? { value } : {}) });
  const cases: [string, Node, DaemonSet, boolean, boolean][] = [
    ['plain node', node('n1'), ds(), true, true],
    ['nodeSelector matches', node('n1', { labels: { disk: 'ssd' } }), withSpec({ nodeSelector: { disk: 'ssd' } }), true, true],
    ['nodeSelector misses', node('n1'), withSpec({ nodeSelector: { disk: 'ssd' } }), false, false],
    [
      'required node affinity misses',
      node('n1'),
      withSpec({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
        },
      }),
      false,
      false,
    ],
    ['nodeName elsewhere', node('n1'), withSpec({ nodeName: 'n2' }), false, false],
    ['NoSchedule taint: stays, not started', node('n1', { taints: [t('dedicated', 'NoSchedule')] }), ds(), false, true],
    ['NoExecute taint: leaves', node('n1', { taints: [t('dedicated', 'NoExecute')] }), ds(), false, false],
    [
      'tolerated taint',
      node('n1', { taints: [t('dedicated', 'NoSchedule', 'infra')] }),
      withSpec({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }] }),
      true,
      true,
    ],
    [
      'control-plane taint without toleration',
      node('cp', { taints: [t('node-role.kubernetes.io/control-plane', 'NoSchedule')] }),
      ds(),
      false,
      true,
    ],
    ['not-ready is tolerated by every daemon', node('n1', { taints: [t('node.kubernetes.io/not-ready', 'NoExecute')] }), ds(), true, true],
    ['unreachable too', node('n1', { taints: [t('node.kubernetes.io/unreachable', 'NoExecute')] }), ds(), true, true],
    ['unschedulable too', node('n1', { taints: [t('node.kubernetes.io/unschedulable', 'NoSchedule')] }), ds(), true, true],
    ['memory-pressure too', node('n1', { taints: [t('node.kubernetes.io/memory-pressure', 'NoSchedule')] }), ds(), true, true],
    [
      'network-unavailable: not without hostNetwork',
      node('n1', { taints: [t('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      ds(),
      false,
      true,
    ],
    [
      'network-unavailable: tolerated with hostNetwork',
      node('n1', { taints: [t('node.kubernetes.io/network-unavailable', 'NoSchedule')] }),
      withSpec({ hostNetwork: true }),
      true,
      true,
    ],
  ];
  for (const [what, n, d, shouldRun, shouldContinueRunning] of cases) {
    assert.deepEqual(nodeShouldRunDaemonPod(n, d), { shouldRun, shouldContinueRunning }, what);
  }
});

function withSpec(podSpec: Record<string, unknown>): DaemonSet {
  const d = ds();
  d.spec!.template.spec = { ...d.spec!.template.spec!, ...podSpec };
  return d;
}

test('daemon tolerations are added once, and the template carries hash and generation', () => {
  assert.equal(daemonTolerations(false).length, 6);
  assert.equal(daemonTolerations(true).length, 7);
  const spec = withDaemonTolerations({
    containers: [],
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
  });
  assert.equal(spec.tolerations!.length, 6);
  const t = createPodTemplate(ds().spec!.template, 2, 'abc');
  assert.deepEqual(t.metadata!.labels, { app: 'agent', 'pod-template-generation': '2', 'controller-revision-hash': 'abc' });
  assert.equal(t.spec!.tolerations!.length, 6);
});

test('node-name affinity replaces the required terms and names the target node', () => {
  const a = nodeNameAffinity(
    {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'x', operator: 'Exists' }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, preference: { matchExpressions: [{ key: 'y', operator: 'Exists' }] } },
        ],
      },
    },
    'n2',
  );
  assert.deepEqual(a.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution, {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }],
  });
  assert.equal(a.nodeAffinity!.preferredDuringSchedulingIgnoredDuringExecution!.length, 1);
  assert.equal(targetNodeName(pod('p', 'n2', { bound: false })), 'n2');
  assert.equal(targetNodeName(pod('p', 'n3')), 'n3');
  assert.equal(targetNodeName({ spec: { containers: [] } }), undefined);
});

test('isPodUpdated: the hash or the template generation', () => {
  const p = pod('p', 'n1', { hash: 'h1' });
  assert.equal(isPodUpdated(p, 'h1', undefined), true);
  assert.equal(isPodUpdated(p, 'h2', undefined), false);
  p.metadata!.labels!['pod-template-generation'] = '3';
  assert.equal(isPodUpdated(p, 'h2', 3), true);
  assert.equal(isPodUpdated(p, '', 4), false);
});

test('manage: create where missing, delete where not allowed, prune extras, failed and succeeded Pods', () => {
  const tainted = node('n3', { taints: [{ key: 'k', effect: 'NoExecute' }] });
  const nodes = [node('n1'), node('n2'), tainted, node('n4')];
  const pods = [
    pod('on-n2-old', 'n2', { created: NOW - 120_000 }),
    pod('on-n2-extra', 'n2', { created: NOW - 10_000 }),
    pod('on-n3', 'n3'),
    pod('failed-n4', 'n4', { phase: 'Failed' }),
    pod('pending-for-gone-node', 'gone', { bound: false }),
    pod('bound-to-gone-node', 'gone2'),
  ];
  const plan = planManage(ds(), nodes, podsByNode(pods), 'new', NOW, new FailedPodBackoff());
  assert.deepEqual(plan.createOn, ['n1']);
  assert.deepEqual(names(plan.delete), ['failed-n4', 'on-n2-extra', 'on-n3', 'pending-for-gone-node']);
  assert.deepEqual(
    plan.events.map((e) => [e.type, e.reason, e.message]),
    [['Warning', 'FailedDaemonPod', 'Found failed daemon pod default/failed-n4 on node n4, will try to kill it']],
  );
  // Once the failed Pod is gone the node gets a new one.
  assert.deepEqual(planManage(ds(), [node('n4')], new Map(), 'new', NOW, new FailedPodBackoff()).createOn, ['n4']);
});

test('manage: a terminal Pod already being deleted is left alone, and its node gets a new Pod', () => {
  const gone = [pod('f', 'n1', { phase: 'Failed', deleting: true })];
  const plan = planManage(ds(), [node('n1')], podsByNode(gone), 'new', NOW, new FailedPodBackoff());
  assert.deepEqual(plan.createOn, ['n1']);
  assert.deepEqual(plan.delete, []);
  assert.equal(podsByNode(gone, true).get('n1')?.length, 1, 'history cleanup still sees it');
});

test('manage: a failed Pod is deleted again only after the backoff', () => {
  const backoff = new FailedPodBackoff(1000, 60_000);
  const byNode = podsByNode([pod('f', 'n1', { phase: 'Failed' })]);
  assert.equal(planManage(ds(), [node('n1')], byNode, 'new', NOW, backoff).delete.length, 1);
  const again = planManage(ds(), [node('n1')], byNode, 'new', NOW + 500, backoff);
  assert.equal(again.delete.length, 0);
  assert.equal(again.requeueAfterMs, 500);
  assert.equal(planManage(ds(), [node('n1')], byNode, 'new', NOW + 1000, backoff).delete.length, 1);
  assert.equal(planManage(ds(), [node('n1')], byNode, 'new', NOW + 2500, backoff).delete.length, 0, 'the delay doubled to 2 s');
});

test('manage: a succeeded Pod is deleted with kube event', () => {
  const plan = planManage(ds(), [node('n1')], podsByNode([pod('s', 'n1', { phase: 'Succeeded' })]), 'new', NOW, new FailedPodBackoff());
  assert.deepEqual(names(plan.delete), ['s']);
  assert.equal(plan.events[0].reason, 'SucceededDaemonPod');
  assert.equal(plan.events[0].message, 'Found succeeded daemon pod default/s on node n1, will try to delete it');
});

const surging = () => ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });

test('manage with surge: old and new share a node until the new one is available', () => {
  const cases: [string, Pod[], string[], string[]][] = [
    ['new not ready: both stay', [pod('old', 'n1', { hash: 'old' }), pod('new', 'n1', { ready: false, created: NOW })], [], []],
    ['new available: old goes', [pod('old', 'n1', { hash: 'old' }), pod('new', 'n1', { created: NOW })], ['old'], []],
    [
      'old not ready: old goes',
      [pod('old', 'n1', { hash: 'old', ready: false }), pod('new', 'n1', { ready: false, created: NOW })],
      ['old'],
      [],
    ],
    ['only a terminating Pod: start one', [pod('old', 'n1', { deleting: true })], [], ['n1']],
    [
      'two new ones: the younger goes',
      [pod('a', 'n1', { created: NOW - 5000 }), pod('b', 'n1', { created: NOW - 1000 }), pod('old', 'n1', { hash: 'old', ready: false })],
      ['b', 'old'],
      [],
    ],
  ];
  for (const [what, pods, del, create] of cases) {
    const plan = planManage(surging(), [node('n1')], podsByNode(pods), 'new', NOW, new FailedPodBackoff());
    assert.deepEqual(names(plan.delete), del, what);
    assert.deepEqual(plan.createOn, create, what);
  }
});

test('rollout limits: percentages round up; 0/0 means one unavailable', () => {
  const nodes = [node('a'), node('b'), node('c'), node('d'), node('e')];
  const ru = (rollingUpdate: Record<string, unknown>, type = 'RollingUpdate') => ds({ updateStrategy: { type, rollingUpdate } });
  assert.deepEqual(rolloutLimits(ru({ maxUnavailable: '30%', maxSurge: 0 }), nodes), { maxSurge: 0, maxUnavailable: 2, desired: 5 });
  assert.deepEqual(rolloutLimits(ru({ maxUnavailable: 0, maxSurge: '10%' }), nodes), { maxSurge: 1, maxUnavailable: 0, desired: 5 });
  assert.deepEqual(rolloutLimits(ru({ maxUnavailable: 0, maxSurge: 0 }), nodes), { maxSurge: 0, maxUnavailable: 1, desired: 5 });
});

test('rolling update without surge: within maxUnavailable', () => {
  const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => node(n));
  const withMax = (maxUnavailable: number | string) =>
    ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge: 0 } } });
  const allOld = nodes.map((n) => pod(`old-${n.metadata!.name}`, n.metadata!.name!, { hash: 'old' }));
  const cases: [string, DaemonSet, Pod[], number, string[] | undefined][] = [
    ['maxUnavailable 1, all old and available: one goes', withMax(1), allOld, 1, undefined],
    ['maxUnavailable 2: two go', withMax(2), allOld, 2, undefined],
    ['50% of 4: two go', withMax('50%'), allOld, 2, undefined],
    [
      'an unavailable old Pod is replaced at once, and counts',
      withMax(1),
      [pod('old-n1', 'n1', { hash: 'old', ready: false }), ...allOld.slice(1)],
      1,
      ['old-n1'],
    ],
    ['a new Pod not yet available uses the budget', withMax(1), [pod('new-n1', 'n1', { ready: false }), ...allOld.slice(1)], 0, []],
    ['a node without Pod uses the budget', withMax(1), allOld.slice(1), 0, []],
    ['all new: nothing', withMax(1), nodes.map((n) => pod(`new-${n.metadata!.name}`, n.metadata!.name!)), 0, []],
  ];
  for (const [what, d, pods, count, exact] of cases) {
    const plan = planRollingUpdate(d, nodes, podsByNode(pods), 'new', NOW);
    assert.equal(plan.delete.length, count, what);
    assert.deepEqual(plan.createOn, [], what);
    if (exact) assert.deepEqual(names(plan.delete), exact, what);
  }
});

test('rolling update without surge: minReadySeconds keeps a just-ready Pod unavailable', () => {
  const nodes = [node('n1'), node('n2')];
  const d = ds({ minReadySeconds: 30, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
  const pods = [pod('new-n1', 'n1', { readySince: NOW - 10_000 }), pod('old-n2', 'n2', { hash: 'old' })];
  assert.equal(planRollingUpdate(d, nodes, podsByNode(pods), 'new', NOW).delete.length, 0);
  assert.equal(planRollingUpdate(d, nodes, podsByNode(pods), 'new', NOW + 20_001).delete.length, 1);
  // At speed 10, 30 s are 3 s.
  assert.equal(planRollingUpdate(d, nodes, podsByNode(pods), 'new', NOW, 10).delete.length, 1);
});

test('rolling update with surge: start new Pods next to old ones within maxSurge', () => {
  const nodes = ['n1', 'n2', 'n3'].map((n) => node(n));
  const d = (maxSurge: number) => ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable: 0 } } });
  const cases: [string, number, Pod[], string[], string[]][] = [
    ['surge 1: one new Pod', 1, nodes.map((n) => pod(`old-${n.metadata!.name}`, n.metadata!.name!, { hash: 'old' })), [], ['n1']],
    ['surge 2: two', 2, nodes.map((n) => pod(`old-${n.metadata!.name}`, n.metadata!.name!, { hash: 'old' })), [], ['n1', 'n2']],
    [
      'a new Pod not available yet uses the surge',
      1,
      [pod('old-n1', 'n1', { hash: 'old' }), pod('new-n1', 'n1', { ready: false }), pod('old-n2', 'n2', { hash: 'old' })],
      [],
      [],
    ],
    [
      'a new Pod available: its old one goes, the next surges',
      1,
      [pod('old-n1', 'n1', { hash: 'old' }), pod('new-n1', 'n1'), pod('old-n2', 'n2', { hash: 'old' })],
      ['old-n1'],
      ['n2'],
    ],
    [
      'an unavailable old Pod gets its successor beyond the surge',
      1,
      [pod('old-n1', 'n1', { hash: 'old', ready: false }), pod('old-n2', 'n2', { hash: 'old' })],
      [],
      ['n1', 'n2'],
    ],
  ];
  for (const [what, surge, pods, del, create] of cases) {
    const plan = planRollingUpdate(d(surge), nodes, podsByNode(pods), 'new', NOW);
    assert.deepEqual(names(plan.delete), del, what);
    assert.deepEqual(plan.createOn.sort(), create, what);
  }
});

test('status: desired, current, ready, available, updated, misscheduled', () => {
  const nodes = [node('n1'), node('n2'), node('n3'), node('t', { taints: [{ key: 'k', effect: 'NoSchedule' }] })];
  const pods = [pod('a', 'n1'), pod('b', 'n2', { hash: 'old' }), pod('c', 't'), pod('d', 'n3', { ready: false })];
  const { status } = computeStatus(ds(), nodes, podsByNode(pods), 'new', NOW, true);
  assert.deepEqual(status, {
    currentNumberScheduled: 3,
    desiredNumberScheduled: 3,
    numberMisscheduled: 1,
    numberReady: 2,
    observedGeneration: 2,
    updatedNumberScheduled: 2,
    numberAvailable: 2,
    numberUnavailable: 1,
  });
  const before = computeStatus(ds({}, { status: { observedGeneration: 1 } as DaemonSet['status'] }), nodes, new Map(), 'new', NOW, false);
  assert.equal(before.status.observedGeneration, 1, 'not observed while expectations are pending');
  assert.equal(before.status.numberAvailable, undefined);
  const slow = computeStatus(
    ds({ minReadySeconds: 60 }),
    [node('n1')],
    podsByNode([pod('a', 'n1', { readySince: NOW - 1000 })]),
    'new',
    NOW,
    true,
  );
  assert.equal(slow.status.numberAvailable, undefined);
  assert.equal(slow.requeueAfterMs, 60_000);
});

function rev(name: string, revision: number, hash: string, data: unknown = { x: name }): ControllerRevision {
  return { metadata: { name, labels: { 'controller-revision-hash': hash } }, revision, data: data as object };
}

test('history: the current revision is the one with the template; the next number follows the old ones', () => {
  const d = ds();
  const current = rev('agent-cur', 1, 'cur', daemonSetPatch(d));
  const split = splitHistory(d, [rev('agent-a', 2, 'a'), current, rev('agent-b', 4, 'b')]);
  assert.deepEqual(
    split.current.map((r) => r.metadata!.name),
    ['agent-cur'],
  );
  assert.deepEqual(
    split.old.map((r) => r.metadata!.name),
    ['agent-a', 'agent-b'],
  );
  assert.equal(split.currentRevision, 5);
  assert.equal(keptCurrent([rev('x', 3, 'x'), rev('y', 5, 'y'), rev('z', 1, 'z')]).metadata!.name, 'y');
});

test('history cleanup: oldest first beyond the limit, sparing revisions live Pods carry', () => {
  const old = [rev('r3', 3, 'h3'), rev('r1', 1, 'h1'), rev('r2', 2, 'h2'), rev('r4', 4, 'h4')];
  const cases: [number, Pod[], string[]][] = [
    [10, [], []],
    [4, [], []],
    [2, [], ['r1', 'r2']],
    [2, [pod('p', 'n1', { hash: 'h1' })], ['r2', 'r3']],
    [0, [pod('p', 'n1', { hash: 'h2' })], ['r1', 'r3', 'r4']],
  ];
  for (const [limit, pods, want] of cases) {
    assert.deepEqual(
      historyToDelete(ds({ revisionHistoryLimit: limit }), old, pods).map((r) => r.metadata!.name),
      want,
      `limit ${limit}`,
    );
  }
});
