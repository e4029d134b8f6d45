// Watch faults on a fake transport: delayed events keep their order and
// leave that much later, held ones leave in order when the hold is cleared
// (or the watch ends with 410 when too much waits), drops close open and new
// watches, and an unfaulted watch's sends go straight through.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiserverFaults, checkFaultSpec } from './fault-table.ts';
import { dropWatches, MAX_PENDING_BYTES, openWatchCount, trackWatch, type ChaosWatchTransport } from './watch-faults.ts';

/** A transport that records what reaches it, and when. */
function fakeTransport() {
  const sent: { at: number; what: string }[] = [];
  const closers: (() => void)[] = [];
  let ended = '';
  const end = (how: string) => {
    if (ended) return;
    ended = how;
    for (const cb of closers) cb();
  };
  const t: ChaosWatchTransport = {
    send: (lines) => void sent.push(...lines.map((what) => ({ at: Date.now(), what }))),
    sendChunk: (chunk) => void sent.push({ at: Date.now(), what: chunk.toString() }),
    backlog: () => 0,
    close: () => end('close'),
    abort: () => end('abort'),
    onClose: (cb) => void closers.push(cb),
  };
  return { t, sent, ended: () => ended };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const target = { verb: 'watch', resource: 'pods', user: 'system:kube-scheduler', userAgent: 'kube-scheduler/v1.35' };

afterEach(() => {
  apiserverFaults.clear();
});

test('no fault: sends go straight through, and the watch is forgotten when it closes', () => {
  const f = fakeTransport();
  const before = openWatchCount();
  const w = trackWatch(f.t, target);
  assert.equal(openWatchCount(), before + 1);
  w.send(['a']);
  w.sendChunk!(Buffer.from('b'));
  assert.deepEqual(
    f.sent.map((s) => s.what),
    ['a', 'b'],
  );
  w.close();
  assert.equal(f.ended(), 'close');
  assert.equal(openWatchCount(), before);
});

test('a delay sends every event that much later, in order, the end of the stream last', async () => {
  apiserverFaults.set(checkFaultSpec({ id: 'd', watchDelayMs: 150, match: { user: 'system:kube-scheduler' } }));
  const f = fakeTransport();
  const other = fakeTransport();
  const w = trackWatch(f.t, target);
  const o = trackWatch(other.t, { ...target, user: 'system:kube-controller-manager' });
  const t0 = Date.now();
  w.send(['1']);
  w.sendChunk!(Buffer.from('2'));
  o.send(['not delayed']);
  await sleep(50);
  w.send(['3']);
  w.close();
  assert.equal(f.sent.length, 0);
  assert.equal(other.sent.length, 1);
  await sleep(250);
  assert.deepEqual(
    f.sent.map((s) => s.what),
    ['1', '2', '3'],
  );
  assert.ok(f.sent[0].at - t0 >= 145, `first event after ${f.sent[0].at - t0} ms`);
  assert.ok(f.sent[2].at - t0 >= 195, `third event after ${f.sent[2].at - t0} ms`);
  assert.equal(f.ended(), 'close');
  o.close();
});

test('a hold keeps everything back until it is cleared, then sends it in order', async () => {
  apiserverFaults.set(checkFaultSpec({ id: 'h', watchHold: true }));
  const f = fakeTransport();
  const w = trackWatch(f.t, target);
  w.send(['1']);
  w.sendChunk!(Buffer.from('2'));
  await sleep(30);
  assert.equal(f.sent.length, 0);
  apiserverFaults.clear('h');
  assert.deepEqual(
    f.sent.map((s) => s.what),
    ['1', '2'],
  );
  w.send(['3']);
  assert.equal(f.sent.at(-1)?.what, '3');
  w.close();
});

test('a watch that a hold started on is held too; too much held ends it with 410 Expired', () => {
  apiserverFaults.set(checkFaultSpec({ id: 'h', watchHold: true }));
  const f = fakeTransport();
  const w = trackWatch(f.t, target);
  const big = 'x'.repeat(1024 * 1024);
  for (let i = 0; i * big.length <= MAX_PENDING_BYTES; i++) w.send([big]);
  assert.equal(f.sent.length, 1);
  const error = JSON.parse(f.sent[0].what);
  assert.equal(error.type, 'ERROR');
  assert.deepEqual(error.object, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'The resourceVersion for the provided watch is too old.',
    reason: 'Expired',
    code: 410,
  });
  assert.equal(f.ended(), 'close');
  w.send(['after']);
  assert.equal(f.sent.length, 1);
});

test('watches.drop closes the open watches it names, once; a watchDrop fault closes new ones too', async () => {
  const a = fakeTransport();
  const b = fakeTransport();
  trackWatch(a.t, target);
  trackWatch(b.t, { ...target, resource: 'nodes' });
  assert.equal(dropWatches({ resource: 'nodes' }), 1);
  assert.deepEqual([a.ended(), b.ended()], ['', 'close']);
  const c = fakeTransport();
  trackWatch(c.t, { ...target, resource: 'nodes' });
  await sleep(5);
  assert.equal(c.ended(), '', 'a one-time drop leaves new watches alone');

  apiserverFaults.set(checkFaultSpec({ id: 'x', watchDrop: true, match: { userAgent: 'kube-scheduler' } }));
  assert.deepEqual([a.ended(), c.ended()], ['close', 'close']);
  const d = fakeTransport();
  const e = fakeTransport();
  trackWatch(d.t, target);
  trackWatch(e.t, { ...target, userAgent: 'kubectl/v1.35' });
  await sleep(5);
  assert.deepEqual([d.ended(), e.ended()], ['close', '']);
  apiserverFaults.clear('x');
  const g = fakeTransport();
  trackWatch(g.t, target);
  await sleep(5);
  assert.equal(g.ended(), '');
  assert.equal(dropWatches(), 2);
});

test('an abort drops what waits at once', () => {
  apiserverFaults.set(checkFaultSpec({ id: 'h', watchHold: true }));
  const f = fakeTransport();
  const w = trackWatch(f.t, target);
  w.send(['1']);
  w.abort();
  assert.equal(f.ended(), 'abort');
  apiserverFaults.clear();
  assert.equal(f.sent.length, 0);
});
