// kubelet-sim end to end: a real apiserver, one kubelet-sim process with three
// nodes at --speed 10, the real kubectl. Pods are created with spec.nodeName
// (no scheduler). Checks what a learner sees: nodes Ready with INTERNAL-IP,
// leases renewing, Pods Running / Completed / Error / CrashLoopBackOff /
// ImagePullBackOff with kube's events, logs, exec, graceful deletion, and the
// chaos switches.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import WebSocket from 'ws';
import {
  kubectl as runKubectl,
  repoRoot,
  spawnTracked,
  startApiserver,
  tempDir,
  writeKubeconfig,
  type Apiserver,
  type TrackedProcess,
  ok,
} from './helpers/index.ts';

let server: Apiserver;
let kubeconfig: string;
let sim: TrackedProcess;
let simPort = 0;
let simLog = '';

async function startSim(): Promise<void> {
  simLog = '';
  sim = await spawnTracked(
    process.execPath,
    [join(repoRoot, 'kubelet-sim', 'bin.mjs'), '--kubeconfig', kubeconfig, '--nodes', '3', '--speed', '10', '--port', '0'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  sim.child.stdout!.setEncoding('utf8').on('data', (d: string) => (simLog += d));
  sim.child.stderr!.setEncoding('utf8').on('data', (d: string) => (simLog += d));
  await until(() => /serving on [\d.]+:(\d+)/.test(simLog), 'kubelet-sim to listen');
  simPort = Number(/serving on [\d.]+:(\d+)/.exec(simLog)![1]);
  await until(async () => (await fetch(`http://127.0.0.1:${simPort}/readyz`)).ok, 'kubelet-sim ready');
}

before(async () => {
  server = await startApiserver();
  const dir = await tempDir('kubelet-sim');
  kubeconfig = await writeKubeconfig(join(dir, 'kubeconfig'), server.url);
  await startSim();
});
after(async () => {
  await sim?.stop();
  await server?.stop();
});

const k = (...args: string[]) => runKubectl(args, { kubeconfig });
const apply = (yaml: string) => runKubectl(['apply', '--validate=false', '-f', '-'], { kubeconfig, input: yaml });
async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await cond()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${simLog.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const jsonpath = async (args: string[], path: string) => ok(await k(...args, '-o', `jsonpath=${path}`));
const pod = (name: string, node: string, spec: string, policy = 'Always') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: ${node}
  restartPolicy: ${policy}
  terminationGracePeriodSeconds: 30
${spec}
`;

test('nodes register Ready with capacity, nodeInfo, addresses and renewing leases', async () => {
  await until(
    async () =>
      ok(await k('get', 'nodes'))
        .split('\n')
        .filter((l) => / Ready /.test(l)).length === 3,
    'three Ready nodes',
  );
  const wide = ok(await k('get', 'nodes', '-o', 'wide'));
  assert.match(wide, /node-0\s+Ready\s+<none>\s+\S+\s+v1\.35\.0\s+172\.18\.0\.2/);
  assert.equal(
    await jsonpath(['get', 'node', 'node-1'], '{.status.capacity.cpu}/{.status.capacity.memory}/{.status.capacity.pods}/{.spec.podCIDR}'),
    '4/16Gi/110/10.244.1.0/24',
  );
  assert.equal(await jsonpath(['get', 'node', 'node-1'], '{.metadata.labels.kubernetes\\.io/hostname}'), 'node-1');
  const first = await jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-0'], '{.spec.renewTime}');
  await until(
    async () => (await jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-0'], '{.spec.renewTime}')) !== first,
    'a lease renewal',
    5000,
  );
});

test('pods run, complete, fail, crash-loop and fail to pull, as on a real node', async () => {
  ok(
    await apply(
      [
        pod('web', 'node-0', '  containers: [{name: nginx, image: nginx:1.27}]'),
        pod(
          'hello',
          'node-1',
          '  containers: [{name: main, image: busybox:1.36, command: [sh, -c, "echo hello from $(hostname); sleep 2"]}]',
          'Never',
        ),
        pod('fail3', 'node-1', '  containers: [{name: main, image: busybox:1.36, command: [sh, -c, "exit 3"]}]', 'Never'),
        pod('crash', 'node-2', '  containers: [{name: main, image: busybox:1.36, command: [sh, -c, "echo boom; exit 1"]}]'),
        pod('badimg', 'node-2', '  containers: [{name: main, image: registry.invalid/team/app:v1}]'),
        pod(
          'unready',
          'node-0',
          '  containers: [{name: main, image: busybox:1.36, command: [sleep, "3600"], readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1}}]',
        ),
      ].join('---\n'),
    ),
  );
  await until(
    async () =>
      (await jsonpath(['get', 'pod', 'web'], '{.status.phase}/{.status.conditions[?(@.type=="Ready")].status}')) === 'Running/True',
    'web Running and Ready',
  );
  assert.match(await jsonpath(['get', 'pod', 'web'], '{.status.podIP} {.status.hostIP}'), /^10\.244\.0\.\d+ 172\.18\.0\.2$/);
  await until(async () => (await jsonpath(['get', 'pod', 'hello'], '{.status.phase}')) === 'Succeeded', 'hello Succeeded');
  const logs = await (await fetch(`http://127.0.0.1:${simPort}/containerLogs/default/hello/main`)).text();
  assert.equal(logs, 'hello from hello\n');
  await until(async () => (await jsonpath(['get', 'pod', 'fail3'], '{.status.phase}')) === 'Failed', 'fail3 Failed');
  assert.equal(
    await jsonpath(
      ['get', 'pod', 'fail3'],
      '{.status.containerStatuses[0].state.terminated.exitCode}/{.status.containerStatuses[0].state.terminated.reason}',
    ),
    '3/Error',
  );
  await until(
    async () => Number(await jsonpath(['get', 'pod', 'crash'], '{.status.containerStatuses[0].restartCount}')) >= 2,
    'crash restarting',
  );
  await until(
    async () => (await jsonpath(['get', 'pod', 'crash'], '{.status.containerStatuses[0].state.waiting.reason}')) === 'CrashLoopBackOff',
    'CrashLoopBackOff',
  );
  assert.equal(await jsonpath(['get', 'pod', 'crash'], '{.status.phase}'), 'Running');
  await until(
    async () => (await jsonpath(['get', 'pod', 'badimg'], '{.status.containerStatuses[0].state.waiting.reason}')) === 'ImagePullBackOff',
    'ImagePullBackOff',
  );
  const events = ok(
    await k(
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=badimg',
      '-o',
      'jsonpath={range .items[*]}{.reason}:{.message}{"\\n"}{end}',
    ),
  );
  assert.match(events, /^Failed:Error: ErrImagePull$/m);
  assert.match(events, /^BackOff:Back-off pulling image "registry.invalid\/team\/app:v1"$/m);
  assert.equal(
    await jsonpath(['get', 'pod', 'unready'], '{.status.phase}/{.status.conditions[?(@.type=="Ready")].status}'),
    'Running/False',
  );
});

test('exec runs in the simulated shell over the WebSocket protocol kubectl speaks', async () => {
  await until(async () => (await jsonpath(['get', 'pod', 'unready'], '{.status.phase}')) === 'Running', 'unready running');
  const ws = new WebSocket(
    `ws://127.0.0.1:${simPort}/exec/default/unready/main?command=sh&command=-c&command=${encodeURIComponent('touch /tmp/ready; echo $HOSTNAME; exit 4')}&stdout=true&stderr=true`,
    ['v5.channel.k8s.io'],
  );
  const frames: { ch: number; text: string }[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (d: Buffer) => frames.push({ ch: d[0], text: d.subarray(1).toString() }));
    ws.on('close', () => resolve());
    ws.on('error', reject);
  });
  assert.deepEqual(frames[0], { ch: 1, text: 'unready\n' });
  const status = JSON.parse(frames.find((f) => f.ch === 3)!.text);
  assert.equal(status.reason, 'NonZeroExitCode');
  assert.equal(status.details.causes[0].message, '4');
  // The readiness probe now finds its file.
  await until(
    async () => (await jsonpath(['get', 'pod', 'unready'], '{.status.conditions[?(@.type=="Ready")].status}')) === 'True',
    'ready after touch',
  );
});

test('an interactive shell (kubectl exec -it POD -- sh) reads lines from stdin and echoes on a tty', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${simPort}/exec/default/unready/main?command=sh&stdin=true&stdout=true&tty=true`, [
    'v5.channel.k8s.io',
  ]);
  let out = '';
  const closed = new Promise<void>((resolve, reject) => {
    ws.on('message', (d: Buffer) => {
      if (d[0] === 1) out += d.subarray(1).toString();
    });
    ws.on('close', () => resolve());
    ws.on('error', reject);
  });
  await new Promise((r) => ws.once('open', r));
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('echo hi there\r')]));
  await until(() => out.endsWith('hi there\r\n/ # '), 'the command output and a new prompt', 5000);
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('exit\r')]));
  await closed;
  assert.equal(out, '/ # echo hi there\r\nhi there\r\n/ # exit\r\n');
});

test('wget through a Service reaches a ready endpoint, and fails without one', async () => {
  const ip = await jsonpath(['get', 'pod', 'web'], '{.status.podIP}');
  ok(
    await apply(`apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: nobody}
spec: {selector: {app: nobody}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets: [{addresses: [{ip: "${ip}", targetRef: {kind: Pod, namespace: default, name: web}}], ports: [{port: 80}]}]
`),
  );
  const run = async (cmd: string) => {
    const r = await fetch(`http://127.0.0.1:${simPort}/run/default/unready/main?cmd=${encodeURIComponent(cmd)}`, { method: 'POST' });
    return { code: r.headers.get('x-exit-code'), out: await r.text() };
  };
  await until(async () => (await run('wget -qO- http://web')).code === '0', 'wget through the Service');
  assert.match((await run('wget -qO- http://web')).out, /Welcome to nginx!/);
  const svcIP = await jsonpath(['get', 'svc', 'nobody'], '{.spec.clusterIP}');
  assert.deepEqual(await run('wget -qO- http://nobody'), {
    code: '1',
    out: `wget: can't connect to remote host (${svcIP}): Connection refused\n`,
  });
  assert.deepEqual(await run('wget -qO- http://nosuch'), { code: '1', out: "wget: bad address 'nosuch'\n" });
});

test('graceful deletion waits for the container; --force removes at once', async () => {
  const started = Date.now();
  ok(await k('delete', 'pod', 'unready', '--wait=true'));
  // sleep as PID 1 ignores SIGTERM: killed after 30 s / speed 10.
  assert.ok(Date.now() - started >= 2500, `deleted after ${Date.now() - started} ms`);
  ok(await k('delete', 'pod', 'web', '--force', '--grace-period=0'));
  assert.match((await k('get', 'pod', 'web')).stderr, /NotFound/);
});

test('chaos: a partitioned node stops renewing its lease, and renews again when healed', async () => {
  const post = (path: string) => fetch(`http://127.0.0.1:${simPort}${path}`, { method: 'POST' });
  assert.equal((await post('/nodes/node-1/partition')).status, 200);
  const frozen = await jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-1'], '{.spec.renewTime}');
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(await jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-1'], '{.spec.renewTime}'), frozen);
  assert.equal((await post('/nodes/node-1/heal')).status, 200);
  await until(
    async () => (await jsonpath(['get', 'lease', '-n', 'kube-node-lease', 'node-1'], '{.spec.renewTime}')) !== frozen,
    'renewal after heal',
    5000,
  );
  assert.equal((await post('/nodes/nope/stop')).status, 404);
});

test('SIGTERM exits 0; a restarted kubelet-sim takes over running Pods as they were', async () => {
  ok(await apply(pod('keeper', 'node-0', '  containers: [{name: nginx, image: nginx:1.27}]')));
  await until(
    async () => (await jsonpath(['get', 'pod', 'keeper'], '{.status.conditions[?(@.type=="Ready")].status}')) === 'True',
    'keeper ready',
  );
  const before = await jsonpath(['get', 'pod', 'keeper'], '{.status.podIP} {.status.startTime} {.status.containerStatuses[0].containerID}');
  sim.signal('SIGTERM');
  assert.deepEqual(await sim.exited, { code: 0, signal: null });
  await startSim();
  const rv = await jsonpath(['get', 'pod', 'keeper'], '{.metadata.resourceVersion}');
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(
    await jsonpath(['get', 'pod', 'keeper'], '{.status.podIP} {.status.startTime} {.status.containerStatuses[0].containerID}'),
    before,
  );
  assert.equal(await jsonpath(['get', 'pod', 'keeper'], '{.metadata.resourceVersion}'), rv, 'no status rewrite for an unchanged Pod');
  const logs = await fetch(`http://127.0.0.1:${simPort}/containerLogs/default/keeper/nginx`);
  assert.equal(logs.status, 200);
});
