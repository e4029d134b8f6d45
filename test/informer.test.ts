// The shared client machinery against a real apiserver: the client's typed
// Status errors, and an informer that lists, watches, resumes after the
// apiserver restarts, and relists after its resourceVersion is compacted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { Informer } from '../shared/informer/informer.ts';
import { startApiserver, type Apiserver } from './helpers/index.ts';

const configmaps = findResource('', 'v1', 'configmaps')!;
let server: Apiserver;
let client: KubeClient;

before(async () => {
  server = await startApiserver({ extraArgs: ['--watch-window-events', '50'] });
  client = new KubeClient(server.clientConfig);
});
after(async () => {
  client?.close();
  await server?.stop();
});

const until = async (cond: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('the client turns error answers into typed StatusErrors', async () => {
  await assert.rejects(
    client.get(configmaps, 'default', 'missing'),
    (e: unknown) => e instanceof StatusError && e.code === 404 && e.reason === 'NotFound',
  );
  await client.create(configmaps, 'default', { metadata: { name: 'once' } });
  await assert.rejects(
    client.create(configmaps, 'default', { metadata: { name: 'once' } }),
    (e: unknown) => e instanceof StatusError && e.reason === 'AlreadyExists',
  );
});

test('an informer follows adds, updates and deletes, survives a restart, and relists after 410', async () => {
  const events: string[] = [];
  const informer = new Informer(client, configmaps, { namespace: 'default', labelSelector: 'inf=yes' });
  informer.cache.addIndex('color', (o: any) => [o.metadata.labels?.color ?? '']);
  informer.on({
    add: (o) => events.push(`add:${o.metadata.name}`),
    update: (_old, o) => events.push(`update:${o.metadata.name}`),
    delete: (o) => events.push(`delete:${o.metadata.name}`),
  });
  await client.create(configmaps, 'default', { metadata: { name: 'before', labels: { inf: 'yes', color: 'red' } } });
  informer.start();
  await informer.waitForSync();
  assert.deepEqual(events, ['add:before']);
  await client.create(configmaps, 'default', { metadata: { name: 'during', labels: { inf: 'yes', color: 'blue' } } });
  await client.patch(configmaps, 'default', 'before', 'merge', { data: { x: '1' } });
  await client.delete(configmaps, 'default', 'during');
  await until(() => events.length === 4, 'watch events');
  assert.deepEqual(events, ['add:before', 'add:during', 'update:before', 'delete:during']);
  assert.deepEqual(
    informer.cache.byIndex('color', 'red').map((o) => o.metadata.name),
    ['before'],
  );

  await server.restart();
  await client.create(configmaps, 'default', { metadata: { name: 'after-restart', labels: { inf: 'yes' } } });
  await until(() => informer.cache.get('default/after-restart') !== undefined, 'event after restart');

  // Push the informer's resourceVersion out of the window while it is disconnected.
  await server.stop();
  await server.restart();
  const noise = Array.from({ length: 120 }, (_, i) => client.create(configmaps, 'default', { metadata: { name: `noise-${i}` } }));
  await Promise.all(noise);
  await client.delete(configmaps, 'default', 'before');
  await until(() => informer.cache.get('default/before') === undefined, 'relist after 410', 20_000);
  assert.ok(events.includes('delete:before'));
  informer.stop();
});
