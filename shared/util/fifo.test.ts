import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from './fifo.ts';

test('Fifo keeps first-in first-out order across its compactions', () => {
  const q = new Fifo<string>();
  assert.equal(q.shift(), undefined);
  const seen: string[] = [];
  // One read per three writes: the head moves past 1024 many times while items remain.
  for (let i = 0; i < 3000; i++) {
    q.push(`k${i}`);
    if (i % 3 === 0) seen.push(q.shift()!);
  }
  assert.equal(q.length, 2000);
  for (let s; (s = q.shift()) !== undefined;) seen.push(s);
  assert.deepEqual(
    seen,
    Array.from({ length: 3000 }, (_, i) => `k${i}`),
  );
  assert.equal(q.length, 0);
});

test('Fifo.drain returns what is queued, oldest first, and empties the queue', () => {
  const q = new Fifo<number>();
  for (let i = 0; i < 2000; i++) q.push(i);
  for (let i = 0; i < 1500; i++) q.shift();
  assert.deepEqual(
    q.drain(),
    Array.from({ length: 500 }, (_, i) => 1500 + i),
  );
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
});
