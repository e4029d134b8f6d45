// The metrics API's answers on a fake store and fake kubelets: the objects
// and lists, selectors, metrics-server's Table, its not-found errors, and
// the cold start that scrapes twice so that the first answer has a window.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { createLogger } from '../../shared/log/logger.ts';
import type { Store } from '../storage/store.ts';
import { StatusError } from '../../shared/api/errors.ts';
import { answerMetrics, cpuQuantity, memoryQuantity, metricsTable, MetricsApi } from './handler.ts';

const node = (name: string): Node => ({
  metadata: { name, labels: { zone: 'a' }, annotations: { 'ksim.dev/kubelet-endpoint': `http://127.0.0.1:1` } },
});
const pod = (ns: string, name: string, app: string, phase = 'Running'): Pod => ({
  metadata: { namespace: ns, name, labels: { app } },
  spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
  status: { phase },
});

function fakeStore(objects: Record<string, object>): Store {
  const keys = Object.keys(objects).sort();
  return {
    keys: (bucket: string, prefix: string) => keys.filter((k) => k.startsWith(bucket) && k.startsWith(prefix)),
    get: (key: string) => (objects[key] ? { json: JSON.stringify(objects[key]) } : undefined),
    bucketVersion: () => 1,
  } as unknown as Store;
}

const store = fakeStore({
  '/registry/core/nodes/n1': node('n1'),
  '/registry/core/pods/default/busy': pod('default', 'busy', 'busy'),
  '/registry/core/pods/default/idle': pod('default', 'idle', 'idle'),
  '/registry/core/pods/default/done': pod('default', 'done', 'idle', 'Succeeded'),
  '/registry/core/pods/other/web': pod('other', 'web', 'web'),
});

/** A kubelet whose counters advance with a fake clock, which each scrape after the first moves 500 ms on. */
function setup() {
  const clock = { t: 1_000_000 };
  let scrapes = 0;
  const fetch = () => {
    if (scrapes++ > 0) clock.t += 500;
    const s = clock.t / 1000;
    const line = (ns: string, p: string, cpu: number, mem: number) =>
      `container_cpu_usage_seconds_total{container="c",namespace="${ns}",pod="${p}"} ${cpu} ${clock.t}\n` +
      `container_memory_working_set_bytes{container="c",namespace="${ns}",pod="${p}"} ${mem} ${clock.t}\n` +
      `container_start_time_seconds{container="c",namespace="${ns}",pod="${p}"} 1\n`;
    return Promise.resolve(
      line('default', 'busy', s * 1, 2 * 1024 * 1024) +
        line('default', 'idle', 0, 409600) +
        line('other', 'web', s * 0.002, 3 * 1024 * 1024) +
        `node_cpu_usage_seconds_total ${s * 1.05} ${clock.t}\nnode_memory_working_set_bytes ${500 * 1024 * 1024} ${clock.t}\n`,
    );
  };
  const api = new MetricsApi(store, createLogger('test', 'silent'), undefined, { fetch, now: () => clock.t, coldGapMs: 0 });
  return { api, scrapes: () => scrapes };
}

const q = (s = '') => new URLSearchParams(s);
const P = '/apis/metrics.k8s.io/v1beta1';

test('quantities as metrics-server writes them', () => {
  const cases: [number, string][] = [
    [1, '1'],
    [0.25, '250m'],
    [0.0000123, '12300n'],
    [0, '0'],
  ];
  for (const [cores, want] of cases) assert.equal(cpuQuantity(cores), want);
  assert.equal(memoryQuantity(100 * 1024 * 1024), '100Mi');
  assert.equal(memoryQuantity(409600), '400Ki');
  // kube's Quantity.String() writes a BinarySI value under 1024 in DecimalSI.
  assert.equal(memoryQuantity(1000), '1k');
});

test('a cold start scrapes twice; the list has the Running Pods of the namespace with their usage', async () => {
  const { api, scrapes } = setup();
  const a = await answerMetrics(api, store, `${P}/namespaces/default/pods`, q(), 0);
  assert.ok('items' in a);
  assert.equal(scrapes(), 2);
  await answerMetrics(api, store, `${P}/namespaces/default/pods`, q(), 0);
  assert.equal(scrapes(), 2, 'answered from the stored scrape');
  assert.deepEqual(
    a.items.map((o) => [o.metadata.name, (o.containers as { usage: { cpu: string; memory: string } }[])[0].usage, o.window]),
    [
      ['busy', { cpu: '1', memory: '2Mi' }, '500ms'],
      ['idle', { cpu: '0', memory: '400Ki' }, '500ms'],
    ],
  );
  assert.equal(a.list, 'PodMetricsList');
});

test('label and field selectors, all namespaces, nodes', async () => {
  const { api } = setup();
  const names = async (path: string, query = '') => {
    const a = await answerMetrics(api, store, path, q(query), 0);
    return 'items' in a ? a.items.map((o) => `${o.metadata.namespace as string}/${o.metadata.name as string}`) : [];
  };
  assert.deepEqual(await names(`${P}/pods`), ['default/busy', 'default/idle', 'other/web']);
  assert.deepEqual(await names(`${P}/pods`, 'labelSelector=app%3Dweb'), ['other/web']);
  assert.deepEqual(await names(`${P}/namespaces/default/pods`, 'fieldSelector=metadata.name%3Didle'), ['default/idle']);
  const n = await answerMetrics(api, store, `${P}/nodes/n1`, q(), 0);
  assert.ok('items' in n && n.single);
  assert.deepEqual(n.items[0].usage, { cpu: '1050m', memory: '500Mi' });
  assert.deepEqual(n.items[0].metadata.labels, { zone: 'a' });
});

test("metrics-server's not-found answers", async () => {
  const { api } = setup();
  const cases: [string, number, string][] = [
    [`${P}/namespaces/default/pods/nosuch`, 404, 'pods "nosuch" not found'],
    [`${P}/namespaces/default/pods/done`, 404, 'pods "done" not found'],
    [`${P}/nodes/nosuch`, 404, 'node "nosuch" not found'],
    [`${P}/nosuch`, 404, 'the server could not find the requested resource'],
    [`/apis/metrics.k8s.io/v1`, 404, 'the server could not find the requested resource'],
  ];
  for (const [path, code, message] of cases) {
    await assert.rejects(answerMetrics(api, store, path, q(), 0), (err: StatusError) => err.code === code && err.message === message, path);
  }
  await assert.rejects(answerMetrics(api, store, `${P}/pods`, q('watch=true'), 0), (err: StatusError) => err.code === 405);
});

test("the Table: Name, cpu, memory, Window; a Pod's containers summed; none without items", () => {
  const pm = {
    metadata: { name: 'p' },
    window: '15s',
    containers: [
      { name: 'a', usage: { cpu: '250m', memory: '10Mi' } },
      { name: 'b', usage: { cpu: '500000000n', memory: '6Mi' } },
    ],
  };
  const t = metricsTable([pm], 'None') as { columnDefinitions: { name: string }[]; rows: { cells: unknown[]; object?: unknown }[] };
  assert.deepEqual(
    t.columnDefinitions.map((c) => c.name),
    ['Name', 'cpu', 'memory', 'Window'],
  );
  assert.deepEqual(t.rows[0].cells, ['p', '750m', '16Mi', '15s']);
  assert.equal(t.rows[0].object, undefined);
  assert.deepEqual((metricsTable([], null) as { columnDefinitions: unknown[] }).columnDefinitions, []);
});
