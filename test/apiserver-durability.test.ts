// Durability: everything survives a clean restart on the same data dir, and
// every write the server acknowledged survives a kill -9 in the middle of a
// stream of creates.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, type Apiserver } from './helpers/index.ts';

let server: Apiserver;

before(async () => {
  server = await startApiserver();
});
after(() => server?.stop());

test('objects, resourceVersions and watch resume survive a clean restart', async () => {
  const c = api(server);
  await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'keep' } });
  const a = (await c.request('POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name: 'a' }, data: { k: 'v' } })).body;
  const b = (await c.request('POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name: 'b' }, data: { k: 'v' } })).body;
  await server.restart();
  const got = await c.request('GET', '/api/v1/namespaces/keep/configmaps/b');
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, b);
  const w = c.watch(`/api/v1/namespaces/keep/configmaps?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
  const ev = (await w.next())!;
  assert.equal(ev.type, 'ADDED');
  assert.equal(ev.object.metadata.name, 'b');
  const c2 = (await c.request('POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name: 'c' } })).body;
  assert.ok(Number(c2.metadata.resourceVersion) > Number(b.metadata.resourceVersion));
  const live = (await w.next())!;
  assert.equal(live.object.metadata.name, 'c');
  w.close();
});

test('every acknowledged create survives kill -9 during a stream of creates', async () => {
  const c = api(server);
  await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'crash' } });
  const acked: string[] = [];
  let stop = false;
  const writer = async (id: number) => {
    for (let i = 0; !stop; i++) {
      const name = `w${id}-${i}`;
      try {
        const res = await c.request('POST', '/api/v1/namespaces/crash/configmaps', { metadata: { name }, data: { i: String(i) } });
        if (res.status === 201) acked.push(name);
      } catch {
        return; // the connection died with the server
      }
    }
  };
  const writers = Array.from({ length: 20 }, (_, i) => writer(i));
  while (acked.length < 500) await new Promise((r) => setTimeout(r, 10));
  await server.kill9();
  stop = true;
  await Promise.all(writers);
  const ackedCount = acked.length;
  await server.restart();
  const list = await c.request('GET', '/api/v1/namespaces/crash/configmaps');
  const stored = new Set(list.body.items.map((i: any) => i.metadata.name));
  const lost = acked.filter((n) => !stored.has(n));
  assert.deepEqual(lost, [], `${lost.length} of ${ackedCount} acknowledged creates were lost`);
  // Revisions keep increasing after the crash.
  const next = await c.request('POST', '/api/v1/namespaces/crash/configmaps', { metadata: { name: 'after' } });
  assert.equal(next.status, 201);
  assert.ok(Number(next.body.metadata.resourceVersion) > Number(list.body.metadata.resourceVersion) - 1);
});
