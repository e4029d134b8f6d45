// End-to-end watch semantics: ordered events from a resourceVersion, resume
// after a dropped connection, 410 for a compacted one, watch-list with its
// initial-events-end bookmark, selector transitions, timeoutSeconds, the
// WebSocket transport, and paging through 1,000 objects on one snapshot.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { api, startApiserver, tlsFor, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

before(async () => {
  // A small watch window so that compaction can be observed within a test.
  server = await startApiserver({ extraArgs: ['--watch-window-events', '500', '--bookmark-interval', '1'] });
  c = api(server);
  await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'w' } });
});
after(() => server?.stop());

const cm = (name: string, labels: Record<string, string> = {}, v = '1') => ({ metadata: { name, labels }, data: { v } });
const create = async (ns: string, name: string, labels?: Record<string, string>) => {
  const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name, labels));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
};

describe('watch', () => {
  test('from a resourceVersion: every later event, in order, then live ones', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'order' } });
    const first = await create('order', 'a');
    await create('order', 'b');
    await c.request(
      'PATCH',
      '/api/v1/namespaces/order/configmaps/a',
      { data: { v: '2' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    await c.request('DELETE', '/api/v1/namespaces/order/configmaps/b');
    const w = c.watch(`/api/v1/namespaces/order/configmaps?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    const got: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ev = (await w.next())!;
      got.push(`${ev.type}:${ev.object.metadata.name}`);
    }
    assert.deepEqual(got, ['ADDED:b', 'MODIFIED:a', 'DELETED:b']);
    await create('order', 'c');
    const live = (await w.next())!;
    assert.equal(live.type, 'ADDED');
    assert.equal(live.object.metadata.name, 'c');
    w.close();
  });

  test('watch is a boolean query parameter as kube reads it: True, yes and an empty value all watch', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'bools' } });
    await create('bools', 'x');
    for (const value of ['True', 'TRUE', 'yes', '']) {
      const w = c.watch(`/api/v1/namespaces/bools/configmaps?watch=${value}&allowWatchBookmarks=True`);
      const ev = (await w.next())!;
      assert.equal(`${ev.type}:${ev.object.metadata.name}`, 'ADDED:x', `watch=${value}`);
      w.close();
    }
    // watch=False (any case) and watch=0 are lists.
    for (const value of ['False', '0']) {
      const res = await c.request('GET', `/api/v1/namespaces/bools/configmaps?watch=${value}`);
      assert.equal(res.body.kind, 'ConfigMapList', `watch=${value}`);
    }
  });

  test('a HEAD watch answers headers and no body (found by the fuzz test: events went out on the socket)', async () => {
    await create('bools', 'y');
    // Through the client's keep-alive connections: the one that carried the HEAD must stay usable.
    const res = await c.request('HEAD', '/api/v1/namespaces/bools/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1');
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
    // The connection is still good for the next request.
    assert.equal((await c.request('GET', '/api/v1/namespaces/bools/configmaps/y')).status, 200);
  });

  test('without a resourceVersion: ADDED for every existing object first', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'initial' } });
    await create('initial', 'x');
    await create('initial', 'y');
    const w = c.watch('/api/v1/namespaces/initial/configmaps?watch=true');
    const names = [(await w.next())!, (await w.next())!].map((e) => `${e.type}:${e.object.metadata.name}`);
    assert.deepEqual(names, ['ADDED:x', 'ADDED:y']);
    w.close();
  });

  test('resuming after a dropped connection loses nothing', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'resume' } });
    const start = await create('resume', 'r0');
    let w = c.watch(`/api/v1/namespaces/resume/configmaps?watch=true&resourceVersion=${start.metadata.resourceVersion}`);
    await create('resume', 'r1');
    const ev1 = (await w.next())!;
    assert.equal(ev1.object.metadata.name, 'r1');
    w.close();
    for (const n of ['r2', 'r3', 'r4']) await create('resume', n);
    w = c.watch(`/api/v1/namespaces/resume/configmaps?watch=true&resourceVersion=${ev1.object.metadata.resourceVersion}`);
    const rest = [(await w.next())!, (await w.next())!, (await w.next())!].map((e) => e.object.metadata.name);
    assert.deepEqual(rest, ['r2', 'r3', 'r4']);
    w.close();
  });

  test('a compacted resourceVersion gets an ERROR event with a 410 Expired Status', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'old' } });
    const first = await create('old', 'o0');
    for (let i = 1; i <= 600; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => create('old', `o${i + j}`)));
    }
    // The window holds at most 550 events: the first ones are gone.
    const w = c.watch(`/api/v1/namespaces/old/configmaps?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    const ev = (await w.next())!;
    assert.equal(ev.type, 'ERROR');
    assert.equal(ev.object.kind, 'Status');
    assert.equal(ev.object.code, 410);
    assert.equal(ev.object.reason, 'Expired');
    assert.match(ev.object.message, /too old resource version/);
    w.close();
  });

  test('watch-list: ADDED for current objects, then the initial-events-end BOOKMARK', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'wl' } });
    await create('wl', 'one');
    await create('wl', 'two');
    const w = c.watch(
      '/api/v1/namespaces/wl/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&fieldSelector=metadata.name%3Dtwo',
    );
    const added = (await w.next())!;
    assert.equal(added.type, 'ADDED');
    assert.equal(added.object.metadata.name, 'two');
    const bookmark = (await w.next())!;
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.equal(bookmark.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(added.object.metadata.resourceVersion));
    await c.request('DELETE', '/api/v1/namespaces/wl/configmaps/two');
    let ev = (await w.next())!;
    while (ev.type === 'BOOKMARK') ev = (await w.next())!;
    assert.equal(ev.type, 'DELETED');
    w.close();
    const bad = await c.request('GET', '/api/v1/namespaces/wl/configmaps?watch=true&sendInitialEvents=true');
    // kube's ListResource answers invalid list options with a 422 for ListOptions.meta.k8s.io.
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  });

  test('a label-selected watch sees an object leave and join the selection', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'lbl' } });
    const obj = await create('lbl', 'm', { tier: 'web' });
    const w = c.watch(
      `/api/v1/namespaces/lbl/configmaps?watch=true&labelSelector=tier%3Dweb&resourceVersion=${obj.metadata.resourceVersion}`,
    );
    const mp = { 'content-type': 'application/merge-patch+json' };
    await c.request('PATCH', '/api/v1/namespaces/lbl/configmaps/m', { metadata: { labels: { tier: 'db' } } }, mp);
    await c.request('PATCH', '/api/v1/namespaces/lbl/configmaps/m', { metadata: { labels: { tier: 'web' } } }, mp);
    const types = [(await w.next())!, (await w.next())!].map((e) => e.type);
    assert.deepEqual(types, ['DELETED', 'ADDED']);
    w.close();
  });

  test('bookmarks arrive when asked for, and timeoutSeconds ends the stream', async () => {
    const w = c.watch(
      `/api/v1/namespaces/w/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${(await create('w', 'bm')).metadata.resourceVersion}`,
    );
    const ev = (await w.next(5000))!;
    assert.equal(ev.type, 'BOOKMARK');
    const started = Date.now();
    let end: unknown = ev;
    while (end !== undefined) end = await w.next(6000);
    assert.ok(Date.now() - started < 5000);
  });

  test('the same watch over a WebSocket', async () => {
    const start = await create('w', 'ws0');
    const ws = new WebSocket(
      `${server.url.replace('http', 'ws')}/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${start.metadata.resourceVersion}`,
      tlsFor(server).tls,
    );
    const messages: any[] = [];
    const got = new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        // Text frames, as Buffers (ws's default binaryType).
        messages.push(JSON.parse((data as Buffer).toString()));
        if (messages.length === 2) resolve();
      });
      ws.on('error', reject);
    });
    await new Promise((r) => ws.once('open', r));
    await create('w', 'ws1');
    await create('w', 'ws2');
    await got;
    assert.deepEqual(
      messages.map((m) => `${m.type}:${m.object.metadata.name}`),
      ['ADDED:ws1', 'ADDED:ws2'],
    );
    ws.close();
  });
});

describe('paging', () => {
  test('1,000 objects in pages of 100 over one consistent snapshot', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'pages' } });
    const all: string[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const batch = Array.from({ length: 100 }, (_, j) => `cm-${String(i + j).padStart(4, '0')}`);
      await Promise.all(batch.map((n) => create('pages', n)));
      all.push(...batch);
    }
    const seen: string[] = [];
    let token = '';
    let listRv = '';
    let pages = 0;
    do {
      const res = await c.request(
        'GET',
        `/api/v1/namespaces/pages/configmaps?limit=100${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      );
      assert.equal(res.status, 200);
      if (!listRv) listRv = res.body.metadata.resourceVersion;
      assert.equal(res.body.metadata.resourceVersion, listRv, 'every page is served at the first page revision');
      seen.push(...res.body.items.map((i: any) => i.metadata.name));
      token = res.body.metadata.continue ?? '';
      if (pages === 0) {
        assert.equal(res.body.metadata.remainingItemCount, 900);
        // Changes after the first page must not show up in later pages.
        await c.request('DELETE', '/api/v1/namespaces/pages/configmaps/cm-0999');
        await create('pages', 'cm-0500x');
      }
      pages++;
    } while (token);
    assert.equal(pages, 10);
    assert.deepEqual(seen, all);
    const exact = await c.request(
      'GET',
      `/api/v1/namespaces/pages/configmaps?resourceVersion=${listRv}&resourceVersionMatch=Exact&limit=5`,
    );
    assert.equal(exact.status, 200);
    assert.equal(exact.body.metadata.resourceVersion, listRv);
    const bad = await c.request('GET', '/api/v1/namespaces/pages/configmaps?limit=5&continue=garbage');
    assert.equal(bad.status, 400);
  });
});
