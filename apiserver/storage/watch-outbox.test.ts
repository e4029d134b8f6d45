import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { eventLine, nextReplayBlock } from './watch-encoding.ts';
import { WatchHub, type WatchEvent, type Watcher } from './watch-hub.ts';
import { WatchOutbox, type OutboxSink } from './watch-outbox.ts';
import { LIVE_WINDOW_MS } from './watch-pacing.ts';
import type { ChangeEvent, ObjectMatcher } from './types.ts';

const B = '/registry/core/configmaps';
const ev = (rev: number, ns = 'a', type: ChangeEvent['type'] = 'ADDED', labels: Record<string, string> = {}): ChangeEvent => ({
  rev,
  type,
  key: `${B}/${ns}/cm-${rev}`,
  json: JSON.stringify({ metadata: { name: `cm-${rev}`, namespace: ns, resourceVersion: String(rev), labels } }),
  prevRev: 0,
});
const ndjson = (events: readonly WatchEvent[]) => events.map((e) => eventLine(e.type, e.json) + '\n').join('');
const revsOf = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(JSON.parse(l).object.metadata.resourceVersion));

/** A transport that records what it was given; `chunked` says whether it takes shared NDJSON chunks. */
function recorder(chunked: boolean) {
  const chunks: Buffer[] = [];
  let text = '';
  const sink: OutboxSink = {
    send(lines) {
      text += lines.map((l) => l + '\n').join('');
    },
    backlog: () => 0,
  };
  if (chunked) {
    sink.sendChunk = (chunk) => {
      chunks.push(chunk);
      text += chunk.toString();
    };
  }
  return { sink, chunks, text: () => text };
}

/** Waits out the pacing window, so that the next live batch is written at once. */
const quiet = () => new Promise((r) => setTimeout(r, LIVE_WINDOW_MS + 1));

async function drained(outbox: WatchOutbox): Promise<void> {
  while (!outbox.idle) await nextTurn();
}

test('replay blocks a whole range covers are encoded once and shared between watchers', () => {
  const events = Array.from({ length: 300 }, (_, i) => ev(1001 + i));
  const blocksOf = (afterRev: number) => {
    const replay = { events: events.filter((e) => e.rev > afterRev), afterRev, throughRev: 1300 };
    const out: Buffer[] = [];
    for (let pos = 0; pos < replay.events.length;) {
      const block = nextReplayBlock('range', replay, pos);
      out.push(block.chunk);
      pos = block.to;
    }
    assert.equal(Buffer.concat(out).toString(), ndjson(replay.events));
    return out;
  };
  const a = blocksOf(1000);
  const b = blocksOf(1003);
  // Past the first small blocks, both replays cover the same aligned blocks: the very same buffers.
  const shared = a.filter((chunk) => b.includes(chunk));
  assert.ok(shared.length >= 4, `only ${shared.length} blocks shared`);
  assert.ok(shared.reduce((n, c) => n + c.length, 0) > Buffer.concat(a).length * 0.9);
});

test('a replay goes out in blocks over several turns, and live batches queue behind it in order', async () => {
  const { sink, chunks, text } = recorder(true);
  const outbox = new WatchOutbox(sink, { rangeKey: 'r', maxBacklogBytes: 1e9, onOverflow: () => assert.fail('overflow') });
  const replay = Array.from({ length: 500 }, (_, i) => ev(i + 1));
  outbox.pushReplay(replay, 0, 500);
  outbox.pushLive([ev(501), ev(502)]);
  outbox.pushLines([eventLine('BOOKMARK', '{"metadata":{"resourceVersion":"502"}}')]);
  outbox.pushLive([ev(503)]);
  // Nothing is written synchronously: the request that registered the watcher returns at once.
  assert.equal(text(), '');
  await nextTurn();
  assert.ok(chunks.length >= 1 && chunks.length < 10, `${chunks.length} writes in the first turn`);
  await drained(outbox);
  const lines = text().split('\n').filter(Boolean);
  assert.equal(JSON.parse(lines[502]).type, 'BOOKMARK');
  lines.splice(502, 1);
  assert.deepEqual(
    revsOf(lines.join('\n')),
    Array.from({ length: 503 }, (_, i) => i + 1),
  );
});

test('a live batch with nothing queued is written at the end of the event-loop turn, in one write', async () => {
  const { sink, chunks } = recorder(true);
  await quiet();
  const outbox = new WatchOutbox(sink, { rangeKey: 'r', maxBacklogBytes: 1e9, onOverflow: () => {} });
  const batch = [ev(1), ev(2), ev(3)];
  outbox.pushLive(batch);
  await Promise.resolve();
  assert.equal(chunks.length, 0, "the commit's own responses (microtasks of this turn) go out first");
  await new Promise((r) => setImmediate(r));
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].toString(), ndjson(batch));
  assert.ok(outbox.idle);
});

test('live batches committed within the pacing window go out together, in one corked write', async () => {
  const { sink, chunks, text } = recorder(true);
  const writes: number[] = [];
  let corked = false;
  sink.cork = () => (corked = true);
  sink.uncork = () => {
    corked = false;
    writes.push(chunks.length);
  };
  const outbox = new WatchOutbox(sink, { rangeKey: 'r', maxBacklogBytes: 1e9, onOverflow: () => {} });
  await quiet();
  outbox.pushLive([ev(1)]);
  await new Promise((r) => setImmediate(r));
  assert.equal(chunks.length, 1, 'the first commit after a quiet moment goes out at the end of its turn');
  await Promise.resolve();
  outbox.pushLive([ev(2)]);
  await Promise.resolve();
  outbox.pushLive([ev(3), ev(4)]);
  assert.equal(chunks.length, 1, 'later commits wait for the window to end');
  assert.ok(!outbox.idle);
  await new Promise((r) => setTimeout(r, LIVE_WINDOW_MS + 5));
  assert.ok(outbox.idle);
  assert.equal(corked, false);
  assert.deepEqual(writes, [1, 3], 'the first batch in one write, then both held batches between one cork and uncork');
  assert.deepEqual(revsOf(text()), [1, 2, 3, 4]);
});

test('without a shared encoding (a rendered view or a WebSocket) events go out as rendered lines', async () => {
  const { sink, text } = recorder(false);
  const outbox = new WatchOutbox(sink, {
    render: (json) => JSON.stringify({ rendered: JSON.parse(json).metadata.name }),
    maxBacklogBytes: 1e9,
    onOverflow: () => {},
  });
  outbox.pushInitial(Array.from({ length: 100 }, (_, i) => ev(i + 1).json));
  outbox.pushLive([ev(101)]);
  await drained(outbox);
  const lines = text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 101);
  assert.deepEqual(lines[0], { type: 'ADDED', object: { rendered: 'cm-1' } });
  assert.deepEqual(lines[100], { type: 'ADDED', object: { rendered: 'cm-101' } });
});

test('a watcher whose live events pile up past the limit is reported, and nothing more is written after close', async () => {
  const { sink, text } = recorder(true);
  let overflow = 0;
  const outbox = new WatchOutbox(sink, { rangeKey: 'r', maxBacklogBytes: 10_000, onOverflow: () => (overflow++, outbox.close()) });
  outbox.pushReplay(
    Array.from({ length: 100 }, (_, i) => ev(i + 1)),
    0,
    100,
  );
  for (let rev = 101; overflow === 0 && rev < 1000; rev++) outbox.pushLive([ev(rev)]);
  assert.equal(overflow, 1);
  await nextTurn();
  await nextTurn();
  assert.equal(text(), '');
});

test('the hub hands one list to every plain watcher of a range, and selected watchers their own', () => {
  const hub = new WatchHub();
  const got = new Map<string, WatchEvent[][]>();
  const watcher = (id: string, keyPrefix: string, matches?: ObjectMatcher): Watcher => ({
    bucket: B,
    keyPrefix,
    matches,
    deliver: (events) => got.set(id, [...(got.get(id) ?? []), events]),
  });
  const all1 = watcher('all1', `${B}/`);
  const all2 = watcher('all2', `${B}/`);
  const nsB = watcher('nsB', `${B}/b/`);
  const web = watcher('web', `${B}/`, (o) => o.metadata.labels?.app === 'web');
  for (const w of [all1, all2, nsB, web]) hub.add(w);
  assert.equal(hub.size, 4);
  const moved: ChangeEvent = {
    ...ev(3, 'a', 'MODIFIED', { app: 'db' }),
    key: `${B}/a/cm-1`,
    prev: ev(1, 'a', 'ADDED', { app: 'web' }).json,
    prevRev: 1,
  };
  hub.dispatch([ev(1, 'a', 'ADDED', { app: 'web' }), ev(2, 'b'), moved]);
  assert.equal(got.get('all1')![0], got.get('all2')![0], 'the same array for the same range');
  assert.deepEqual(
    got.get('all1')![0].map((e) => e.rev),
    [1, 2, 3],
  );
  assert.deepEqual(
    got.get('nsB')![0].map((e) => e.rev),
    [2],
  );
  assert.deepEqual(
    got.get('web')![0].map((e) => `${e.type}:${e.rev}`),
    ['ADDED:1', 'DELETED:3'],
  );
  hub.remove(all2);
  hub.remove(web);
  assert.equal(hub.size, 2);
  assert.deepEqual([...hub.all()], [all1, nsB]);
});
