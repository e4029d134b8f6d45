// The memory bounds of watchers: the budget over all of them (furthest
// behind dropped first, stale figures refreshed before anyone is dropped),
// an outbox's use of it, and a peer that stops reading dropped after a stall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeEvent } from './types.ts';
import { defaultTotalBudget, WatchBudget } from './watch-budget.ts';
import { STALL_MS, WatchOutbox, type OutboxSink } from './watch-outbox.ts';

/** A watcher that holds `own` bytes of its own; refresh() lets go of what `drained` says its socket wrote. */
function member(budget: WatchBudget, name: string, own: number, dropped: string[]) {
  const m = {
    own,
    drained: 0,
    queuedBytes: () => m.own,
    refresh: () => {
      budget.release(undefined, m.drained);
      m.own -= m.drained;
      m.drained = 0;
    },
    drop: () => {
      dropped.push(name);
      budget.release(undefined, m.own);
      m.own = 0;
      budget.leave(m);
    },
    add(bytes: number) {
      m.own += bytes;
      budget.hold(undefined, bytes);
      budget.check();
    },
  };
  budget.join(m);
  budget.hold(undefined, own);
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
  const [a, , c] = [
    member(budget, 'a', 400, dropped),
    member(budget, 'b', 300, dropped),
    member(budget, 'c', 200, dropped),
    member(budget, 'd', 50, dropped),
  ];
  assert.equal(budget.total, 950);
  budget.check();
  assert.deepEqual(dropped, []);
  now += 10;
  c.add(300);
  // 1250 > 1000: c (500) goes first, leaving 750 <= 900.
  assert.deepEqual(dropped, ['c']);
  assert.equal(budget.total, 750);
  assert.equal(budget.size, 3);
  assert.equal(budget.drops, 1);
  a.drop();
  assert.equal(budget.total, 350);
});

test('a buffer many watchers hold is counted once, until the last one lets go of it', () => {
  const budget = new WatchBudget(1000);
  const shared = Buffer.alloc(600);
  for (let i = 0; i < 100; i++) budget.hold(shared, shared.length);
  budget.hold(undefined, 100);
  assert.equal(budget.total, 700);
  for (let i = 0; i < 99; i++) budget.release(shared, shared.length);
  assert.equal(budget.total, 700);
  budget.release(shared, shared.length);
  assert.equal(budget.total, 100);
});

test('what sockets wrote since they were last looked at is let go before anyone is dropped', () => {
  let now = 0;
  const budget = new WatchBudget(1000, () => now);
  const dropped: string[] = [];
  const a = member(budget, 'a', 900, dropped);
  const b = member(budget, 'b', 50, dropped);
  a.drained = 900; // written, without telling the budget
  now += 10;
  b.add(150);
  assert.deepEqual(dropped, []);
  assert.equal(budget.total, 200);
});

test('a recount walks every watcher at most once per 5 ms', () => {
  let now = 0;
  const budget = new WatchBudget(100, () => now);
  const dropped: string[] = [];
  const a = member(budget, 'a', 0, dropped);
  let refreshed = 0;
  const refresh = a.refresh;
  a.refresh = () => (refreshed++, refresh());
  a.add(150);
  assert.equal(refreshed, 1);
  assert.deepEqual(dropped, ['a']);
  const b = member(budget, 'b', 0, dropped);
  now += 1;
  b.add(150);
  // Too soon after the last recount: b waits for the next check.
  assert.deepEqual(dropped, ['a']);
  now += 5;
  b.add(1);
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

test('an outbox counts its live batches and what its socket holds, lets go as the socket drains, and is dropped with reason "total" when furthest behind', async () => {
  let now = 0;
  const budget = new WatchBudget(20_000, () => now);
  const reasons: string[] = [];
  const mk = (backlog: { bytes: number }, name: string) => {
    const s: OutboxSink = {
      send: () => {},
      sendChunk: (chunk) => void (backlog.bytes += chunk.length),
      backlog: () => backlog.bytes,
    };
    const o: WatchOutbox = new WatchOutbox(s, {
      budget,
      maxBacklogBytes: 1e9,
      stallMs: Infinity,
      onOverflow: (_bytes, reason) => {
        reasons.push(`${name}:${reason}`);
        o.close();
      },
    });
    return o;
  };
  const slowSocket = { bytes: 0 };
  const fastSocket = { bytes: 0 };
  const slow = mk(slowSocket, 'slow');
  const fast = mk(fastSocket, 'fast');
  assert.equal(budget.size, 2);
  const batch = [ev(1, 1000)];
  slow.pushLive(batch);
  fast.pushLive(batch);
  // Nothing was queued before it: it goes out within the pacing window, uncounted until then.
  assert.equal(budget.total, 0);
  await new Promise((r) => setTimeout(r, 10));
  // Both wrote it: the same buffer, held by both sockets, counted once.
  assert.ok(fastSocket.bytes > 1000);
  assert.equal(budget.total, fastSocket.bytes);
  fastSocket.bytes = 0;
  now += 10;
  assert.equal(budget.recount(), slowSocket.bytes);
  // Behind a socket that does not drain, live batches queue and count.
  for (let rev = 2; reasons.length === 0 && rev < 100; rev++) {
    now += 10;
    slow.pushLive([ev(rev, 1000)]);
    if (rev % 4 === 0) await new Promise((r) => setTimeout(r, 6));
  }
  assert.deepEqual(reasons, ['slow:total']);
  assert.equal(budget.size, 1);
  assert.equal(budget.total, 0);
  fast.close();
  assert.equal(budget.size, 0);
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
