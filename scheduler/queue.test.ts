// The scheduling queue: priority order, backoff 1 s doubling to 10 s (by
// --speed), parking in unschedulablePods, requeue only on events the
// rejecting plugins registered for, missed-event handling, gates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../shared/clock/clock.ts';
import type { ClusterEvent } from './framework/types.ts';
import { SchedulingQueue } from './queue.ts';
import { makePod } from './testing/fixtures.ts';

const interest: Partial<Record<ClusterEvent, string[]>> = {
  NodeAdd: ['NodeResourcesFit', 'NodeAffinity'],
  NodeLabel: ['NodeAffinity'],
  AssignedPodDelete: ['NodeResourcesFit'],
};
const newQueue = (speed = 1) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue({ clock, speed, priorityOf: (p) => p.spec?.priority ?? 0, pluginsFor: (e) => new Set(interest[e] ?? []) });
  q.run();
  return { q, clock };
};

test('pops by priority, then arrival', async () => {
  const { q, clock } = newQueue();
  q.add(makePod('low'));
  await clock.step(1);
  q.add(makePod('high', { priority: 100 }));
  q.add(makePod('low2'));
  const order = [];
  for (let i = 0; i < 3; i++) order.push((await q.pop())!.key);
  assert.deepEqual(order, ['default/high', 'default/low', 'default/low2']);
});

const backoffTable: [number, number, number][] = [
  [1, 1, 1000],
  [2, 1, 2000],
  [3, 1, 4000],
  [5, 1, 10_000],
  [9, 1, 10_000],
  [3, 10, 400],
];
for (const [attempts, speed, want] of backoffTable) {
  test(`backoff after ${attempts} attempts at speed ${speed} is ${want} ms`, () =>
    assert.equal(newQueue(speed).q.backoffDuration(attempts), want));
}

const eventTable: { name: string; plugins: string[]; event: ClusterEvent; moves: boolean }[] = [
  { name: 'a node label change helps a NodeAffinity misfit', plugins: ['NodeAffinity'], event: 'NodeLabel', moves: true },
  { name: 'a node label change does not help a resource misfit', plugins: ['NodeResourcesFit'], event: 'NodeLabel', moves: false },
  { name: 'a pod deletion helps a resource misfit', plugins: ['NodeResourcesFit'], event: 'AssignedPodDelete', moves: true },
  { name: 'unknown cause: any event', plugins: [], event: 'NodeLabel', moves: true },
];
for (const c of eventTable) {
  test(`requeue on events: ${c.name}`, async () => {
    const { q, clock } = newQueue();
    q.add(makePod('p'));
    const qp = (await q.pop())!;
    q.requeueAfterFailure(qp, new Set(c.plugins));
    assert.equal(q.where('default/p'), 'unschedulable');
    q.moveAllToActiveOrBackoff(c.event);
    assert.equal(q.where('default/p'), c.moves ? 'backoff' : 'unschedulable');
    if (c.moves) {
      await clock.step(1000);
      assert.equal(q.where('default/p'), 'active');
    }
  });
}

test('an event during the attempt sends the Pod to backoff, not to unschedulable', async () => {
  const { q } = newQueue();
  q.add(makePod('p'));
  const qp = (await q.pop())!;
  q.moveAllToActiveOrBackoff('NodeLabel');
  q.requeueAfterFailure(qp, new Set(['NodeResourcesFit']));
  assert.equal(q.where('default/p'), 'backoff');
});

test('an update of a parked Pod moves it; a status-only update does not', async () => {
  const { q } = newQueue();
  const pod = makePod('p');
  q.add(pod);
  q.requeueAfterFailure((await q.pop())!, new Set(['NodeAffinity']));
  q.update({ ...pod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } });
  assert.equal(q.where('default/p'), 'unschedulable');
  q.update({ ...pod, metadata: { ...pod.metadata, labels: { x: 'y' } } });
  assert.equal(q.where('default/p'), 'backoff');
});

test('Pods parked for five minutes are retried anyway; gated Pods wait for their gates', async () => {
  const { q, clock } = newQueue();
  q.add(makePod('p'));
  q.requeueAfterFailure((await q.pop())!, new Set(['NodeAffinity']));
  await clock.step(331_000);
  assert.equal(q.where('default/p'), 'active');
  const gated = makePod('g');
  gated.spec.schedulingGates = [{ name: 'wait' }];
  q.add(gated);
  assert.equal(q.where('default/g'), 'gated');
  q.update({ ...gated, spec: { ...gated.spec, schedulingGates: [] } });
  assert.equal(q.where('default/g'), 'active');
  q.close();
});
