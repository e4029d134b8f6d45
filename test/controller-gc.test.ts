// The garbage collector, namespace and ServiceAccount controllers against a
// real apiserver, run in-process with the Deployment and ReplicaSet
// controllers as the controller-manager runs them (no scheduler or kubelets:
// Pods stay unscheduled, so they go as soon as they are deleted). Checks
// kubectl delete --cascade=background|foreground|orphan, dangling
// references, namespace deletion with its conditions, and default
// ServiceAccounts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import type { ResourceType } from '../shared/api/resource-type.ts';
import type { KubeObject } from '../shared/api/object.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { realClock } from '../shared/clock/clock.ts';
import { runController, type RunningController } from '../shared/controller/run-controller.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { InformerFactory } from '../shared/informer/factory.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import type { ControllerContext } from '../controller-manager/context.ts';
import { CONTROLLERS } from '../controller-manager/controllers/index.ts';
import { garbageCollectorController } from '../controller-manager/controllers/garbagecollector/controller.ts';
import { namespaceController } from '../controller-manager/controllers/namespace/controller.ts';
import { serviceAccountController } from '../controller-manager/controllers/serviceaccount/controller.ts';
import { kubectl, startApiserver, type Apiserver, until as untilHelper, ok } from './helpers/index.ts';

const namespaces = findResource('', 'v1', 'namespaces')!;
const deployments = findResource('apps', 'v1', 'deployments')!;
const replicasets = findResource('apps', 'v1', 'replicasets')!;
const pods = findResource('', 'v1', 'pods')!;
const configmaps = findResource('', 'v1', 'configmaps')!;
const secrets = findResource('', 'v1', 'secrets')!;
const serviceaccounts = findResource('', 'v1', 'serviceaccounts')!;
// Every control-plane delay (the namespace controller's 5 s grace, a Pod's 30 s estimate) runs 50 times faster.
const SPEED = 50;

let server: Apiserver;
let client: KubeClient;
let factory: InformerFactory;
let running: RunningController[] = [];
let kubeconfig: string;

const until = <T>(fn: () => Promise<T | undefined | false>, what: string, ms = 15_000) => untilHelper(fn, what, ms);
async function getOrUndefined(rt: ResourceType, ns: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get<KubeObject>(rt, ns, name);
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}
const list = async (rt: ResourceType, ns: string, labelSelector?: string) =>
  (await client.list(rt, { namespace: ns, labelSelector })).items;
const k = (args: string[], input?: string) => kubectl(args, { kubeconfig, input });

const deployYaml = (name: string, ns: string, replicas = 2) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: web, image: nginx}]
`;

/** Creates a namespace and a Deployment in it, and waits for its ReplicaSet and Pods. */
async function deploymentWithPods(ns: string, name: string, replicas = 2): Promise<{ rs: any; pods: any[] }> {
  if (!(await getOrUndefined(namespaces, undefined, ns))) await client.create(namespaces, undefined, { metadata: { name: ns } });
  ok(await k(['apply', '-f', '-'], deployYaml(name, ns, replicas)));
  const rs = await until(async () => (await list(replicasets, ns, `app=${name}`))[0], `the ReplicaSet of ${name}`);
  const owned = await until(async () => {
    const ps = await list(pods, ns, `app=${name}`);
    return ps.length === replicas && ps;
  }, `${replicas} Pods of ${name}`);
  return { rs, pods: owned };
}

async function startControllers(): Promise<void> {
  const log = pino({ level: 'warn' });
  const registry = createMetricsRegistry('controller-manager');
  factory = new InformerFactory(client, { log, clock: realClock });
  const events = new EventRecorder(client, { component: 'controller-manager', log });
  const ctx: ControllerContext = { client, informers: factory, clock: realClock, log, registry, events, speed: SPEED };
  const parts = [
    CONTROLLERS.deployment(ctx),
    CONTROLLERS.replicaset(ctx),
    garbageCollectorController(ctx),
    namespaceController(ctx),
    serviceAccountController(ctx),
  ];
  factory.start();
  running = await Promise.all(parts.map((p) => runController({ ...p, workers: 5, log, registry })));
}

before(async () => {
  server = await startApiserver();
  client = new KubeClient(server.clientConfig);
  kubeconfig = server.kubeconfig;
  await startControllers();
});

after(async () => {
  factory?.stop();
  await Promise.all(running.map((c) => c.stop()));
  client?.close();
  await server?.stop();
});

test('kubectl delete deploy (background) removes its ReplicaSets and Pods', async () => {
  const { rs } = await deploymentWithPods('gc-bg', 'web');
  ok(await k(['delete', 'deploy', 'web', '-n', 'gc-bg']));
  await until(async () => !(await getOrUndefined(replicasets, 'gc-bg', rs.metadata.name)), 'the ReplicaSet to go');
  await until(async () => (await list(pods, 'gc-bg', 'app=web')).length === 0, 'the Pods to go');
});

test('kubectl delete deploy --cascade=foreground keeps the Deployment until its ReplicaSets and Pods are gone', async () => {
  const ns = 'gc-fg';
  const { rs, pods: owned } = await deploymentWithPods(ns, 'web');
  // A finalizer of somebody else's holds one Pod, so the chain stays visible.
  const held = owned[0].metadata.name;
  await client.patch(pods, ns, held, 'merge', { metadata: { finalizers: ['example.com/hold'] } });

  const out = await k(['delete', 'deploy', 'web', '-n', ns, '--cascade=foreground', '--wait=false']);
  assert.match(ok(out), /deployment.apps "web" deleted/);

  const pod = await until(async () => {
    const p = await getOrUndefined(pods, ns, held);
    return p?.metadata?.deletionTimestamp && p;
  }, 'the held Pod to be deleted');
  assert.ok(pod);
  await until(async () => (await list(pods, ns, 'app=web')).length === 1, 'the other Pod to go');
  const d = await client.get(deployments, ns, 'web');
  assert.ok(d.metadata.deletionTimestamp, 'the Deployment is being deleted');
  assert.deepEqual(d.metadata.finalizers, ['foregroundDeletion']);
  const r = await client.get(replicasets, ns, rs.metadata.name);
  assert.ok(r.metadata.deletionTimestamp, 'the ReplicaSet is deleted in the foreground too, since it has Pods');
  assert.deepEqual(r.metadata.finalizers, ['foregroundDeletion']);
  assert.match(ok(await k(['get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.metadata.deletionTimestamp}'])), /^\d{4}-/);

  await client.patch(pods, ns, held, 'merge', { metadata: { finalizers: null } });
  await until(async () => !(await getOrUndefined(deployments, ns, 'web')), 'the Deployment to go once its dependents are gone');
  assert.equal(await getOrUndefined(replicasets, ns, rs.metadata.name), undefined);
  assert.deepEqual(await list(pods, ns, 'app=web'), []);
});

test('kubectl delete deploy --cascade=orphan leaves the ReplicaSet and Pods without the Deployment as owner', async () => {
  const ns = 'gc-orphan';
  const { rs } = await deploymentWithPods(ns, 'web');
  assert.equal(rs.metadata.ownerReferences?.[0]?.kind, 'Deployment');
  // kubectl waits for the Deployment to be gone, which needs the orphan finalizer removed.
  ok(await k(['delete', 'deploy', 'web', '-n', ns, '--cascade=orphan']));
  assert.equal(await getOrUndefined(deployments, ns, 'web'), undefined);
  const orphaned = await client.get(replicasets, ns, rs.metadata.name);
  assert.deepEqual(orphaned.metadata.ownerReferences ?? [], []);
  assert.equal(orphaned.metadata.deletionTimestamp, undefined);
  const left = await list(pods, ns, 'app=web');
  assert.equal(left.length, 2, 'the ReplicaSet keeps its Pods');
  for (const p of left) assert.equal(p.metadata.ownerReferences[0].uid, rs.metadata.uid);
  // kube prints nothing here (an empty list is omitted); ksim's apiserver still stores the [] a strategic merge patch leaves.
  assert.match(ok(await k(['get', 'rs', '-n', ns, '-o', 'jsonpath={.items[*].metadata.ownerReferences}'])), /^(\[\])?$/);
});

test('a dependent whose owner uid does not exist is deleted; one with a live owner left only loses the dangling reference', async () => {
  const ns = 'gc-dangling';
  await client.create(namespaces, undefined, { metadata: { name: ns } });
  const owner = await client.create(configmaps, ns, { metadata: { name: 'owner' } });
  const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: randomUUID() };
  const impostor = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: randomUUID() };
  await client.create(configmaps, ns, { metadata: { name: 'dangling', ownerReferences: [ghost] } });
  await client.create(secrets, ns, { metadata: { name: 'wrong-uid', ownerReferences: [impostor] } });
  await client.create(configmaps, ns, {
    metadata: { name: 'half', ownerReferences: [ghost, { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] },
  });
  await until(async () => !(await getOrUndefined(configmaps, ns, 'dangling')), 'the dangling ConfigMap to be deleted');
  await until(
    async () => !(await getOrUndefined(secrets, ns, 'wrong-uid')),
    'the Secret owned by another uid under a live name to be deleted',
  );
  const half = await until(async () => {
    const cm = await client.get(configmaps, ns, 'half');
    return cm.metadata.ownerReferences?.length === 1 && cm;
  }, 'the dangling reference to be dropped');
  assert.equal(half.metadata.ownerReferences[0].uid, owner.metadata.uid);
  assert.equal(half.metadata.deletionTimestamp, undefined);
  // Deleting the remaining owner takes the dependent with it.
  await client.delete(configmaps, ns, 'owner');
  await until(async () => !(await getOrUndefined(configmaps, ns, 'half')), 'the dependent of the deleted owner to go');
});

test('deleting a namespace empties and removes it, with kube conditions while content remains', async () => {
  const ns = 'doomed';
  await deploymentWithPods(ns, 'web');
  await client.create(configmaps, ns, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  await client.create(secrets, ns, { metadata: { name: 's' }, stringData: { a: 'b' } });
  await until(() => getOrUndefined(serviceaccounts, ns, 'default'), 'the default ServiceAccount');

  ok(await k(['delete', 'ns', ns, '--wait=false']));
  const terminating = await until(async () => {
    const n = await client.get(namespaces, undefined, ns);
    const c = n.status?.conditions?.find((x: any) => x.type === 'NamespaceContentRemaining');
    return c?.status === 'True' && n;
  }, 'the NamespaceContentRemaining condition');
  assert.equal(terminating.status.phase, 'Terminating');
  const cond = (type: string) => terminating.status.conditions.find((c: any) => c.type === type);
  assert.deepEqual(
    [cond('NamespaceContentRemaining').reason, cond('NamespaceContentRemaining').message],
    ['SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
  );
  assert.deepEqual(
    [
      cond('NamespaceFinalizersRemaining').status,
      cond('NamespaceFinalizersRemaining').reason,
      cond('NamespaceFinalizersRemaining').message,
    ],
    ['True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
  );
  assert.deepEqual(
    [cond('NamespaceDeletionContentFailure').status, cond('NamespaceDeletionContentFailure').reason],
    ['False', 'ContentDeleted'],
  );
  assert.deepEqual(
    [cond('NamespaceDeletionDiscoveryFailure').status, cond('NamespaceDeletionDiscoveryFailure').reason],
    ['False', 'ResourcesDiscovered'],
  );
  for (const rt of [deployments, replicasets, pods, secrets, serviceaccounts])
    assert.deepEqual(await list(rt, ns), [], `${rt.plural} are gone`);
  const refused = await k(['create', 'configmap', 'late', '-n', ns]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /because it is being terminated/);

  await client.patch(configmaps, ns, 'held', 'merge', { metadata: { finalizers: null } });
  await until(async () => !(await getOrUndefined(namespaces, undefined, ns)), 'the namespace to be removed');
  assert.match((await k(['get', 'ns', ns])).stderr, /namespaces "doomed" not found/);
});

test('kubectl delete ns waits until the namespace is gone', async () => {
  const ns = 'short-lived';
  await deploymentWithPods(ns, 'web', 3);
  const started = Date.now();
  assert.match(ok(await k(['delete', 'ns', ns, '--timeout=20s'])), /namespace "short-lived" deleted/);
  assert.equal(await getOrUndefined(namespaces, undefined, ns), undefined);
  assert.ok(Date.now() - started < 20_000);
});

test('a new namespace gets a default ServiceAccount, recreated when deleted', async () => {
  ok(await k(['create', 'namespace', 'fresh']));
  const sa = await until(() => getOrUndefined(serviceaccounts, 'fresh', 'default'), 'the default ServiceAccount');
  ok(await k(['delete', 'serviceaccount', 'default', '-n', 'fresh']));
  const again = await until(async () => {
    const s = await getOrUndefined(serviceaccounts, 'fresh', 'default');
    return s && s.metadata?.uid !== sa.metadata?.uid && s;
  }, 'the default ServiceAccount to come back');
  assert.ok(again);
  assert.match(ok(await k(['get', 'sa', '-n', 'fresh'])), /^default\s+/m);
  for (const system of ['default', 'kube-system'])
    await until(() => getOrUndefined(serviceaccounts, system, 'default'), `default ServiceAccount in ${system}`);
});
