// The official JavaScript client, @kubernetes/client-node, against `ksim up`
// over HTTPS with the admin kubeconfig, in both its 1.x (fetch, object
// parameters) and its 0.22 (request, positional parameters and {response,
// body}) generations: the same cases run for each. Typed CoreV1Api and
// AppsV1Api calls, Watch, makeInformer (with a watch cut by a TCP relay and
// resumed from its resourceVersion, catching up with what changed while it
// was down), Exec (stdout and stderr on their own channels, the exit status),
// Attach, a followed Log, the metrics.k8s.io helpers topNodes/topPods, and
// PortForward through a local listener.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import * as k1 from '@kubernetes/client-node';
import * as k0 from 'client-node-0.22';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Deployment as AppsDeployment } from 'kubernetes-types/apps/v1.js';
import { ok, startCluster, until, type Cluster } from './helpers/index.ts';

let c: Cluster;
let kubeconfigText: string;

/** What a failed call says: its HTTP code and the metav1.Status it carried. */
interface Failure {
  code: number;
  status: { reason?: string; message?: string; code?: number };
}

type PatchType = 'merge' | 'json' | 'strategic';

/** The V1Status an Exec's status callback receives (the same shape in both versions). */
interface ExecStatus {
  status?: string;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/** The streaming helpers: the same signatures in both versions (their KubeConfig types differ). */
interface Streams {
  exec: {
    exec(
      ns: string,
      pod: string,
      container: string,
      command: string[],
      out: Writable | null,
      err: Writable | null,
      inp: Readable | null,
      tty: boolean,
      cb: (s: ExecStatus) => void,
    ): Promise<{ close(): void }>;
  };
  attach: {
    attach(
      ns: string,
      pod: string,
      container: string,
      out: Writable,
      err: Writable,
      inp: Readable,
      tty: boolean,
    ): Promise<{ close(): void }>;
  };
  log: { log(ns: string, pod: string, container: string, out: Writable, options: { follow?: boolean }): Promise<{ abort(): void }> };
  portForward: {
    portForward(ns: string, pod: string, ports: number[], out: Writable, err: Writable | null, inp: Readable): Promise<unknown>;
  };
  watch: {
    watch(
      path: string,
      query: Record<string, string>,
      cb: (type: string, obj: { metadata?: { name?: string; resourceVersion?: string } }) => void,
      done: (err: unknown) => void,
    ): Promise<{ abort(): void }>;
  };
}

/** An informer's surface used here (both versions). */
interface InformerLike {
  on(verb: 'add' | 'update' | 'delete', cb: (obj: ConfigMap) => void): void;
  on(verb: 'error', cb: (err: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  list(): ConfigMap[];
}

interface Top {
  nodes: { name: string; cpuCapacity: number; memoryCapacity: number }[];
  pods: { name: string; memory: number; containers: string[] }[];
}

/** One client generation, behind the calls this file makes. */
interface Flavor {
  name: string;
  createConfigMap(ns: string, cm: ConfigMap): Promise<ConfigMap>;
  listConfigMaps(ns: string): Promise<{ items: ConfigMap[]; resourceVersion: string }>;
  readConfigMap(ns: string, name: string): Promise<ConfigMap>;
  patchConfigMap(ns: string, name: string, body: unknown, type: PatchType): Promise<ConfigMap>;
  replaceConfigMap(ns: string, cm: ConfigMap): Promise<ConfigMap>;
  deleteConfigMap(ns: string, name: string): Promise<{ status?: string; details?: { name?: string; kind?: string } }>;
  createDeployment(ns: string, d: AppsDeployment): Promise<AppsDeployment>;
  listDeployments(ns: string): Promise<AppsDeployment[]>;
  readDeployment(ns: string, name: string): Promise<AppsDeployment>;
  scaleDeployment(ns: string, name: string, replicas: number): Promise<number | undefined>;
  deleteDeployment(ns: string, name: string): Promise<void>;
  /** The HTTP code and Status of a rejected call. */
  failure(err: unknown): Failure;
  streams(): Streams;
  /** An informer on a namespace's ConfigMaps through a kubeconfig whose server is `server`. */
  informer(ns: string, server: string): InformerLike;
  top(ns: string): Promise<Top>;
}

const contentType: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

function withServer(server: string): string {
  return kubeconfigText.replace(/server: \S+/, `server: ${server}`);
}

function v1x(): Flavor {
  const kc = new k1.KubeConfig();
  kc.loadFromString(kubeconfigText);
  const core = kc.makeApiClient(k1.CoreV1Api);
  const apps = kc.makeApiClient(k1.AppsV1Api);
  const as = <T>(x: unknown) => x as T;
  return {
    name: '@kubernetes/client-node 1.x',
    createConfigMap: async (namespace, body) => as(await core.createNamespacedConfigMap({ namespace, body: as(body) })),
    listConfigMaps: async (namespace) => {
      const l = await core.listNamespacedConfigMap({ namespace });
      return { items: as(l.items), resourceVersion: l.metadata?.resourceVersion ?? '' };
    },
    readConfigMap: async (namespace, name) => as(await core.readNamespacedConfigMap({ namespace, name })),
    patchConfigMap: async (namespace, name, body, type) =>
      as(await core.patchNamespacedConfigMap({ namespace, name, body }, k1.setHeaderOptions('Content-Type', contentType[type]))),
    replaceConfigMap: async (namespace, body) =>
      as(await core.replaceNamespacedConfigMap({ namespace, name: body.metadata!.name!, body: as(body) })),
    deleteConfigMap: async (namespace, name) => as(await core.deleteNamespacedConfigMap({ namespace, name })),
    createDeployment: async (namespace, body) => as(await apps.createNamespacedDeployment({ namespace, body: as(body) })),
    listDeployments: async (namespace) => as((await apps.listNamespacedDeployment({ namespace })).items),
    readDeployment: async (namespace, name) => as(await apps.readNamespacedDeployment({ namespace, name })),
    scaleDeployment: async (namespace, name, replicas) =>
      (
        await apps.patchNamespacedDeploymentScale(
          { namespace, name, body: { spec: { replicas } } },
          k1.setHeaderOptions('Content-Type', contentType.merge),
        )
      ).spec?.replicas,
    deleteDeployment: async (namespace, name) => {
      await apps.deleteNamespacedDeployment({ namespace, name, propagationPolicy: 'Foreground' });
    },
    failure(err) {
      assert.ok(err instanceof k1.ApiException, `not an ApiException: ${String(err)}`);
      return { code: err.code, status: JSON.parse(err.body as string) };
    },
    streams: () => ({
      exec: as(new k1.Exec(kc)),
      attach: new k1.Attach(kc),
      log: new k1.Log(kc),
      portForward: new k1.PortForward(kc),
      watch: new k1.Watch(kc),
    }),
    informer(namespace, server) {
      const relayed = new k1.KubeConfig();
      relayed.loadFromString(withServer(server));
      const relayedCore = relayed.makeApiClient(k1.CoreV1Api);
      return as(
        k1.makeInformer(relayed, `/api/v1/namespaces/${namespace}/configmaps`, () => relayedCore.listNamespacedConfigMap({ namespace })),
      );
    },
    async top(namespace) {
      const metrics = new k1.Metrics(kc);
      const nodes = await k1.topNodes(core);
      const pods = await k1.topPods(core, metrics, namespace);
      return {
        nodes: nodes.map((n) => ({
          name: n.Node.metadata!.name!,
          cpuCapacity: Number(n.CPU.Capacity),
          memoryCapacity: Number(n.Memory.Capacity),
        })),
        pods: pods.map((p) => ({
          name: p.Pod.metadata!.name!,
          memory: Number(p.Memory.CurrentUsage),
          containers: p.Containers.map((x) => x.Container),
        })),
      };
    },
  };
}

function v022(): Flavor {
  const kc = new k0.KubeConfig();
  kc.loadFromString(kubeconfigText);
  const core = kc.makeApiClient(k0.CoreV1Api);
  const apps = kc.makeApiClient(k0.AppsV1Api);
  const as = <T>(x: unknown) => x as T;
  const headers = (type: PatchType) => ({ headers: { 'Content-Type': contentType[type] } });
  return {
    name: '@kubernetes/client-node 0.22',
    createConfigMap: async (ns, body) => as((await core.createNamespacedConfigMap(ns, as(body))).body),
    listConfigMaps: async (ns) => {
      const l = (await core.listNamespacedConfigMap(ns)).body;
      return { items: as(l.items), resourceVersion: l.metadata?.resourceVersion ?? '' };
    },
    readConfigMap: async (ns, name) => as((await core.readNamespacedConfigMap(name, ns)).body),
    patchConfigMap: async (ns, name, body, type) =>
      as(
        (
          await core.patchNamespacedConfigMap(
            name,
            ns,
            body as object,
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            headers(type),
          )
        ).body,
      ),
    replaceConfigMap: async (ns, body) => as((await core.replaceNamespacedConfigMap(body.metadata!.name!, ns, as(body))).body),
    deleteConfigMap: async (ns, name) => as((await core.deleteNamespacedConfigMap(name, ns)).body),
    createDeployment: async (ns, body) => as((await apps.createNamespacedDeployment(ns, as(body))).body),
    listDeployments: async (ns) => as((await apps.listNamespacedDeployment(ns)).body.items),
    readDeployment: async (ns, name) => as((await apps.readNamespacedDeployment(name, ns)).body),
    scaleDeployment: async (ns, name, replicas) =>
      (
        await apps.patchNamespacedDeploymentScale(
          name,
          ns,
          { spec: { replicas } },
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          headers('merge'),
        )
      ).body.spec?.replicas,
    deleteDeployment: async (ns, name) => {
      await apps.deleteNamespacedDeployment(name, ns, undefined, undefined, undefined, undefined, 'Foreground');
    },
    failure(err) {
      assert.ok(err instanceof k0.HttpError, `not an HttpError: ${String(err)}`);
      return { code: err.statusCode!, status: as(err.body) };
    },
    streams: () => ({
      exec: as(new k0.Exec(kc)),
      attach: new k0.Attach(kc),
      log: new k0.Log(kc),
      portForward: new k0.PortForward(kc),
      watch: new k0.Watch(kc),
    }),
    informer(ns, server) {
      const relayed = new k0.KubeConfig();
      relayed.loadFromString(withServer(server));
      const relayedCore = relayed.makeApiClient(k0.CoreV1Api);
      return as(k0.makeInformer(relayed, `/api/v1/namespaces/${ns}/configmaps`, () => relayedCore.listNamespacedConfigMap(ns)));
    },
    async top(ns) {
      const metrics = new k0.Metrics(kc);
      const nodes = await k0.topNodes(core);
      const pods = await k0.topPods(core, metrics, ns);
      return {
        nodes: nodes.map((n) => ({
          name: n.Node.metadata!.name!,
          cpuCapacity: Number(n.CPU.Capacity),
          memoryCapacity: Number(n.Memory.Capacity),
        })),
        pods: pods.map((p) => ({
          name: p.Pod.metadata!.name!,
          memory: Number(p.Memory.CurrentUsage),
          containers: p.Containers.map((x) => x.Container),
        })),
      };
    },
  };
}

/** A TCP relay to the apiserver whose connections can be cut (and new ones refused) and then let through again. */
interface Relay {
  server: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function relay(target: URL): Promise<Relay> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const srv: Server = createServer((down) => {
    if (refusing) return down.destroy();
    const up = connect(Number(target.port), target.hostname);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    down.pipe(up).pipe(down);
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  return {
    server: `https://127.0.0.1:${port}`,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}

const sink = (): { stream: PassThrough; text: () => string } => {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (d: string) => (text += d));
  return { stream, text: () => text };
};

const FLAVORS: [string, () => Flavor][] = [
  ['1x', v1x],
  ['022', v022],
];

const podsOf = (ns: string) => `apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: v1
kind: Pod
metadata: {name: shell, namespace: ${ns}}
spec:
  containers: [{name: main, image: busybox, command: [sleep, "360000"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: echo, namespace: ${ns}}
spec:
  containers:
  - name: main
    image: busybox
    stdin: true
    command: [sh, -c, 'while read l; do echo "out $l"; echo "err $l" >&2; done']
---
apiVersion: v1
kind: Pod
metadata: {name: ticker, namespace: ${ns}}
spec:
  containers: [{name: main, image: busybox, command: [sh, -c, 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 10; done']}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: ${ns}}
spec:
  containers: [{name: main, image: "nginx:1.27", ports: [{containerPort: 80}]}]
`;

before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  kubeconfigText = await readFile(c.kubeconfig, 'utf8');
  for (const [ns] of FLAVORS) ok(await c.k(['apply', '-f', '-'], podsOf(`cn${ns}`)));
  for (const [ns] of FLAVORS)
    await until(
      async () => {
        const phases = ok(await c.k(['get', 'pods', '-n', `cn${ns}`, '-o', 'jsonpath={.items[*].status.phase}']));
        return phases === 'Running Running Running Running';
      },
      `the Pods of cn${ns} Running`,
      30_000,
    );
});
after(() => c?.stop());

for (const [suffix, make] of FLAVORS) {
  const ns = `cn${suffix}`;
  let f: Flavor;
  describe(make === v1x ? '@kubernetes/client-node 1.x' : '@kubernetes/client-node 0.22', { timeout: 120_000 }, () => {
    before(() => {
      f = make();
    });

    test('CoreV1Api: create, list, read, merge/JSON/strategic patches, replace, delete; a missing object is 404 NotFound', async () => {
      const created = await f.createConfigMap(ns, { metadata: { name: 'typed' }, data: { a: '1' } });
      assert.equal(created.metadata?.namespace, ns);
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      const listed = await f.listConfigMaps(ns);
      assert.ok(
        listed.items.some((i) => i.metadata?.name === 'typed'),
        JSON.stringify(listed.items.map((i) => i.metadata?.name)),
      );
      assert.match(listed.resourceVersion, /^\d+$/);
      assert.deepEqual((await f.readConfigMap(ns, 'typed')).data, { a: '1' });
      assert.deepEqual((await f.patchConfigMap(ns, 'typed', { data: { b: '2' } }, 'merge')).data, { a: '1', b: '2' });
      assert.deepEqual((await f.patchConfigMap(ns, 'typed', [{ op: 'remove', path: '/data/a' }], 'json')).data, { b: '2' });
      const patched = await f.patchConfigMap(ns, 'typed', { data: { c: '3' } }, 'strategic');
      assert.deepEqual(patched.data, { b: '2', c: '3' });
      const replaced = await f.replaceConfigMap(ns, { ...patched, data: { d: '4' } });
      assert.deepEqual(replaced.data, { d: '4' });
      assert.notEqual(replaced.metadata?.resourceVersion, patched.metadata?.resourceVersion);

      // A replace from a stale resourceVersion is a conflict.
      const stale = await f.replaceConfigMap(ns, { ...patched, data: { e: '5' } }).then(
        () => assert.fail('a stale replace succeeded'),
        (err: unknown) => f.failure(err),
      );
      assert.equal(stale.code, 409);
      assert.equal(stale.status.reason, 'Conflict');
      assert.equal(
        stale.status.message,
        'Operation cannot be fulfilled on configmaps "typed": the object has been modified; please apply your changes to the latest version and try again',
      );

      const deleted = await f.deleteConfigMap(ns, 'typed');
      assert.equal(deleted.status, 'Success');
      assert.equal(deleted.details?.name, 'typed');
      const missing = await f.readConfigMap(ns, 'typed').then(
        () => assert.fail('read a deleted ConfigMap'),
        (err: unknown) => f.failure(err),
      );
      assert.equal(missing.code, 404);
      assert.equal(missing.status.reason, 'NotFound');
      assert.equal(missing.status.message, 'configmaps "typed" not found');
    });

    test('AppsV1Api: a Deployment created, listed, scaled by a patch of its scale subresource, its Pods ready, deleted', async () => {
      const d = await f.createDeployment(ns, {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      });
      // Defaulted by the server as kube does.
      assert.equal(d.spec?.strategy?.type, 'RollingUpdate');
      assert.equal(d.spec?.revisionHistoryLimit, 10);
      assert.deepEqual(
        (await f.listDeployments(ns)).map((x) => x.metadata?.name),
        ['web'],
      );
      assert.equal(await f.scaleDeployment(ns, 'web', 2), 2);
      await until(async () => (await f.readDeployment(ns, 'web')).status?.readyReplicas === 2, 'web with 2 ready replicas', 30_000);
      await f.deleteDeployment(ns, 'web');
      await until(async () => (await f.listDeployments(ns)).length === 0, 'web gone', 30_000);
      await until(
        async () => ok(await c.k(['get', 'pods', '-n', ns, '-l', 'app=web', '-o', 'name'])) === '',
        'the Pods of web gone',
        30_000,
      );
    });

    test('Watch: ADDED, MODIFIED and DELETED from a list resourceVersion, then the stream ends when aborted', async () => {
      const { resourceVersion } = await f.listConfigMaps(ns);
      const seen: string[] = [];
      let ended: unknown = 'not yet';
      const req = await f.streams().watch.watch(
        `/api/v1/namespaces/${ns}/configmaps`,
        { resourceVersion },
        (type, obj) => seen.push(`${type} ${obj.metadata?.name}`),
        (err) => (ended = err),
      );
      await f.createConfigMap(ns, { metadata: { name: 'watched' } });
      await f.patchConfigMap(ns, 'watched', { data: { k: 'v' } }, 'merge');
      await f.deleteConfigMap(ns, 'watched');
      await until(() => seen.length >= 3, `three events (saw ${JSON.stringify(seen)})`);
      assert.deepEqual(seen, ['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
      req.abort();
      await until(() => ended !== 'not yet', 'the watch to end');
    });

    test('makeInformer: add, update, delete; a cut watch resumes from its resourceVersion and catches up', async () => {
      const r = await relay(new URL(c.url));
      const inf = f.informer(ns, r.server);
      const events: string[] = [];
      inf.on('add', (o) => events.push(`add ${o.metadata?.name}`));
      inf.on('update', (o) => events.push(`update ${o.metadata?.name} ${JSON.stringify(o.data ?? {})}`));
      inf.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
      // The client's documented pattern: an informer stops on an error and the caller starts it again.
      let stopped = false;
      inf.on('error', () => {
        if (!stopped) setTimeout(() => void inf.start().catch(() => undefined), 200);
      });
      try {
        await f.createConfigMap(ns, { metadata: { name: 'inf-keep' }, data: { v: '1' } });
        await f.createConfigMap(ns, { metadata: { name: 'inf-gone' } });
        await inf.start();
        await until(() => events.includes('add inf-keep') && events.includes('add inf-gone'), `the initial adds (${events.join(', ')})`);
        await f.patchConfigMap(ns, 'inf-keep', { data: { v: '2' } }, 'merge');
        await until(() => events.includes('update inf-keep {"v":"2"}'), `the update (${events.join(', ')})`);

        // The watch goes down; meanwhile one object changes, one goes and one comes.
        r.cut();
        events.length = 0;
        await f.patchConfigMap(ns, 'inf-keep', { data: { v: '3' } }, 'merge');
        await f.deleteConfigMap(ns, 'inf-gone');
        await f.createConfigMap(ns, { metadata: { name: 'inf-new' } });
        await new Promise((res) => setTimeout(res, 1000));
        assert.deepEqual(events, [], 'events while the watch was cut');
        r.restore();
        await until(() => events.length >= 3, `the catch-up events (${events.join(', ')})`, 20_000);
        assert.deepEqual(events, ['update inf-keep {"v":"3"}', 'delete inf-gone', 'add inf-new']);
        const cached = inf
          .list()
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort();
        const fresh = (await f.listConfigMaps(ns)).items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
        assert.deepEqual(cached, fresh);
      } finally {
        stopped = true;
        await inf.stop();
        await r.close();
      }
    });

    test('Exec: stdout and stderr on their own channels; exit 0 is Success, exit 3 is NonZeroExitCode with the code', async () => {
      const run = async (command: string[], input?: string) => {
        const out = sink();
        const err = sink();
        const inp = input === undefined ? null : new PassThrough();
        const status = await new Promise<ExecStatus>((resolve, reject) => {
          f.streams()
            .exec.exec(ns, 'shell', 'main', command, out.stream, err.stream, inp, false, resolve)
            .then(() => inp?.write(input), reject);
        });
        // stdin is written, not ended: 0.22 closes the WebSocket when its stdin ends, before the output is back.
        // The status arrives on its own channel; the output channels may still be draining.
        await new Promise((res) => setImmediate(res));
        return { out: out.text(), err: err.text(), status };
      };
      const good = await run(['sh', '-c', 'echo to-out; echo to-err >&2']);
      assert.deepEqual([good.out, good.err, good.status.status], ['to-out\n', 'to-err\n', 'Success']);

      const bad = await run(['sh', '-c', 'echo partial; echo failing >&2; exit 3']);
      assert.equal(bad.out, 'partial\n');
      assert.equal(bad.err, 'failing\n');
      assert.equal(bad.status.status, 'Failure');
      assert.equal(bad.status.reason, 'NonZeroExitCode');
      assert.equal(
        bad.status.message,
        'command terminated with non-zero exit code: error executing command [sh -c echo partial; echo failing >&2; exit 3], exit code 3',
      );
      assert.deepEqual(bad.status.details?.causes, [{ reason: 'ExitCode', message: '3' }]);

      const piped = await run(['sh', '-c', 'read a; read b; echo "$b $a"'], 'first\nsecond\n');
      assert.deepEqual([piped.out, piped.status.status], ['second first\n', 'Success']);
    });

    test('Attach: stdin reaches the running container, its stdout and stderr come back apart', async () => {
      const out = sink();
      const err = sink();
      const inp = new PassThrough();
      const ws = await f.streams().attach.attach(ns, 'echo', 'main', out.stream, err.stream, inp, false);
      try {
        inp.write(`hello-${suffix}\n`);
        await until(() => out.text().includes(`out hello-${suffix}\n`) && err.text().includes(`err hello-${suffix}\n`), 'the echoes');
        assert.equal(out.text(), `out hello-${suffix}\n`);
        assert.equal(err.text(), `err hello-${suffix}\n`);
      } finally {
        ws.close();
      }
    });

    test('Log with follow: the lines written so far, then new ones as the container writes them', async () => {
      const out = sink();
      const req = await f.streams().log.log(ns, 'ticker', 'main', out.stream, { follow: true });
      try {
        await until(() => out.text().includes('\n'), 'a first line');
        const first = out.text().trim().split('\n').length;
        // Lines are 1 s apart at --speed 10: two more must arrive over the open stream.
        await until(() => out.text().trim().split('\n').length >= first + 2, 'two more lines', 15_000);
        const lines = out.text().trim().split('\n');
        assert.deepEqual(
          lines,
          lines.map((_, i) => `tick ${i + 1}`),
        );
      } finally {
        req.abort();
      }
    });

    test('Metrics: topNodes with each node and its capacity, topPods with each Running Pod and its containers', async () => {
      let last: Top | undefined;
      const top = await until(
        async () => {
          last = await f.top(ns);
          return last.pods.length === 4 ? last : undefined;
        },
        'metrics for the four Pods',
        60_000,
      ).catch((err: Error) => assert.fail(`${err.message}; the last answer: ${JSON.stringify(last)}`));
      const nodes = JSON.parse(ok(await c.k(['get', 'nodes', '-o', 'json']))).items as {
        metadata: { name: string };
        status: { capacity: { cpu: string } };
      }[];
      assert.deepEqual(
        top.nodes.map((n) => [n.name, n.cpuCapacity]).sort(),
        nodes.map((n) => [n.metadata.name, Number(n.status.capacity.cpu)]).sort(),
      );
      for (const n of top.nodes) assert.ok(Number(n.memoryCapacity) > 0, `${n.name} memory capacity`);
      assert.deepEqual(top.pods.map((p) => p.name).sort(), ['echo', 'shell', 'ticker', 'web']);
      for (const p of top.pods) {
        assert.deepEqual(p.containers, ['main']);
        assert.ok(Number(p.memory) > 0, `${p.name} memory usage`);
      }
    });

    // The client speaks the WebSocket channel protocol (v4.channel.k8s.io, a data and an error channel per port,
    // each opened by the port as a little-endian uint16), which kube-apiserver passes through to the kubelet.
    test('PortForward: a local listener whose connections reach nginx:80 in the Pod', async () => {
      const pf = f.streams().portForward;
      const server = createServer((socket) => {
        pf.portForward(ns, 'web', [80], socket, null, socket).catch(() => socket.destroy());
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const port = (server.address() as { port: number }).port;
        for (const path of ['/', '/missing']) {
          const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } });
          const body = await res.text();
          if (path === '/') {
            assert.equal(res.status, 200);
            assert.match(body, /<title>Welcome to nginx!<\/title>/);
          } else assert.equal(res.status, 404);
        }
      } finally {
        server.close();
      }
    });
  });
}
