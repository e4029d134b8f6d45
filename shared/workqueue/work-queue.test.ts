import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TRIGGERS } from '../api/write-cause.ts';
import { dispatching } from '../causality/event-context.ts';
import { FakeClock } from '../clock/clock.ts';
import { ItemExponentialLimiter } from './rate-limiters.ts';
import { WorkQueue } from './work-queue.ts';

test('a key waiting in the queue is held once', async () => {
  const q = new WorkQueue();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
});

test('a key is never handed to two workers; an add while processing comes back after done', async () => {
  const q = new WorkQueue();
  q.add('a');
  const key = await q.get();
  q.add('a');
  assert.equal(q.length, 0, 'not handed out while processing');
  let second: string | undefined;
  void q.get().then((k) => (second = k));
  await new Promise((r) => setImmediate(r));
  assert.equal(second, undefined);
  q.done(key!);
  await new Promise((r) => setImmediate(r));
  assert.equal(second, 'a');
});

test('retries back off exponentially per key: 5 ms doubling to the cap, reset by forget', () => {
  const l = new ItemExponentialLimiter(5, 1000_000);
  const delays = Array.from({ length: 5 }, () => l.when('k'));
  assert.deepEqual(delays, [5, 10, 20, 40, 80]);
  for (let i = 0; i < 40; i++) l.when('k');
  assert.equal(l.when('k'), 1000_000);
  l.forget('k');
  assert.equal(l.when('k'), 5);
  assert.equal(l.retries('k'), 1);
});

test('addAfter and addRateLimited use the injected clock; the earliest delayed add wins', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock, rateLimiter: new ItemExponentialLimiter(100, 10_000) });
  q.addAfter('late', 5000);
  q.addAfter('late', 1000);
  q.addAfter('late', 3000);
  q.addRateLimited('retry');
  q.addRateLimited('retry');
  assert.equal(q.length, 0);
  await clock.step(150);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'retry');
  await clock.step(1000);
  assert.equal(await q.get(), 'late');
  await clock.step(10_000);
  assert.equal(q.length, 0, 'the superseded delayed adds never fire');
});

test('shutdown wakes waiting workers with undefined', async () => {
  const q = new WorkQueue();
  const pending = q.get();
  q.shutdown();
  assert.equal(await pending, undefined);
  q.add('x');
  assert.equal(q.length, 0);
});

test('a waiting key remembers the events that queued it: each once, the newest MAX_TRIGGERS', async () => {
  const q = new WorkQueue();
  dispatching('10', () => q.add('a'));
  dispatching('11', () => q.add('a'));
  dispatching('10', () => q.add('a'));
  q.add('a'); // not from a handler: no trigger
  dispatching('20', () => q.add('b'));
  assert.equal(await q.get(), 'a');
  assert.deepEqual(q.triggersOf('a'), ['10', '11']);
  assert.equal(await q.get(), 'b');
  assert.deepEqual(q.triggersOf('b'), ['20']);
  q.done('a');
  assert.deepEqual(q.triggersOf('a'), [], 'only while processing');

  for (let rv = 100; rv < 100 + MAX_TRIGGERS + 3; rv++) dispatching(String(rv), () => q.add('c'));
  assert.equal(await q.get(), 'c');
  const kept = Array.from({ length: MAX_TRIGGERS }, (_, i) => String(103 + i));
  assert.deepEqual(q.triggersOf('c'), kept);
});

test("a key re-added while processing keeps its new triggers for its next turn, not this one's", async () => {
  const q = new WorkQueue();
  dispatching('1', () => q.add('a'));
  assert.equal(await q.get(), 'a');
  dispatching('2', () => q.add('a'));
  dispatching('3', () => q.add('a'));
  assert.deepEqual(q.triggersOf('a'), ['1']);
  q.done('a');
  assert.equal(await q.get(), 'a');
  assert.deepEqual(q.triggersOf('a'), ['2', '3']);
  q.done('a');
  q.add('a');
  assert.equal(await q.get(), 'a');
  assert.deepEqual(q.triggersOf('a'), [], 'a turn nothing dispatched has none');
});

test('a key handed straight to a waiting worker takes its trigger along', async () => {
  const q = new WorkQueue();
  const next = q.get();
  dispatching('7', () => q.add('a'));
  assert.equal(await next, 'a');
  assert.deepEqual(q.triggersOf('a'), ['7']);
});

test('a delayed add remembers the event dispatched when it was asked for', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock });
  dispatching('5', () => q.addAfter('a', 1000));
  dispatching('6', () => q.addAfter('a', 2000)); // superseded, but its event still counts
  await clock.step(1000);
  assert.equal(await q.get(), 'a');
  assert.deepEqual(q.triggersOf('a'), ['5', '6']);
});
