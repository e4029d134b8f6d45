// The informer marks each handler call with the resourceVersion of the
// event's object, so that a work queue fed by its handlers knows which
// events queued a key (causality). A fake client stands in for the apiserver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { findResource } from '../api/resources.ts';
import { currentEventRV } from '../causality/event-context.ts';
import type { KubeClient, WatchEvent } from '../client/kube-client.ts';
import { WorkQueue } from '../workqueue/work-queue.ts';
import { Informer } from './informer.ts';

const configmaps = findResource('', 'v1', 'configmaps')!;
const cm = (name: string, rv: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});

/** A client that lists `items` and hands the test the watch's event callback. */
function fakeClient(items: ConfigMap[]) {
  let send: ((ev: WatchEvent<ConfigMap>) => void) | undefined;
  let opened!: () => void;
  const watching = new Promise<void>((r) => (opened = r));
  const client = {
    list: () =>
      Promise.resolve({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: structuredClone(items) }),
    watch: (_rt: unknown, _opts: unknown, onEvent: (ev: WatchEvent<ConfigMap>) => void) => {
      send = onEvent;
      opened();
      let stop!: () => void;
      const done = new Promise<void>((r) => (stop = r));
      return { done, stop };
    },
  } as unknown as KubeClient;
  return { client, watching, send: (ev: WatchEvent<ConfigMap>) => send!(ev) };
}

test("handlers run marked with the event object's resourceVersion, and unmarked after, even when one throws", async () => {
  const fake = fakeClient([cm('a', '3')]);
  const informer = new Informer<ConfigMap>(fake.client, configmaps);
  const seen: string[] = [];
  const mark = (what: string) => seen.push(`${what}@${currentEventRV() ?? '-'}`);
  informer.on({
    add: (o) => mark(`add ${o.metadata!.name}`),
    update: (_old, o) => mark(`update ${o.metadata!.name}`),
    delete: (o) => mark(`delete ${o.metadata!.name}`),
  });
  informer.on({
    update: () => {
      throw new Error('a failing handler');
    },
  });
  informer.start();
  await fake.watching;
  fake.send({ type: 'ADDED', object: cm('b', '10') });
  fake.send({ type: 'MODIFIED', object: cm('a', '11') });
  fake.send({ type: 'BOOKMARK', object: cm('', '12') });
  fake.send({ type: 'DELETED', object: cm('b', '13') });
  assert.equal(currentEventRV(), undefined);
  informer.on({ add: (o) => mark(`replay ${o.metadata!.name}`) });
  informer.stop();
  assert.deepEqual(seen, ['add a@3', 'add b@10', 'update a@11', 'delete b@13', 'replay a@11']);
  assert.equal(currentEventRV(), undefined);
});

test('a work queue fed by handlers knows which events queued a key', async () => {
  const fake = fakeClient([]);
  const informer = new Informer<ConfigMap>(fake.client, configmaps);
  const queue = new WorkQueue();
  const enqueue = (o: ConfigMap) => queue.add(`${o.metadata!.namespace}/${o.metadata!.name}`);
  informer.on({ add: enqueue, update: (_old, o) => enqueue(o), delete: enqueue });
  informer.start();
  await fake.watching;
  fake.send({ type: 'ADDED', object: cm('a', '20') });
  fake.send({ type: 'MODIFIED', object: cm('a', '21') });
  informer.stop();
  assert.equal(await queue.get(), 'ns/a');
  assert.deepEqual(queue.triggersOf('ns/a'), ['20', '21']);
});
