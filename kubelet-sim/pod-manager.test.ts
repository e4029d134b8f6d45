// The pod manager against an in-memory apiserver (a fake KubeClient that
// lists, watches and merge-patches Pods; FakeClock): a Ready=False written by
// another writer (the node lifecycle controller's MarkPodsNotReady) is
// written back within one status sync period, and only once; a
// DisruptionTarget condition or nominatedNodeName from others is left alone;
// a partitioned node writes nothing and catches up when healed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import pino from 'pino';
import { StatusError } from '../shared/api/errors.ts';
import type { ResourceType } from '../shared/api/resource-type.ts';
import { FakeClock } from '../shared/clock/clock.ts';
import type { KubeClient, WatchEvent } from '../shared/client/kube-client.ts';
import { applyMergePatch } from '../shared/patch/merge-patch.ts';
import { NodeFleet } from './node/node-fleet.ts';
import { DEFAULT_PROFILE } from './node/node-object.ts';
import { PodManager } from './pod-manager.ts';
import { DEFAULT_TIMINGS } from './runtime/timings.ts';

const log = pino({ level: 'silent' });
const SYNC_MS = DEFAULT_TIMINGS.statusSyncMs;

/** Pods in memory, each write a new resourceVersion and a watch event; every other resource is empty. */
class FakeApi {
  readonly pods = new Map<string, Pod>();
  /** The status writes of the node (kubelet-sim), by Pod name. */
  readonly kubeletWrites: string[] = [];
  private rv = 1;
  private readonly watchers = new Set<(ev: WatchEvent<Pod>) => void>();

  add(pod: Pod): void {
    this.store('ADDED', { ...structuredClone(pod), metadata: { ...pod.metadata, uid: `uid-${pod.metadata!.name}` } });
  }

  /** Another writer's merge patch of a Pod's status. */
  patchStatus(name: string, status: Pod['status']): void {
    this.store('MODIFIED', applyMergePatch(this.pods.get(`default/${name}`)!, { status }));
  }

  status(name: string): Pod['status'] {
    return this.pods.get(`default/${name}`)?.status;
  }

  condition(name: string, type: string): PodCondition | undefined {
    return this.status(name)?.conditions?.find((c) => c.type === type);
  }

  private store(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const obj = { ...pod, metadata: { ...pod.metadata, resourceVersion: String(++this.rv) } };
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (type === 'DELETED') this.pods.delete(key);
    else this.pods.set(key, obj);
    for (const w of this.watchers) w({ type, object: structuredClone(obj) });
  }

  client(): KubeClient {
    const isPods = (rt: ResourceType) => rt.plural === 'pods';
    const notFound = (what: string) => Promise.reject(new StatusError(404, 'NotFound', `${what} not found`));
    const fake = {
      list: (rt: ResourceType) =>
        Promise.resolve({
          apiVersion: 'v1',
          kind: 'List',
          metadata: { resourceVersion: String(this.rv) },
          items: isPods(rt) ? [...this.pods.values()].map((p) => structuredClone(p)) : [],
        }),
      watch: (rt: ResourceType, _opts: unknown, onEvent: (ev: WatchEvent<Pod>) => void) => {
        let stop = () => {};
        const done = new Promise<void>((resolve) => (stop = resolve));
        if (isPods(rt)) this.watchers.add(onEvent);
        return {
          done,
          stop: () => {
            this.watchers.delete(onEvent);
            stop();
          },
        };
      },
      request: (method: string, path: string, opts: { body?: { status?: Pod['status'] } }) => {
        const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/status$/.exec(path);
        const cur = m && method === 'PATCH' ? this.pods.get(`${m[1]}/${m[2]}`) : undefined;
        if (!m || !cur) return notFound(`${method} ${path}`);
        this.kubeletWrites.push(m[2]);
        this.store('MODIFIED', applyMergePatch(cur, { status: opts.body?.status }));
        return Promise.resolve({});
      },
      delete: (_rt: ResourceType, ns: string, name: string) => {
        const cur = this.pods.get(`${ns}/${name}`);
        if (cur) this.store('DELETED', cur);
        return Promise.resolve({});
      },
      // Events, the Lease and the Node: accepted and forgotten.
      create: (_rt: ResourceType, _ns: string, body: object) => Promise.resolve(body),
      patch: () => Promise.resolve({ metadata: {} }),
      update: (_rt: ResourceType, body: object) => Promise.resolve(body),
      get: (rt: ResourceType, _ns: string, name: string) => notFound(`${rt.plural} "${name}"`),
    };
    return fake as unknown as KubeClient;
  }
}

async function fixture() {
  const clock = new FakeClock();
  const api = new FakeApi();
  const client = api.client();
  // The fleet calls onNodeOnline only once started, after `pods` exists (as in main.ts).
  const box: { pods?: PodManager } = {};
  const fleet = new NodeFleet(
    {
      client,
      clock,
      timings: DEFAULT_TIMINGS,
      profile: DEFAULT_PROFILE,
      endpoint: { host: '127.0.0.1', port: 1 },
      log,
      onNodeOnline: (n, rebooted) => box.pods?.nodeOnline(n, rebooted),
    },
    [{ name: 'node-0', index: 0 }],
  );
  for (const n of fleet.nodes.values()) n.registered = true;
  const pods = new PodManager({ client, clock, timings: DEFAULT_TIMINGS, speed: 1, fleet, log, workers: 1 });
  box.pods = pods;
  api.add({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'default', name: 'web' },
    spec: { nodeName: 'node-0', containers: [{ name: 'c', image: 'nginx' }] },
  });
  await pods.start();
  // Sandbox, pull, create, start: Running and Ready.
  await clock.step(5000);
  assert.equal(api.condition('web', 'Ready')?.status, 'True', 'the Pod is Ready');
  const stop = async () => {
    fleet.stop();
    await pods.stop();
  };
  return { clock, api, fleet, pods, stop };
}

/** The node lifecycle controller's MarkPodsNotReady: Ready=False, the other conditions as they were. */
function markNotReady(api: FakeApi, name: string, at: string): void {
  const conditions = api.status(name)!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: at } : c));
  api.patchStatus(name, { conditions });
}

test('a Ready=False written by another writer is written back to True within one status sync period, once', async () => {
  const { clock, api, stop } = await fixture();
  try {
    const before = api.kubeletWrites.length;
    markNotReady(api, 'web', '2026-01-01T00:00:06Z');
    assert.equal(api.condition('web', 'Ready')?.status, 'False');
    await clock.step(SYNC_MS + 100);
    assert.equal(api.condition('web', 'Ready')?.status, 'True', 'kubelet wrote its Ready=True again');
    assert.equal(api.kubeletWrites.length, before + 1, 'one write');
    // Its own write, seen through the watch, is not another difference: no write loop.
    await clock.step(5 * SYNC_MS);
    assert.equal(api.kubeletWrites.length, before + 1, 'no more writes');
  } finally {
    await stop();
  }
});

test('conditions kubelet does not own and nominatedNodeName are left to their writers', async () => {
  const { clock, api, stop } = await fixture();
  try {
    const before = api.kubeletWrites.length;
    const conditions = [
      ...api.status('web')!.conditions!,
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      },
    ];
    api.patchStatus('web', { conditions, nominatedNodeName: 'node-1' });
    await clock.step(3 * SYNC_MS);
    assert.equal(api.kubeletWrites.length, before, 'no write');
    assert.equal(api.condition('web', 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    assert.equal(api.status('web')?.nominatedNodeName, 'node-1');
    // A repair that is needed keeps the other writer's condition.
    markNotReady(api, 'web', '2026-01-01T00:00:20Z');
    await clock.step(SYNC_MS + 100);
    assert.equal(api.condition('web', 'Ready')?.status, 'True');
    assert.equal(api.condition('web', 'DisruptionTarget')?.status, 'True', 'DisruptionTarget kept');
    assert.equal(api.status('web')?.nominatedNodeName, 'node-1');
  } finally {
    await stop();
  }
});

test('a partitioned node writes nothing; healed, it writes its status at once', async () => {
  const { clock, api, fleet, stop } = await fixture();
  try {
    await fleet.chaos('node-0', 'partition');
    const before = api.kubeletWrites.length;
    markNotReady(api, 'web', '2026-01-01T00:00:30Z');
    await clock.step(3 * SYNC_MS);
    assert.equal(api.kubeletWrites.length, before, 'nothing written while partitioned');
    assert.equal(api.condition('web', 'Ready')?.status, 'False');
    await fleet.chaos('node-0', 'heal');
    await clock.step(1);
    assert.equal(api.condition('web', 'Ready')?.status, 'True', 'written on heal, before the next sync period');
    assert.equal(api.kubeletWrites.length, before + 1);
    await clock.step(3 * SYNC_MS);
    assert.equal(api.kubeletWrites.length, before + 1, 'and not again');
  } finally {
    await stop();
  }
});
