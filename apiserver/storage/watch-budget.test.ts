// The memory bounds of watchers: the budget over all of them (furthest
// behind dropped first, stale figures refreshed before anyone is dropped),
// an outbox's use of it, and a peer that stops reading dropped after a stall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeEvent } from './types.ts';
import { defaultTotalBudget, WatchBudget, type Budgeted } from './watch-budget.ts';
import { STALL_MS, WatchOutbox, type OutboxSink } from './watch-outbox.ts';

function member(name: string, bytes: number, dropped: string[]): Budgeted & { bytes: number } {
  const m = {
    bytes,
    queuedBytes: () => m.bytes,
    drop: () => dropped.push(name),
  };
  return m;
}

test('the default total is an eighth of the heap limit, between 64 MiB and 512 MiB', () => {
  const total = defaultTotalBudget();
  assert.ok(total >= 64 * 2 ** 20 && total <= 512 * 2 ** 20, String(total));
});

test('over the budget, the watchers furthest behind are dropped until the total is back under 90% of it', () => {
  let now = 0;
  const budget = new WatchBudget(1000, () => now);
  const dropped: string[] = [];
  const a = member('a', 400, dropped);
  const b = member('b', 300, dropped);
  const c = member('c', 200, dropped);
  const d = member('d', 50, dropped);
  for (const m of [a, b, c, d]) budget.update(m, m.bytes);
  assert.equal(budget.total, 950);
  assert.deepEqual(dropped, []);
  now += 10;
  c.bytes = 500;
  budget.update(c, c.bytes);
  // 1250 > 1000: c (500) goes first, leaving 750 <= 900.
  assert.deepEqual(dropped, ['c']);
  assert.equal(budget.total, 750);
  assert.equal(budget.size, 3);
  assert.equal(budget.drops, 1);
  budget.remove(a);
  assert.equal(budget.total, 350);
});

test('figures reported before a socket drained are refreshed before anyone is dropped', () => {
  let now = 0;
  const budget = new WatchBudget(1000, () => now);
  const dropped: string[] = [];
  const a = member('a', 900, dropped);
  const b = member('b', 50, dropped);
  budget.update(a, a.bytes);
  budget.update(b, b.bytes);
  a.bytes = 0; // drained, without telling the budget
  now += 10;
  b.bytes = 200;
  budget.update(b, b.bytes);
  assert.deepEqual(dropped, []);
  assert.equal(budget.total, 200);
});

test('a recount walks every watcher at most once per 5 ms', () => {
  let now = 0;
  const budget = new WatchBudget(100, () => now);
  const dropped: string[] = [];
  let counted = 0;
  const a = { queuedBytes: () => (counted++, 150), drop: () => dropped.push('a') };
  budget.update(a, 150);
  assert.equal(counted, 1);
  assert.deepEqual(dropped, ['a']);
  const b = { queuedBytes: () => (counted++, 150), drop: () => dropped.push('b') };
  now += 1;
  budget.update(b, 150);
  // Too soon after the last recount: b waits for the next report.
  assert.equal(counted, 1);
  now += 5;
  budget.update(b, 150);
  assert.deepEqual(dropped, ['a', 'b']);
});

const B = '/registry/core/configmaps';
const ev = (rev: number, bytes = 100): ChangeEvent => ({
  rev,
  type: 'MODIFIED',
  key: `${B}/ns/cm`,
  json: JSON.stringify({ metadata: { name: 'cm', resourceVersion: String(rev) }, data: { x: 'x'.repeat(bytes) } }),
  prevRev: rev - 1,
});

/** A sink whose backlog the test sets. */
function sink(backlog: { bytes: number }): OutboxSink {
  return { send: () => {}, sendChunk: () => {}, backlog: () => backlog.bytes };
}

test('an outbox reports what it has queued, is dropped with reason "total" when furthest behind, and leaves the budget when closed', () => {
  let now = 0;
  const budget = new WatchBudget(10_000, () => now);
  const reasons: string[] = [];
  const mk = (backlog: { bytes: number }, name: string) => {
    const o: WatchOutbox = new WatchOutbox(sink(backlog), {
      budget,
      maxBacklogBytes: 1e9,
      onOverflow: (_bytes, reason) => {
        reasons.push(`${name}:${reason}`);
        o.close();
      },
    });
    return o;
  };
  const slowBacklog = { bytes: 0 };
  const slow = mk(slowBacklog, 'slow');
  const fast = mk({ bytes: 0 }, 'fast');
  slow.pushLive([ev(1)]);
  fast.pushLive([ev(1)]);
  assert.equal(budget.size, 2);
  now += 10;
  slowBacklog.bytes = 9_900;
  slow.pushLive([ev(2)]);
  assert.deepEqual(reasons, ['slow:total']);
  assert.equal(budget.size, 1);
  fast.close();
  assert.equal(budget.size, 0);
  assert.equal(budget.total, 0);
});

test('a peer that leaves more than 1 MiB unread for STALL_MS while events come is dropped as stalled; one that reads is not', () => {
  let now = 0;
  const budget = new WatchBudget(2 ** 40, () => now);
  const reasons: string[] = [];
  const mk = (backlog: { bytes: number }, name: string) => {
    const o: WatchOutbox = new WatchOutbox(sink(backlog), {
      budget,
      now: () => now,
      maxBacklogBytes: 1e12,
      onOverflow: (_bytes, reason) => {
        reasons.push(`${name}:${reason}`);
        o.close();
      },
    });
    return o;
  };
  const stuck = { bytes: 2 * 2 ** 20 };
  const reading = { bytes: 2 * 2 ** 20 };
  const a = mk(stuck, 'stuck');
  const b = mk(reading, 'reading');
  for (let rev = 1; now <= STALL_MS * 2; rev++, now += 1000) {
    a.pushLive([ev(rev)]);
    b.pushLive([ev(rev)]);
    // The reading peer takes a little every second, however far behind it is.
    reading.bytes -= 1000;
  }
  assert.deepEqual(reasons, ['stuck:stalled']);
});
