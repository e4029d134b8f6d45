import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../../shared/clock/clock.ts';
import { OwnWrites } from './own-writes.ts';
import { TriggerTimeTracker } from './trigger-time.ts';
import { formatRFC3339Nano } from './util.ts';

const obj = (name: string, rv: string, extra: Record<string, unknown> = {}) => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
  ...extra,
});

test('own writes: a write the cache has not shown yet is seen until the informer catches up', () => {
  const clock = new FakeClock();
  const w = new OwnWrites<ReturnType<typeof obj>>(clock);
  const created = obj('s1', '10', { v: 'new' });
  w.wrote('ns/web', created);
  assert.deepEqual(w.view('ns/web', []), [created], 'created, not yet cached');
  assert.equal(w.one('ns/s1', undefined), created);
  const old = obj('s2', '5', { v: 'old' });
  const updated = obj('s2', '11', { v: 'new' });
  w.wrote('ns/web', updated);
  assert.deepEqual(w.view('ns/web', [old]), [updated, created], 'an older cached copy is replaced');
  assert.equal(w.observe(created), true, 'the echo of our own create');
  assert.equal(w.observe(obj('s2', '12')), false, 'a later change by someone else');
  assert.deepEqual(w.view('ns/web', []), [], 'caught up: the cache is authoritative again');

  const gone = obj('s3', '7');
  w.deleted('ns/web', gone);
  assert.deepEqual(w.view('ns/web', [gone]), [], 'deleted, still cached');
  assert.equal(w.observeDelete(gone), true);
  assert.deepEqual(w.view('ns/web', [gone]), [gone]);

  w.wrote('ns/web', obj('s4', '20'));
  clock.now = () => Date.parse('2026-01-01T00:06:00Z');
  assert.deepEqual(w.view('ns/web', []), [], 'entries expire');
});

test('own writes: the deletion of an earlier object of the same name does not hide our create', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>(new FakeClock());
  const mine = obj('web', '30');
  w.wrote('ns/web', mine);
  assert.equal(w.observeDelete(obj('web', '25')), false);
  assert.equal(w.one('ns/web', undefined), mine);
  assert.equal(w.observeDelete(obj('web', '31')), false);
  assert.equal(w.one('ns/web', undefined), undefined);
});

test('trigger time: the Service creation first, then the earliest Ready transition that changed, else none', () => {
  const svc: Service = { metadata: { name: 'web', creationTimestamp: '2026-01-01T00:00:00Z' } };
  const pod = (name: string, t: string): Pod => ({
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t }] },
  });
  const tt = new TriggerTimeTracker();
  const at = (s: string) => Date.parse(s);
  assert.equal(tt.compute('ns/web', svc, [pod('a', '2026-01-01T00:01:00Z')]), at('2026-01-01T00:00:00Z'));
  assert.equal(tt.compute('ns/web', svc, [pod('a', '2026-01-01T00:01:00Z')]), undefined);
  assert.equal(tt.compute('ns/web', svc, [pod('a', '2026-01-01T00:03:00Z'), pod('b', '2026-01-01T00:02:00Z')]), at('2026-01-01T00:02:00Z'));
  tt.delete('ns/web');
  assert.equal(tt.compute('ns/web', svc, []), at('2026-01-01T00:00:00Z'));
  assert.equal(formatRFC3339Nano(at('2026-01-01T00:02:00Z')), '2026-01-01T00:02:00Z');
  assert.equal(formatRFC3339Nano(at('2026-01-01T00:02:00.120Z')), '2026-01-01T00:02:00.12Z');
});
