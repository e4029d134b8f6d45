import { test } from 'node:test';
import assert from 'node:assert/strict';
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
