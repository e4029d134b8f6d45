import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  OwnershipGraph,
  partitionDependents,
  referencesDiffs,
  ReferenceCache,
  startsWaiting,
  type Identity,
  type ObservedObject,
  type QueueAction,
} from './graph.ts';

const CLUSTER_KINDS = new Set(['Node', 'Namespace', 'ClusterRole']);
const newGraph = () => new OwnershipGraph((_v, kind) => (kind === 'Mystery' ? undefined : !CLUSTER_KINDS.has(kind)));

const id = (kind: string, name: string, uid: string, namespace = 'ns'): Identity => ({
  apiVersion: kind === 'Pod' || kind === 'Node' ? 'v1' : 'apps/v1',
  kind,
  name,
  uid,
  namespace: CLUSTER_KINDS.has(kind) ? '' : namespace,
});
const ref = (o: Identity, block = true) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.name,
  uid: o.uid,
  controller: true,
  blockOwnerDeletion: block,
});
const obj = (identity: Identity, owners: Identity[] = [], extra: Partial<ObservedObject> = {}): ObservedObject => ({
  identity,
  owners: owners.map((o) => ref(o)),
  ...extra,
});
// Sorted and de-duplicated, as the work queue holds them.
const keys = (actions: QueueAction[]) => [...new Set(actions.map((a) => `${a.queue}/${a.uid}${a.rateLimited ? '~' : ''}`))].sort();

const D = id('Deployment', 'web', 'd1');
const RS = id('ReplicaSet', 'web-1', 'rs1');
const P1 = id('Pod', 'web-1-a', 'p1');
const P2 = id('Pod', 'web-1-b', 'p2');

test('an owner seen only as a reference is virtual and queued for verification; observing it is quiet', () => {
  const g = newGraph();
  assert.deepEqual(keys(g.observe(obj(P1, [RS]))), ['delete/rs1']);
  assert.equal(g.get('rs1')!.observed, false);
  assert.deepEqual(
    [...g.get('rs1')!.dependents].map((n) => n.identity.uid),
    ['p1'],
  );
  assert.deepEqual(keys(g.observe(obj(P2, [RS]))), [], 'the virtual node exists already');
  assert.deepEqual(keys(g.observe(obj(RS, [D]))), ['delete/d1']);
  assert.equal(g.get('rs1')!.observed, true);
});

test('graph changes and what they queue', () => {
  const cases: { why: string; setup: ObservedObject[]; change: (g: OwnershipGraph) => QueueAction[]; queued: string[] }[] = [
    {
      why: 'an observed owner deleted: its dependents are checked',
      setup: [obj(D), obj(RS, [D]), obj(P1, [RS]), obj(P2, [RS])],
      change: (g) => g.observeDelete(RS),
      queued: ['delete/p1', 'delete/p2'],
    },
    {
      why: 'a dependent deleted under a foreground owner: the owner is checked',
      setup: [obj(RS, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), obj(P1, [RS])],
      change: (g) => g.observeDelete(P1),
      queued: ['delete/rs1'],
    },
    {
      why: 'a dependent deleted under a normal owner: nothing',
      setup: [obj(RS), obj(P1, [RS])],
      change: (g) => g.observeDelete(P1),
      queued: [],
    },
    {
      why: 'foreground deletion starts: every dependent and the owner',
      setup: [obj(D), obj(RS, [D]), obj(id('ReplicaSet', 'web-2', 'rs2'), [D])],
      change: (g) => g.observe(obj(D, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), obj(D)),
      queued: ['delete/d1', 'delete/rs1', 'delete/rs2'],
    },
    {
      why: 'foreground deletion seen again (another update): nothing new',
      setup: [obj(D, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), obj(RS, [D])],
      change: (g) =>
        g.observe(
          obj(D, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion', 'x'] }),
          obj(D, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }),
        ),
      queued: [],
    },
    {
      why: 'orphan deletion starts: the owner goes to the orphan queue',
      setup: [obj(D), obj(RS, [D])],
      change: (g) => g.observe(obj(D, [], { deletionTimestamp: 't', finalizers: ['orphan'] }), obj(D)),
      queued: ['orphan/d1'],
    },
    {
      why: 'an owner first seen (startup) already waiting to orphan',
      setup: [],
      change: (g) => g.observe(obj(D, [], { deletionTimestamp: 't', finalizers: ['orphan'] })),
      queued: ['orphan/d1'],
    },
    {
      why: 'a blocking reference removed from a dependent releases a foreground owner',
      setup: [obj(RS, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), obj(P1, [RS])],
      change: (g) => g.observe(obj(P1), obj(P1, [RS])),
      queued: ['delete/rs1'],
    },
    {
      why: 'blockOwnerDeletion turned off releases a foreground owner',
      setup: [obj(RS, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }), obj(P1, [RS])],
      change: (g) => g.observe({ identity: P1, owners: [ref(RS, false)] }, obj(P1, [RS])),
      queued: ['delete/rs1'],
    },
    {
      why: 'a reference to an owner in another namespace: the dependent is checked',
      setup: [obj(RS)],
      change: (g) => g.observe(obj(id('Pod', 'stray', 'p9', 'other'), [RS])),
      queued: ['delete/p9'],
    },
    {
      why: 'a reference to a cluster-scoped owner from any namespace is fine',
      setup: [obj(id('Node', 'n1', 'n1'))],
      change: (g) => g.observe(obj(P1, [id('Node', 'n1', 'n1')])),
      queued: [],
    },
    {
      why: 'a reference with the right uid but the wrong name: the dependent is checked',
      setup: [obj(RS)],
      change: (g) => g.observe(obj(P1, [{ ...RS, name: 'wrong' }])),
      queued: ['delete/p1'],
    },
  ];
  for (const c of cases) {
    const g = newGraph();
    for (const o of c.setup) g.observe(o);
    assert.deepEqual(keys(c.change(g)), c.queued, c.why);
  }
});

test('a deleted owner with dependents is remembered as absent', () => {
  const g = newGraph();
  g.observe(obj(RS));
  g.observe(obj(P1, [RS]));
  g.observeDelete(RS);
  assert.equal(g.absent.has(RS), true);
  assert.equal(g.get('rs1'), undefined);
  assert.equal(g.get('p1')!.owners.length, 1, 'the dependent keeps its reference until a worker removes it');
});

test('virtual delete: an unobserved owner verified absent goes, its dependents are checked', () => {
  const g = newGraph();
  g.observe(obj(P1, [RS]));
  g.observe(obj(P2, [RS]));
  assert.deepEqual(keys(g.virtualDelete(RS)), ['delete/p1', 'delete/p2']);
  assert.equal(g.get('rs1'), undefined);
  assert.equal(g.absent.has(RS), true);
});

test('virtual delete: dependents that name the uid otherwise keep the node under their coordinates', () => {
  const g = newGraph();
  const other = { ...RS, name: 'alias' };
  g.observe(obj(P1, [RS]));
  g.observe(obj(P2, [other]));
  assert.deepEqual(keys(g.virtualDelete(RS)), ['delete/p1', 'delete/rs1~']);
  assert.equal(g.get('rs1')!.identity.name, 'alias');
  // Every name the uid goes by is now verified absent: the node goes, and all its dependents are checked.
  assert.deepEqual(keys(g.virtualDelete(other)), ['delete/p1', 'delete/p2']);
  assert.equal(g.get('rs1'), undefined);
});

test('virtual delete of other coordinates never removes an observed node', () => {
  const g = newGraph();
  g.observe(obj(RS));
  g.observe(obj(P1, [{ ...RS, name: 'alias' }]));
  assert.deepEqual(keys(g.virtualDelete({ ...RS, name: 'alias' })), ['delete/p1']);
  assert.ok(g.get('rs1'));
});

test('an observed object takes over a virtual node and keeps its dependents', () => {
  const g = newGraph();
  g.observe(obj(P1, [RS]));
  g.observe(obj(RS, [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }));
  const n = g.get('rs1')!;
  assert.equal(n.observed, true);
  assert.equal(n.deletingDependents, true);
  assert.equal(n.dependents.size, 1);
});

test('helpers', () => {
  assert.equal(startsWaiting(undefined, obj(D, [], { deletionTimestamp: 't', finalizers: ['orphan'] }), 'orphan'), true);
  assert.equal(
    startsWaiting(
      obj(D, [], { deletionTimestamp: 't', finalizers: ['orphan'] }),
      obj(D, [], { deletionTimestamp: 't', finalizers: ['orphan'] }),
      'orphan',
    ),
    false,
  );
  assert.equal(startsWaiting(undefined, obj(D, [], { finalizers: ['orphan'] }), 'orphan'), false, 'not deleted yet');

  const a = ref(RS);
  const b = ref(D);
  const diff = referencesDiffs([a, b], [{ ...a, blockOwnerDeletion: false }, ref(P1)]);
  assert.deepEqual(
    diff.added.map((r) => r.uid),
    ['p1'],
  );
  assert.deepEqual(
    diff.removed.map((r) => r.uid),
    ['d1'],
  );
  assert.deepEqual(
    diff.changed.map((c) => c.cur.uid),
    ['rs1'],
  );

  const g = newGraph();
  g.observe(obj(P1, [RS]));
  g.observe(obj(id('Pod', 'x', 'px', 'elsewhere'), [RS]));
  const { matching, nonmatching } = partitionDependents(g.get('rs1')!.dependents, RS);
  assert.deepEqual(
    matching.map((n) => n.identity.uid),
    ['p1'],
  );
  assert.deepEqual(
    nonmatching.map((n) => n.identity.uid),
    ['px'],
  );

  const cache = new ReferenceCache(2);
  cache.add(D);
  cache.add(RS);
  cache.has(D);
  cache.add(P1);
  assert.deepEqual([cache.has(D), cache.has(RS), cache.has(P1)], [true, false, true], 'least recently used goes first');
});
