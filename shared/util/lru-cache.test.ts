import test from 'node:test';
import assert from 'node:assert/strict';
import { LruCache } from './lru-cache.ts';

test('LruCache keeps what was used recently and forgets the rest past its capacity', () => {
  const cache = new LruCache<number>(10);
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, i);
  // Touch the five oldest: the five after them are now the least recently used.
  for (let i = 0; i < 5; i++) assert.equal(cache.get(`k${i}`), i);
  cache.set('new', 100);
  assert.equal(cache.size, 10);
  assert.equal(cache.get('k5'), undefined, 'the least recently used entry is gone');
  for (let i = 0; i < 5; i++) assert.equal(cache.get(`k${i}`), i, `k${i} was used recently`);
  for (let i = 6; i < 10; i++) assert.equal(cache.get(`k${i}`), i, `only one entry went`);
  assert.equal(cache.get('new'), 100);
});

test('LruCache updates a value in place and computes a miss once', () => {
  const cache = new LruCache<string>(3);
  cache.set('a', 'x');
  cache.set('a', 'y');
  assert.equal(cache.size, 1);
  assert.equal(cache.get('a'), 'y');
  let computed = 0;
  const compute = () => {
    computed++;
    return 'z';
  };
  assert.equal(cache.getOrCompute('b', compute), 'z');
  assert.equal(cache.getOrCompute('b', compute), 'z');
  assert.equal(computed, 1);
});

test('LruCache never holds more than its capacity', () => {
  const cache = new LruCache<number>(100);
  for (let i = 0; i < 10_000; i++) {
    cache.set(`k${i}`, i);
    assert.ok(cache.size <= 100);
  }
  assert.equal(cache.get('k9999'), 9999);
  assert.equal(cache.get('k9900'), 9900);
  assert.equal(cache.get('k9899'), undefined);
});
