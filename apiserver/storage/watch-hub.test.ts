// Sharing between watchers whatever their filters: selector watchers that
// see the same events of a batch as the same types get the very array (and
// so the very encoding) the plain watchers get, transitions are made once
// per event and type, and what a few hundred watchers that never read hold
// is about one copy of each event, not one per watcher.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChangeEvent, ObjectMatcher, StoredObject } from './types.ts';
import { WatchBudget } from './watch-budget.ts';
import { encodedBatch, httpFramed } from './watch-encoding.ts';
import { WatchHub, type WatchEvent, type Watcher } from './watch-hub.ts';
import { WatchOutbox, type OutboxSink } from './watch-outbox.ts';
import { LIVE_WINDOW_MS } from './watch-pacing.ts';

const B = '/registry/core/configmaps';
const obj = (name: string, labels: Record<string, string>, rev: number, filler = '') =>
  JSON.stringify({ metadata: { name, namespace: 'ns', resourceVersion: String(rev), labels }, data: { filler } });
const change = (
  rev: number,
  type: ChangeEvent['type'],
  name: string,
  labels: Record<string, string>,
  prevLabels?: Record<string, string>,
  filler = '',
): ChangeEvent => ({
  rev,
  type,
  key: `${B}/ns/${name}`,
  json: obj(name, labels, rev, filler),
  prevRev: prevLabels ? rev - 1 : 0,
  prev: prevLabels ? obj(name, prevLabels, rev - 1, filler) : undefined,
});

function hubWith(specs: Record<string, { keyPrefix?: string; exactKey?: string; matches?: ObjectMatcher }>) {
  const hub = new WatchHub();
  const got = new Map<string, WatchEvent[]>();
  for (const [id, spec] of Object.entries(specs)) {
    const w: Watcher = {
      bucket: B,
      keyPrefix: spec.keyPrefix ?? `${B}/ns/`,
      exactKey: spec.exactKey,
      matches: spec.matches,
      deliver: (events) => got.set(id, events),
    };
    hub.add(w);
  }
  return { hub, got };
}
const label =
  (k: string, v: string): ObjectMatcher =>
  (o) =>
    o?.metadata?.labels?.[k] === v;

test('selector watchers that see a batch as the plain watchers do get the very same array, and so one encoding', () => {
  const { hub, got } = hubWith({
    plain1: {},
    plain2: {},
    app1: { matches: label('app', 'big') },
    app2: { matches: label('app', 'big') },
    tier: { matches: label('tier', 'web') },
    byName: { exactKey: `${B}/ns/big`, matches: (o) => o.metadata.name === 'big' },
    other: { matches: label('app', 'other') },
  });
  hub.dispatch([change(10, 'MODIFIED', 'big', { app: 'big', tier: 'web' }, { app: 'big', tier: 'web' })]);
  const plain = got.get('plain1')!;
  for (const id of ['plain2', 'app1', 'app2', 'tier', 'byName']) assert.equal(got.get(id), plain, `${id} shares the plain watchers' array`);
  assert.equal(got.has('other'), false);
  assert.equal(encodedBatch(got.get('app1')!), encodedBatch(plain), 'one buffer for all of them');
});

test('transitions are made once per event and type: every watcher that sees ADDED (or DELETED) shares it', () => {
  const { hub, got } = hubWith({
    plain: {},
    web1: { matches: label('tier', 'web') },
    web2: { matches: label('tier', 'web') },
    gold: { matches: label('class', 'gold') },
    app: { matches: label('app', 'x') },
    app2: { matches: label('app', 'x') },
  });
  // Starts matching tier=web and class=gold, stops matching app=x, in one batch with another object's change.
  const moved = change(20, 'MODIFIED', 'm', { tier: 'web', class: 'gold' }, { app: 'x' });
  const other = change(21, 'ADDED', 'n', { app: 'x' });
  hub.dispatch([moved, other]);
  assert.deepEqual(
    got.get('plain')!.map((e) => `${e.type}:${e.rev}`),
    ['MODIFIED:20', 'ADDED:21'],
  );
  assert.deepEqual(
    got.get('web1')!.map((e) => `${e.type}:${e.rev}`),
    ['ADDED:20'],
  );
  assert.equal(got.get('web2'), got.get('web1'));
  // A different selector that sees the same events as the same types: the same array.
  assert.equal(got.get('gold'), got.get('web1'));
  assert.deepEqual(
    got.get('app')!.map((e) => `${e.type}:${e.rev}`),
    ['DELETED:20', 'ADDED:21'],
  );
  assert.equal(got.get('app2'), got.get('app'));
  // As kube's cacher: leaving the selection is the last state that matched, at the event's resourceVersion.
  const left = JSON.parse(got.get('app')![0].json);
  assert.deepEqual([left.metadata.labels, left.metadata.resourceVersion], [{ app: 'x' }, '20']);
  // The second event is the plain watchers' own object: nothing copied.
  assert.equal(got.get('app')![1], other);
});

/** A socket whose peer never reads: it keeps every buffer it is given. */
function stuckSink() {
  const held: Buffer[] = [];
  let bytes = 0;
  const sink: OutboxSink = {
    send(lines) {
      const b = Buffer.from(lines.map((l) => l + '\n').join(''));
      held.push(b);
      bytes += b.length;
    },
    sendChunk(chunk) {
      held.push(chunk);
      bytes += chunk.length;
    },
    backlog: () => bytes,
  };
  return { sink, held, bytes: () => bytes };
}

test('what 300 watchers that never read retain: about one copy of each event in all, whatever their selectors', async (t) => {
  const budget = new WatchBudget(2 ** 40);
  const hub = new WatchHub();
  const sinks: ReturnType<typeof stuckSink>[] = [];
  const outboxes: WatchOutbox[] = [];
  const selectors = [undefined, label('app', 'big'), label('tier', 'web'), (o: StoredObject) => o.metadata.name === 'big'];
  for (let i = 0; i < 300; i++) {
    const s = stuckSink();
    const outbox = new WatchOutbox(s.sink, {
      maxBacklogBytes: 2 ** 40,
      stallMs: Infinity,
      budget,
      onOverflow: () => assert.fail('dropped'),
    });
    sinks.push(s);
    outboxes.push(outbox);
    hub.add({ bucket: B, keyPrefix: `${B}/ns/`, matches: selectors[i % selectors.length], deliver: (events) => outbox.pushLive(events) });
  }
  const filler = 'x'.repeat(100 * 1024);
  const labels = { app: 'big', tier: 'web' };
  const EVENTS = 20;
  for (let rev = 1; rev <= EVENTS; rev++) {
    hub.dispatch([change(rev, rev === 1 ? 'ADDED' : 'MODIFIED', 'big', labels, rev === 1 ? undefined : labels, filler)]);
    await new Promise((r) => setTimeout(r, LIVE_WINDOW_MS + 1));
    await nextTurn();
  }
  const perWatcher = sinks.map((s) => s.bytes());
  const unique = new Set(sinks.flatMap((s) => s.held));
  const uniqueBytes = [...unique].reduce((n, b) => n + b.length, 0);
  const eventBytes = filler.length * EVENTS;
  t.diagnostic(
    `each watcher has ${(perWatcher[0] / 2 ** 20).toFixed(1)} MiB queued; all 300 together hold ${(uniqueBytes / 2 ** 20).toFixed(1)} MiB (${unique.size} buffers)`,
  );
  for (const bytes of perWatcher) assert.ok(bytes >= eventBytes, 'every watcher got every event');
  assert.equal(unique.size, EVENTS, 'one buffer per event, shared by all 300');
  assert.ok(uniqueBytes < eventBytes * 1.05);
  // The budget counts each shared buffer once.
  assert.equal(budget.recount(), uniqueBytes);
  for (const o of outboxes) o.close();
  assert.equal(budget.size, 0);
  assert.equal(budget.total, 0);
});

test("selector watchers' replays share each event's line: two watchers resuming together hold one copy", async () => {
  const budget = new WatchBudget(2 ** 40);
  const filler = 'y'.repeat(10_000);
  const log = Array.from({ length: 40 }, (_, i) => change(i + 1, 'MODIFIED', 'big', { app: 'big' }, { app: 'big' }, filler));
  const sinks = [stuckSink(), stuckSink()];
  const outboxes = sinks.map(
    (s) => new WatchOutbox(s.sink, { maxBacklogBytes: 2 ** 40, stallMs: Infinity, budget, onOverflow: () => assert.fail('dropped') }),
  );
  // As store.watch() replays: each watcher's own list, of the log's own event objects.
  outboxes[0].pushReplay(log.slice(0), 0, 40);
  outboxes[1].pushReplay(log.slice(10), 10, 40);
  while (!outboxes.every((o) => o.idle)) await nextTurn();
  const [a, b] = sinks.map((s) => new Set(s.held));
  assert.equal(a.size, 40);
  assert.equal([...b].filter((buf) => a.has(buf)).length, 30, 'the 30 events both replay are the same buffers');
  assert.equal(Buffer.concat(sinks[1].held).toString().split('\n').filter(Boolean).length, 30);
  const unique = new Set([...a, ...b]);
  assert.equal(
    budget.recount(),
    [...unique].reduce((n, x) => n + x.length, 0),
  );
  for (const o of outboxes) o.close();
});

test("an encoding's HTTP chunk frame is the same bytes, not a copy: a socket holding the frame and the budget holding the encoding keep one", () => {
  const batch = [change(7, 'ADDED', 'x', { app: 'é' }, undefined, 'z'.repeat(5000))];
  const data = encodedBatch(batch);
  const framed = httpFramed(data);
  assert.equal(framed.buffer, data.buffer);
  assert.equal(framed.toString('latin1', 0, framed.indexOf('\r\n')), data.length.toString(16));
  assert.deepEqual(framed.subarray(framed.indexOf('\r\n') + 2, framed.length - 2), data);
  assert.equal(framed.subarray(-2).toString(), '\r\n');
  assert.equal(httpFramed(data), framed, 'framed once for every watcher');
  // An encoding made elsewhere is framed (once) by copying.
  const other = Buffer.from('{"type":"ADDED"}\n');
  assert.equal(httpFramed(other).toString(), `${other.length.toString(16)}\r\n{"type":"ADDED"}\n\r\n`);
});

test('a tally counts, for the events it holds, the watchers each was handed to, selected ones included', () => {
  const { hub } = hubWith({
    plain1: {},
    plain2: {},
    onlyOther: { keyPrefix: `${B}/other/` },
    big: { matches: label('app', 'big') },
    small: { matches: label('app', 'small') },
  });
  const counted = change(20, 'ADDED', 'big', { app: 'big' });
  const skipped = change(21, 'ADDED', 'small', { app: 'small' });
  const tally = new Map([[counted, 0]]);
  hub.dispatch([counted, skipped], tally);
  assert.deepEqual([...tally.values()], [3], 'the two plain watchers and the selector that matches');
  assert.equal(tally.has(skipped), false, 'an event not asked about is not counted');
  // A change that leaves a selector is handed to it (as DELETED) and counts.
  const left = change(22, 'MODIFIED', 'big', { app: 'gone' }, { app: 'big' });
  const again = new Map([[left, 0]]);
  hub.dispatch([left], again);
  assert.equal(again.get(left), 3);
});
