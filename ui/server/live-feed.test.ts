// LiveFeed: starts its backlog about `backlog` writes back, catches up by
// pages and then watches, broadcasts what arrived together once to every
// socket, opens its watch again from the last change when it ends, sends the
// backlog to a socket that connects, and drops a socket that reads too slowly
// without waiting for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { WebSocket } from 'ws';
import type { Change, ChangeList } from '../../shared/api/history-types.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import { LiveFeed } from './live-feed.ts';

const change = (revision: number): Change => ({
  revision: String(revision),
  type: 'MODIFIED',
  time: new Date(1_700_000_000_000 + revision).toISOString(),
  object: { group: '', resource: 'pods', namespace: 'default', name: `p${revision}` },
});

interface FakeWatch {
  from: number;
  onEvent: (ev: { type: string; object: Change }) => void;
  end: () => void;
}

/** A client whose `changes` answers pages from `log`, and whose watches get what is pushed (after their `from`). */
function fakeClient(newest: number) {
  const log: Change[] = [];
  const queries: Record<string, unknown>[] = [];
  const watches = new Set<FakeWatch>();
  const client = {
    request(_method: string, _path: string, opts: { query: Record<string, unknown> }): Promise<ChangeList> {
      queries.push(opts.query);
      if (opts.query.from === '0') return Promise.reject(new Error('from: must be a positive resourceVersion'));
      const from = Number(opts.query.from ?? 0);
      const items = log.filter((c) => Number(c.revision) > from).slice(0, Number(opts.query.limit ?? 500));
      return Promise.resolve({
        kind: 'ChangeList',
        apiVersion: 'history.ksim.io/v1alpha1',
        metadata: { resourceVersion: String(newest) },
        items,
      } satisfies ChangeList);
    },
    watchPath(_path: string, query: Record<string, unknown>, onEvent: FakeWatch['onEvent']) {
      queries.push({ ...query, watch: true });
      let end!: () => void;
      const done = new Promise<void>((resolve) => (end = resolve));
      const w: FakeWatch = { from: Number(query.from ?? 0), onEvent, end: () => (watches.delete(w), end()) };
      for (const c of log) if (Number(c.revision) > w.from) onEvent({ type: 'ADDED', object: c });
      watches.add(w);
      return { done, stop: w.end };
    },
  };
  return {
    client: client as unknown as KubeClient,
    queries,
    watches,
    push(...cs: Change[]) {
      log.push(...cs);
      for (const w of watches) for (const c of cs) w.onEvent({ type: 'ADDED', object: c });
    },
  };
}

/** A socket that records what it is sent; `bufferedAmount` is what a slow reader has not taken yet. */
function fakeSocket(bufferedAmount = 0) {
  const sent: string[] = [];
  const ws = {
    readyState: WebSocket.OPEN,
    bufferedAmount,
    terminated: false,
    send: (s: string) => sent.push(s),
    terminate() {
      this.terminated = true;
    },
    on: () => {},
  };
  return { ws, sent, socket: ws as unknown as WebSocket };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), 'timed out');
};

test('the backlog starts `backlog` revisions back, and what arrives together is broadcast once to every socket', async () => {
  const api = fakeClient(1000);
  const feed = new LiveFeed({ client: api.client, log: pino({ level: 'silent' }), backlog: 10, pageSize: 5 });
  feed.start();
  try {
    api.push(...Array.from({ length: 12 }, (_, i) => change(989 + i)));
    await until(() => feed.backlog().length === 10);
    assert.equal(api.queries[1].from, '990');
    assert.deepEqual(
      feed.backlog().map((c) => c.revision),
      Array.from({ length: 10 }, (_, i) => String(991 + i)),
    );

    const a = fakeSocket();
    feed.attach(a.socket);
    assert.equal(a.sent.length, 1);
    assert.equal((JSON.parse(a.sent[0]) as { type: string; items: Change[] }).items.length, 10);

    await until(() => api.watches.size === 1);
    api.push(change(1001), change(1002));
    await until(() => a.sent.length === 2);
    assert.deepEqual(JSON.parse(a.sent[1]), { type: 'changes', items: [change(1001), change(1002)] });
  } finally {
    feed.stop();
  }
});

test('a watch that ends is opened again from the last change, and nothing is sent twice', async () => {
  const api = fakeClient(0);
  const feed = new LiveFeed({ client: api.client, log: pino({ level: 'silent' }) });
  feed.start();
  try {
    const a = fakeSocket();
    feed.attach(a.socket);
    await until(() => api.watches.size === 1);
    api.push(change(1), change(2));
    await until(() => a.sent.length === 2);
    const ended = api.queries.length;
    for (const w of [...api.watches]) w.end();
    api.push(change(3));
    await until(() => a.sent.length === 3 && api.watches.size === 1);
    assert.deepEqual(JSON.parse(a.sent[2]), { type: 'changes', items: [change(3)] });
    // Read from the last change on (the one made meanwhile), then watched from it.
    assert.deepEqual(
      api.queries.slice(ended).map((q) => `${q.watch ? 'watch' : 'read'} from ${String(q.from)}`),
      ['read from 2', 'watch from 3'],
    );
    assert.equal(feed.backlog().length, 3);
  } finally {
    feed.stop();
  }
});

test('a socket that reads too slowly is dropped; the others still get every change', async () => {
  const api = fakeClient(0);
  const feed = new LiveFeed({ client: api.client, log: pino({ level: 'silent' }), maxBufferedBytes: 1000 });
  feed.start();
  try {
    const slow = fakeSocket();
    const fast = fakeSocket();
    feed.attach(slow.socket);
    feed.attach(fast.socket);
    slow.ws.bufferedAmount = 5000;
    await until(() => api.watches.size === 1);
    api.push(change(1));
    await until(() => fast.sent.length === 2);
    assert.ok(slow.ws.terminated);
    assert.equal(slow.sent.length, 1, 'only the backlog');
    api.push(change(2));
    await until(() => fast.sent.length === 3);
    assert.equal(slow.sent.length, 1);
  } finally {
    feed.stop();
  }
});
