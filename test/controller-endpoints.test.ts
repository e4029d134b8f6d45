// The Endpoints and EndpointSlice controllers against a real apiserver, run
// in-process as the controller-manager runs them: a Service and Pods whose
// status the test writes itself (no kubelets here), Endpoints and
// EndpointSlices that follow readiness and deletion without rewriting
// anything that did not change, and what the real kubectl shows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { realClock } from '../shared/clock/clock.ts';
import { runController, type RunningController } from '../shared/controller/run-controller.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { InformerFactory } from '../shared/informer/factory.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import type { ControllerContext } from '../controller-manager/context.ts';
import { endpointsController } from '../controller-manager/controllers/endpoints/controller.ts';
import { endpointSliceController } from '../controller-manager/controllers/endpointslice/controller.ts';
import { kubectl, startApiserver, type Apiserver, until } from './helpers/index.ts';

const services = findResource('', 'v1', 'services')!;
const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const endpoints = findResource('', 'v1', 'endpoints')!;
const slices = findResource('discovery.k8s.io', 'v1', 'endpointslices')!;
const NS = 'default';

let server: Apiserver;
let client: KubeClient;
let factory: InformerFactory;
let running: RunningController[] = [];
let kubeconfig: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const getOrUndefined = async (rt: typeof endpoints, name: string) => {
  try {
    return await client.get(rt, NS, name);
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
};
const slicesOf = async (svc: string) =>
  (await client.list(slices, { namespace: NS, labelSelector: `kubernetes.io/service-name=${svc}` })).items;

/** A Pod on `node` with one container port named http. */
const podBody = (name: string, node: string, port: number, labels: Record<string, string> = { app: 'web' }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { nodeName: node, containers: [{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: port }] }] },
});
/** What a kubelet would report: Running with an IP, Ready or not. */
const setStatus = (name: string, ip: string, ready: boolean) =>
  client.patch(
    pods,
    NS,
    name,
    'merge',
    {
      status: {
        phase: 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        conditions: [
          { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
        ],
      },
    },
    'status',
  );
const ips = (addrs: any[] | undefined) => (addrs ?? []).map((a) => a.ip).sort();

/** Starts both controllers in-process, as controller-manager/main.ts does. */
async function startControllers(): Promise<void> {
  const log = pino({ level: 'warn' });
  const registry = createMetricsRegistry('controller-manager');
  factory = new InformerFactory(client, { log, clock: realClock });
  const events = new EventRecorder(client, { component: 'controller-manager', log });
  const ctx: ControllerContext = { client, informers: factory, clock: realClock, log, registry, events, speed: 1 };
  const parts = [endpointsController(ctx), endpointSliceController(ctx)];
  factory.start();
  running = await Promise.all(parts.map((p) => runController({ ...p, workers: 2, log, registry })));
}

async function stopControllers(): Promise<void> {
  factory?.stop();
  await Promise.all(running.map((c) => c.stop()));
  running = [];
}

before(async () => {
  server = await startApiserver();
  client = new KubeClient(server.clientConfig);
  kubeconfig = server.kubeconfig;
  await startControllers();
  await client.create(nodes, undefined, { metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
  await client.create(nodes, undefined, { metadata: { name: 'node-2', labels: { 'topology.kubernetes.io/zone': 'zone-b' } } });
});

after(async () => {
  await stopControllers();
  client?.close();
  await server?.stop();
});

test('Endpoints and EndpointSlices follow the Pods of a Service: readiness, named ports, deletion', async () => {
  await client.create(services, NS, {
    metadata: { name: 'web', labels: { tier: 'front' } },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });

  // Nothing selected yet: an Endpoints without subsets and one placeholder slice.
  const empty = await until(() => getOrUndefined(endpoints, 'web'), 'the empty Endpoints');
  assert.equal(empty.subsets, undefined);
  assert.equal(empty.metadata.labels['endpoints.kubernetes.io/managed-by'], 'endpoint-controller');
  assert.equal(empty.metadata.labels.tier, 'front');
  assert.ok(empty.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']);
  const placeholder = (await until(async () => (await slicesOf('web')).length === 1 && slicesOf('web'), 'the placeholder slice'))[0];
  assert.deepEqual(placeholder.endpoints ?? [], []);
  const out = await kubectl(['get', 'endpoints', 'web', '-n', NS], { kubeconfig });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^web\s+<none>\s+/m);

  await client.create(pods, NS, podBody('web-1', 'node-1', 8080));
  await client.create(pods, NS, podBody('web-2', 'node-2', 8080));
  await client.create(pods, NS, podBody('web-3', 'node-1', 9090));
  await client.create(pods, NS, podBody('other', 'node-1', 8080, { app: 'other' }));
  await setStatus('web-1', '10.244.0.5', true);
  await setStatus('web-2', '10.244.1.6', false);
  await setStatus('web-3', '10.244.0.7', true);
  await setStatus('other', '10.244.0.8', true);

  const ep = await until(async () => {
    const e = await client.get(endpoints, NS, 'web');
    return e.subsets?.length === 2 && e;
  }, 'two subsets (8080 and 9090)');
  const by8080 = ep.subsets.find((s: any) => s.ports[0].port === 8080);
  const by9090 = ep.subsets.find((s: any) => s.ports[0].port === 9090);
  assert.deepEqual(ips(by8080.addresses), ['10.244.0.5']);
  assert.deepEqual(ips(by8080.notReadyAddresses), ['10.244.1.6']);
  assert.deepEqual(ips(by9090.addresses), ['10.244.0.7']);
  assert.deepEqual(by8080.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  const first = by8080.addresses[0];
  assert.equal(first.nodeName, 'node-1');
  assert.deepEqual({ ...first.targetRef, uid: undefined }, { kind: 'Pod', namespace: NS, name: 'web-1', uid: undefined });
  assert.ok(first.targetRef.uid);

  // EndpointSlices: one per port mapping, the placeholder reused.
  const sl = await until(async () => {
    const all = await slicesOf('web');
    return all.length === 2 && all.every((s) => s.endpoints?.length) && all;
  }, 'two slices');
  assert.ok(
    sl.some((s) => s.metadata.name === placeholder.metadata.name),
    'the placeholder was filled in place',
  );
  const s8080 = sl.find((s) => s.ports[0].port === 8080);
  assert.equal(s8080.addressType, 'IPv4');
  assert.match(s8080.metadata.name, /^web-/);
  assert.deepEqual(s8080.metadata.labels, {
    tier: 'front',
    'kubernetes.io/service-name': 'web',
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  const svc = await client.get(services, NS, 'web');
  assert.deepEqual(s8080.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);
  const byName = Object.fromEntries(s8080.endpoints.map((e: any) => [e.targetRef.name, e]));
  assert.deepEqual(byName['web-1'].conditions, { ready: true, serving: true, terminating: false });
  assert.deepEqual(byName['web-1'].addresses, ['10.244.0.5']);
  assert.equal(byName['web-1'].zone, 'zone-a');
  assert.equal(byName['web-2'].nodeName, 'node-2');
  assert.deepEqual(byName['web-2'].conditions, { ready: false, serving: false, terminating: false });

  // kubectl shows the ready addresses as ip:port.
  const shown = await kubectl(['get', 'endpoints', 'web', '-n', NS], { kubeconfig });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /10\.244\.0\.5:8080/);
  assert.match(shown.stdout, /10\.244\.0\.7:9090/);
  assert.doesNotMatch(shown.stdout, /10\.244\.1\.6/);

  // Nothing changed for the Service: no write.
  const rvBefore = ep.metadata.resourceVersion;
  const sliceRvs = sl.map((s) => s.metadata.resourceVersion).sort();
  await client.patch(pods, NS, 'web-1', 'merge', { metadata: { annotations: { note: 'irrelevant' } } });
  await client.patch(services, NS, 'web', 'merge', { metadata: { annotations: { note: 'irrelevant' } } });
  await sleep(500);
  assert.equal((await client.get(endpoints, NS, 'web')).metadata.resourceVersion, rvBefore, 'Endpoints rewritten without a change');
  assert.deepEqual((await slicesOf('web')).map((s) => s.metadata.resourceVersion).sort(), sliceRvs, 'slices rewritten without a change');

  // web-2 becomes ready, web-1 stops being ready.
  await setStatus('web-2', '10.244.1.6', true);
  await setStatus('web-1', '10.244.0.5', false);
  await until(async () => {
    const e = await client.get(endpoints, NS, 'web');
    const s = e.subsets?.find((x: any) => x.ports[0].port === 8080);
    return s && ips(s.addresses).join() === '10.244.1.6' && ips(s.notReadyAddresses).join() === '10.244.0.5';
  }, 'readiness swapped in Endpoints');
  await until(async () => {
    const s = (await slicesOf('web')).find((x) => x.ports?.[0]?.port === 8080);
    const c = Object.fromEntries((s?.endpoints ?? []).map((e: any) => [e.targetRef.name, e.conditions.ready]));
    return s?.metadata.name === s8080.metadata.name && c['web-1'] === false && c['web-2'] === true;
  }, 'readiness swapped in the same slice');

  // Deleting a Pod removes it; deleting the last Pod of a port mapping removes that slice.
  await client.delete(pods, NS, 'web-3', { gracePeriodSeconds: 0 });
  await until(async () => {
    const e = await client.get(endpoints, NS, 'web');
    return e.subsets?.length === 1 && e.subsets[0].ports[0].port === 8080;
  }, 'web-3 gone from Endpoints');
  await until(async () => {
    const all = await slicesOf('web');
    return all.length === 1 && all[0].ports[0].port === 8080;
  }, 'the 9090 slice gone');
  await client.delete(pods, NS, 'web-1', { gracePeriodSeconds: 0 });
  await until(async () => {
    const e = await client.get(endpoints, NS, 'web');
    return e.subsets?.length === 1 && ips(e.subsets[0].addresses).join() === '10.244.1.6' && !e.subsets[0].notReadyAddresses;
  }, 'web-1 gone from Endpoints');

  // Deleting the Service deletes its Endpoints and slices.
  await client.delete(services, NS, 'web');
  await until(async () => !(await getOrUndefined(endpoints, 'web')), 'the Endpoints deleted');
  await until(async () => (await slicesOf('web')).length === 0, 'the slices deleted');
});

test('publishNotReadyAddresses lists not-ready Pods as ready addresses', async () => {
  await client.create(pods, NS, podBody('pub-1', 'node-1', 8080, { app: 'pub' }));
  await setStatus('pub-1', '10.244.0.20', false);
  await client.create(services, NS, {
    metadata: { name: 'pub' },
    spec: { selector: { app: 'pub' }, publishNotReadyAddresses: true, ports: [{ port: 80, targetPort: 8080 }] },
  });
  const ep = await until(async () => {
    const e = await getOrUndefined(endpoints, 'pub');
    return e?.subsets?.[0]?.addresses && e;
  }, 'the pub Endpoints');
  assert.deepEqual(ips(ep.subsets[0].addresses), ['10.244.0.20']);
  assert.deepEqual(ep.subsets[0].ports, [{ port: 8080, protocol: 'TCP' }]);
  const [slice] = await until(
    async () => (await slicesOf('pub')).filter((s) => s.endpoints?.length).length === 1 && slicesOf('pub'),
    'the pub slice',
  );
  assert.deepEqual(slice.endpoints[0].conditions, { ready: true, serving: false, terminating: false });
  assert.deepEqual(slice.ports, [{ name: '', port: 8080, protocol: 'TCP' }]);
});

test('a Service without a selector keeps the Endpoints its user wrote', async () => {
  await client.create(services, NS, { metadata: { name: 'external' }, spec: { ports: [{ port: 5432 }] } });
  await client.create(endpoints, NS, {
    metadata: { name: 'external' },
    subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432 }] }],
  });
  await sleep(500);
  const ep = await client.get(endpoints, NS, 'external');
  assert.deepEqual(ips(ep.subsets[0].addresses), ['192.0.2.10']);
  assert.equal(ep.metadata.labels?.['endpoints.kubernetes.io/managed-by'], undefined);
  assert.equal((await slicesOf('external')).length, 0);
});

test('a restarted controller-manager rewrites nothing, and cleans up after a Service deleted while it was down', async () => {
  for (const [svc, ip] of [
    ['steady', '10.244.0.30'],
    ['gone', '10.244.0.31'],
  ]) {
    await client.create(pods, NS, podBody(`${svc}-1`, 'node-1', 8080, { app: svc }));
    await setStatus(`${svc}-1`, ip, true);
    await client.create(services, NS, {
      metadata: { name: svc },
      spec: { selector: { app: svc }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await until(async () => (await getOrUndefined(endpoints, svc))?.subsets?.[0]?.addresses?.length === 1, `${svc} Endpoints`);
    await until(async () => (await slicesOf(svc))[0]?.endpoints?.length === 1, `${svc} slice`);
  }
  const epRv = (await client.get(endpoints, NS, 'steady')).metadata.resourceVersion;
  const sliceRvs = (await slicesOf('steady')).map((s) => `${s.metadata.name}@${s.metadata.resourceVersion}`);

  await stopControllers();
  await client.delete(services, NS, 'gone');
  await startControllers();

  await until(async () => !(await getOrUndefined(endpoints, 'gone')), 'the leftover Endpoints deleted');
  await until(async () => (await slicesOf('gone')).length === 0, 'the leftover slice deleted');
  await sleep(300);
  assert.equal((await client.get(endpoints, NS, 'steady')).metadata.resourceVersion, epRv);
  assert.deepEqual(
    (await slicesOf('steady')).map((s) => `${s.metadata.name}@${s.metadata.resourceVersion}`),
    sliceRvs,
  );
});
