// Node and container faults on one `ksim up --nodes 3 --speed 20`, injected
// with `ksim chaos ... --data-dir DIR` (the supervisor's control endpoint,
// which asks kubelet-sim over its IPC channel) and watched with the real
// kubectl: a killed container restarts (RESTARTS 1); a partitioned node goes
// Unknown and gets the unreachable taint, its Pods are marked Ready=False
// and replaced elsewhere while the old ones still run on it, and heal brings
// it back Ready, with the Pod it kept Ready again; fail
// stops its containers; a killed kubelet leaves them running while the node
// goes NotReady, and start brings it back; memory pressure sets the condition
// and the taint and evicts the BestEffort Pod before the Guaranteed one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually, ksimCli, ok, startCluster, type Cluster } from './helpers/index.ts';

const run = promisify(execFile);
let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 20 });
});
after(() => c?.stop());

const WAIT_MS = 60_000;

/** `ksim chaos ARGS --data-dir DIR`: its exit code and output. */
async function chaos(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [ksimCli, 'chaos', ...args, '--data-dir', c.dataDir], { timeout: 30_000 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function chaosOk(...args: string[]): Promise<string> {
  const r = await chaos(...args);
  assert.equal(r.code, 0, `ksim chaos ${args.join(' ')}: ${r.out}`);
  return r.out;
}

const readyOf = (node: string) => c.jsonpath(['get', 'node', node], '{.status.conditions[?(@.type=="Ready")].status}');
const taintsOf = (node: string) => c.jsonpath(['get', 'node', node], '{range .spec.taints[*]}{.key}:{.effect}{"\\n"}{end}');
const conditionOf = (node: string, type: string) =>
  c.jsonpath(['get', 'node', node], `{.status.conditions[?(@.type=="${type}")].status}/{.status.conditions[?(@.type=="${type}")].reason}`);

/** A Pod pinned to `node` (no scheduler), tolerating the node's taints forever unless `tolerate` is false. */
function pinned(name: string, node: string, o: { guaranteed?: boolean; tolerate?: boolean } = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { test: 'chaos-nodes' } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      ...(o.tolerate === false ? {} : { tolerations: [{ operator: 'Exists' }] }),
      containers: [
        {
          name: 'c',
          image: 'nginx',
          ...(o.guaranteed ? { resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '100m', memory: '64Mi' } } } : {}),
        },
      ],
    },
  });
}

async function running(pod: string): Promise<void> {
  // Polled rather than `kubectl wait`: on a loaded machine one kubectl may time out its TLS handshake.
  await eventually(
    `${pod} Ready`,
    async () => (await c.k(['get', 'pod', pod, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True',
    WAIT_MS,
  );
}

/** True when the container of `pod` runs: the simulated shell answers kubectl exec. */
async function execs(pod: string): Promise<boolean> {
  const r = await c.k(['exec', pod, '--', 'echo', 'alive']);
  return r.code === 0 && r.stdout.trim() === 'alive';
}

test('kill pod: the container dies (137, Error) and kubelet restarts it: RESTARTS 1', async () => {
  ok(await c.k(['apply', '-f', '-'], pinned('victim', 'node-0')));
  await running('victim');
  const out = await chaosOk('kill', 'pod/default/victim');
  assert.match(out, /victim/);
  await eventually(
    'RESTARTS 1',
    async () => /^victim\s+1\/1\s+Running\s+1 /m.test(ok(await c.k(['get', 'pod', 'victim', '--no-headers']))),
    WAIT_MS,
  );
  const last = await c.jsonpath(
    ['get', 'pod', 'victim'],
    '{.status.containerStatuses[0].lastState.terminated.exitCode}/{.status.containerStatuses[0].lastState.terminated.reason}',
  );
  assert.equal(last, '137/Error');
  const missing = await chaos('kill', 'pod/default/no-such-pod');
  assert.notEqual(missing.code, 0);
  assert.match(missing.out, /no-such-pod/);
});

test('partition: Unknown, the unreachable taint, Pods NotReady and replaced elsewhere while the old ones run on; heal: Ready', async () => {
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'part' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'part' } },
      template: {
        metadata: { labels: { app: 'part' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          // 20 s of toleration: one second at speed 20.
          tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }],
          containers: [{ name: 'c', image: 'nginx' }],
        },
      },
    },
  };
  ok(await c.k(['apply', '-f', '-'], JSON.stringify(deploy)));
  ok(await c.k(['rollout', 'status', 'deploy/part', '--timeout=60s']));
  const placed = ok(
    await c.k(['get', 'pods', '-l', 'app=part', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\\n"}{end}']),
  )
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const [oldPod, target] = placed[0];
  // A Pod that tolerates the node's taints forever: it stays bound to the partitioned node.
  ok(await c.k(['apply', '-f', '-'], pinned('kept', target)));
  await running('kept');
  const podReady = (pod: string) => c.jsonpath(['get', 'pod', pod], '{.status.conditions[?(@.type=="Ready")].status}');
  await chaosOk('partition', `node/${target}`);
  await eventually(`${target} Unknown`, async () => (await readyOf(target)) === 'Unknown', WAIT_MS);
  await eventually(`${target} tainted unreachable`, async () => /unreachable:NoExecute/.test(await taintsOf(target)), WAIT_MS);
  assert.match(ok(await c.k(['get', 'nodes'])), new RegExp(`${target}\\s+NotReady`));
  // The node lifecycle controller's MarkPodsNotReady.
  await eventually('the kept Pod Ready=False', async () => (await podReady('kept')) === 'False', WAIT_MS);
  await eventually(
    `3 replicas running off ${target}`,
    async () => {
      const rows = ok(
        await c.k([
          'get',
          'pods',
          '-l',
          'app=part',
          '--no-headers',
          '-o',
          'custom-columns=NODE:.spec.nodeName,PHASE:.status.phase,DEL:.metadata.deletionTimestamp',
        ]),
      );
      return rows.split('\n').filter((l) => /Running\s+<none>\s*$/.test(l) && !l.startsWith(`${target} `)).length >= 3;
    },
    WAIT_MS,
  );
  // The old Pod is Terminating in the API (its kubelet cannot confirm), and its container still runs on the node.
  assert.ok(await c.jsonpath(['get', 'pod', oldPod], '{.metadata.deletionTimestamp}'), 'the old Pod is being deleted');
  assert.equal(await execs(oldPod), true, 'the old Pod still runs on the partitioned node');
  await chaosOk('heal', `node/${target}`);
  await eventually(`${target} Ready`, async () => (await readyOf(target)) === 'True', WAIT_MS);
  await eventually(`${target} untainted`, async () => !/unreachable/.test(await taintsOf(target)), WAIT_MS);
  // Back in touch, the kubelet stops the old Pod and confirms its deletion.
  await eventually('the old Pod gone', async () => (await c.k(['get', 'pod', oldPod])).code !== 0, WAIT_MS);
  // The kept Pod and the replicas are Ready again: the kubelet wrote its status over the controller's Ready=False.
  await eventually('the kept Pod Ready again', async () => (await podReady('kept')) === 'True', WAIT_MS);
  await eventually(
    'every replica Ready',
    async () => {
      const ready = await c.jsonpath(
        ['get', 'pods', '-l', 'app=part'],
        '{range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {end}',
      );
      return /^(True )+$/.test(ready) && ready.trim().split(' ').length === 3;
    },
    WAIT_MS,
  );
  // And only once: over a few status sync periods (0.5 s at speed 20) the Pod is not written again.
  const rv = await c.jsonpath(['get', 'pod', 'kept'], '{.metadata.resourceVersion}');
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(await c.jsonpath(['get', 'pod', 'kept'], '{.metadata.resourceVersion}'), rv, 'no status write loop');
  assert.equal(await podReady('kept'), 'True');
  ok(await c.k(['delete', 'pod', 'kept', '--wait=false']));
  // Gone before the pressure test, which wants node-2 to itself.
  ok(await c.k(['delete', 'deploy/part']));
  await eventually('the replicas gone', async () => ok(await c.k(['get', 'pods', '-l', 'app=part', '-o', 'name'])).trim() === '', WAIT_MS);
  await eventually('the kept Pod gone', async () => (await c.k(['get', 'pod', 'kept'])).code !== 0, WAIT_MS);
});

test('fail: the node powers off and its containers stop; start: it registers again and runs them afresh', async () => {
  ok(await c.k(['apply', '-f', '-'], pinned('powered', 'node-1')));
  await running('powered');
  await chaosOk('fail', 'node/node-1');
  assert.equal(await execs('powered'), false, 'the container stopped with the node');
  await eventually('node-1 Unknown', async () => (await readyOf('node-1')) === 'Unknown', WAIT_MS);
  await chaosOk('start', 'node/node-1');
  await eventually('node-1 Ready', async () => (await readyOf('node-1')) === 'True', WAIT_MS);
  await eventually('the Pod runs again', async () => execs('powered'), WAIT_MS);
});

test('kill node/NAME: the kubelet is gone, containers keep running, the node goes NotReady; start: Ready again', async () => {
  ok(await c.k(['apply', '-f', '-'], pinned('orphan', 'node-1')));
  await running('orphan');
  const startedAt = await c.jsonpath(['get', 'pod', 'orphan'], '{.status.containerStatuses[0].state.running.startedAt}');
  await chaosOk('kill', 'node/node-1');
  await eventually('node-1 Unknown', async () => (await readyOf('node-1')) === 'Unknown', WAIT_MS);
  assert.equal(await execs('orphan'), true, 'the container runs on without its kubelet');
  await chaosOk('start', 'node/node-1');
  await eventually('node-1 Ready', async () => (await readyOf('node-1')) === 'True', WAIT_MS);
  await eventually(
    'the Pod Ready again',
    async () => (await c.jsonpath(['get', 'pod', 'orphan'], '{.status.conditions[?(@.type=="Ready")].status}')) === 'True',
    WAIT_MS,
  );
  // Taken over, not restarted.
  assert.equal(await c.jsonpath(['get', 'pod', 'orphan'], '{.status.containerStatuses[0].restartCount}'), '0');
  assert.equal(await c.jsonpath(['get', 'pod', 'orphan'], '{.status.containerStatuses[0].state.running.startedAt}'), startedAt);
});

test('pressure memory: the condition and the taint; the BestEffort Pod is evicted, the Guaranteed one stays', async () => {
  ok(await c.k(['apply', '-f', '-'], pinned('besteffort', 'node-2', { tolerate: false })));
  ok(await c.k(['apply', '-f', '-'], pinned('guaranteed', 'node-2', { tolerate: false, guaranteed: true })));
  await running('besteffort');
  await running('guaranteed');
  const onNode = ok(await c.k(['get', 'pods', '--field-selector', 'spec.nodeName=node-2', '-o', 'name']));
  assert.deepEqual(
    onNode.trim().split('\n').sort(),
    ['pod/besteffort', 'pod/guaranteed'],
    'node-2 runs only these two of the default namespace',
  );
  await chaosOk('pressure', 'node/node-2', 'memory');
  await eventually(
    'MemoryPressure True',
    async () => (await conditionOf('node-2', 'MemoryPressure')) === 'True/KubeletHasInsufficientMemory',
    WAIT_MS,
  );
  await eventually(
    'the memory-pressure taint',
    async () => /node\.kubernetes\.io\/memory-pressure:NoSchedule/.test(await taintsOf('node-2')),
    WAIT_MS,
  );
  await eventually(
    'besteffort Evicted',
    async () => (await c.jsonpath(['get', 'pod', 'besteffort'], '{.status.phase}/{.status.reason}')) === 'Failed/Evicted',
    WAIT_MS,
  );
  assert.match(
    await c.jsonpath(['get', 'pod', 'besteffort'], '{.status.message}'),
    /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: /,
  );
  assert.equal(
    await c.jsonpath(['get', 'pod', 'besteffort'], '{.status.conditions[?(@.type=="DisruptionTarget")].reason}'),
    'TerminationByKubelet',
  );
  await eventually(
    'the Evicted event',
    async () => /Evicted/.test(ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=besteffort,reason=Evicted']))),
    WAIT_MS,
  );
  assert.equal(await c.jsonpath(['get', 'pod', 'guaranteed'], '{.status.phase}'), 'Running', 'the Guaranteed Pod stays');
  await chaosOk('recover');
  await eventually(
    'MemoryPressure False',
    async () => (await conditionOf('node-2', 'MemoryPressure')) === 'False/KubeletHasSufficientMemory',
    WAIT_MS,
  );
  await eventually('the taint gone', async () => !/memory-pressure/.test(await taintsOf('node-2')), WAIT_MS);
  assert.equal(await c.jsonpath(['get', 'pod', 'guaranteed'], '{.status.phase}'), 'Running');
});

test('skew kubelet-sim +120s: the timestamps the kubelets write (lease renewTime) run ahead, and are right again after recover', async () => {
  const renewAhead = async () =>
    Date.parse(await c.jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-0'], '{.spec.renewTime}')) - Date.now();
  await chaosOk('skew', 'kubelet-sim', '+120s');
  await eventually('renewTime 2 minutes ahead', async () => (await renewAhead()) > 100_000, WAIT_MS);
  assert.equal(await readyOf('node-0'), 'True');
  await chaosOk('recover');
  await eventually('renewTime right again', async () => Math.abs(await renewAhead()) < 20_000, WAIT_MS);
});
