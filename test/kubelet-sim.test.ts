// kubelet-sim end to end: a real apiserver, one kubelet-sim process with three
// nodes at --speed 10, the real kubectl. Pods are created with spec.nodeName
// (no scheduler). Checks what a learner sees: nodes Ready with INTERNAL-IP,
// leases renewing, Pods Running / Completed / Error / CrashLoopBackOff /
// ImagePullBackOff with kube's events, logs, exec, graceful deletion, and the
// chaos switches. The kubelet API (logs, exec, run) is on a port of its own,
// https with the kubeconfig's client certificate when the apiserver is https;
// the chaos switches and health on the plain-http control port.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { kubectl as runKubectl, repoRoot, spawnTracked, startApiserver, type Apiserver, type TrackedProcess, ok } from './helpers/index.ts';

let server: Apiserver;
/** The admin's, for kubectl and the direct kubelet API requests. */
let kubeconfig: string;
/** kubelet-sim's own identity (system:ksim:kubelet-sim; the admin's over plain http). */
let simKubeconfig: string;
let sim: TrackedProcess;
let simPort = 0;
let kubeletUrl = '';
let simLog = '';

async function startSim(): Promise<void> {
  simLog = '';
  sim = await spawnTracked(
    process.execPath,
    [join(repoRoot, 'kubelet-sim', 'bin.mjs'), '--kubeconfig', simKubeconfig, '--nodes', '3', '--speed', '10', '--port', '0'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  sim.child.stdout!.setEncoding('utf8').on('data', (d: string) => (simLog += d));
  sim.child.stderr!.setEncoding('utf8').on('data', (d: string) => (simLog += d));
  await until(() => /serving on [\d.]+:(\d+)/.test(simLog), 'kubelet-sim to listen');
  simPort = Number(/serving on [\d.]+:(\d+)/.exec(simLog)![1]);
  kubeletUrl = /kubelet API at (https?:\/\/[\d.]+:\d+)/.exec(simLog)![1];
  await until(async () => (await fetch(`http://127.0.0.1:${simPort}/readyz`)).ok, 'kubelet-sim ready');
}

before(async () => {
  server = await startApiserver();
  kubeconfig = server.kubeconfig;
  simKubeconfig = server.kubeconfigOf('kubeletSim');
  // The controller-manager's ServiceAccount controller is not running here: its "default" ServiceAccount, whose
  // token the kube-api-access volume of every Pod asks for.
  ok(await runKubectl(['create', 'serviceaccount', 'default'], { kubeconfig }));
  await startSim();
});
after(async () => {
  await sim?.stop();
  await server?.stop();
});

/** TLS options for the kubelet API: the kubeconfig's client certificate; the kubelet's own is self-signed. */
function kubeletTls(): https.RequestOptions {
  const cfg = loadKubeconfig(kubeconfig);
  return { cert: cfg.cert, key: cfg.key, rejectUnauthorized: false };
}

/** One request to the kubelet API, as the kubeconfig's user (or with no certificate). */
function kubeletRequest(
  method: string,
  path: string,
  opts: { anonymous?: boolean } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = kubeletUrl + path;
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const onRes = (res: http.IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    };
    const req = secure
      ? https.request(url, { method, ...(opts.anonymous ? { rejectUnauthorized: false } : kubeletTls()) }, onRes)
      : http.request(url, { method }, onRes);
    req.on('error', reject).end();
  });
}

/** The user a bearer token authenticates as (a SelfSubjectReview with only the token, no client certificate). */
function whoAmI(token: string): Promise<string> {
  const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      { method: 'POST', ca: server.tls?.ca, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve(JSON.parse(text).status?.userInfo?.username ?? `HTTP ${res.statusCode}: ${text}`));
      },
    );
    req.on('error', reject).end(body);
  });
}

/** A WebSocket to the kubelet API. */
const kubeletWs = (path: string, protocols: string[]) =>
  new WebSocket(kubeletUrl.replace(/^http/, 'ws') + path, protocols, kubeletUrl.startsWith('https:') ? kubeletTls() : {});

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
  const logs = (await kubeletRequest('GET', '/containerLogs/default/hello/main')).body;
  assert.equal(logs, 'hello from hello\n');
  // Through the apiserver, which dials the kubelet API with its kubelet client certificate.
  assert.equal(ok(await k('logs', 'hello')), 'hello from hello\n');
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
  const ws = kubeletWs(
    `/exec/default/unready/main?command=sh&command=-c&command=${encodeURIComponent('touch /tmp/ready; echo $HOSTNAME; exit 4')}&stdout=true&stderr=true`,
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
  const ws = kubeletWs('/exec/default/unready/main?command=sh&stdin=true&stdout=true&tty=true', ['v5.channel.k8s.io']);
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
    const r = await kubeletRequest('POST', `/run/default/unready/main?cmd=${encodeURIComponent(cmd)}`);
    return { code: r.headers['x-exit-code'], out: r.body };
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
  const logs = await kubeletRequest('GET', '/containerLogs/default/keeper/nginx');
  assert.equal(logs.status, 200);
});

test('the kubelet API is not on the control port, and over https wants a client certificate', async () => {
  // Nothing on the plain-http control port reads or runs anything in a container.
  assert.equal((await fetch(`http://127.0.0.1:${simPort}/containerLogs/default/keeper/nginx`)).status, 404);
  assert.equal((await fetch(`http://127.0.0.1:${simPort}/run/default/keeper/nginx?cmd=id`, { method: 'POST' })).status, 404);
  const node = await jsonpath(['get', 'node', 'node-0'], "{.metadata.annotations['ksim\\.dev/kubelet-endpoint']}");
  assert.equal(node, kubeletUrl);
  assert.equal(kubeletUrl.startsWith('https:'), server.url.startsWith('https:'), 'the kubelet API is https exactly when the apiserver is');
  if (!kubeletUrl.startsWith('https:')) return;
  const anonymous = await kubeletRequest('GET', '/containerLogs/default/keeper/nginx', { anonymous: true });
  assert.deepEqual([anonymous.status, anonymous.body], [401, 'Unauthorized\n']);
});

test('kubectl exec shows the real token kubelet-sim asked for as the node, which authenticates as the ServiceAccount', async () => {
  ok(await apply('apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: tok}\n'));
  ok(
    await apply(`apiVersion: v1
kind: Pod
metadata: {name: tokpod}
spec:
  nodeName: node-2
  serviceAccountName: tok
  containers:
  - name: main
    image: busybox
    command: [sleep, '3600']
    volumeMounts: [{name: lab, mountPath: /var/run/lab}]
  volumes:
  - name: lab
    projected:
      sources:
      - serviceAccountToken: {path: token, expirationSeconds: 3600, audience: lab}
`),
  );
  await until(async () => (await jsonpath(['get', 'pod', 'tokpod'], '{.status.phase}')) === 'Running', 'tokpod Running');
  // Through the apiserver, which dials the kubelet API with its kubelet client certificate.
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  const token = ok(await k('exec', 'tokpod', '--', 'cat', `${dir}/token`));
  assert.equal(ok(await k('exec', 'tokpod', '--', 'cat', `${dir}/namespace`)), 'default');
  const ca = ok(await k('exec', 'tokpod', '--', 'cat', `${dir}/ca.crt`));
  assert.match(ca, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n?$/);
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  assert.equal(claims.sub, 'system:serviceaccount:default:tok');
  assert.equal(claims['kubernetes.io'].pod.name, 'tokpod');
  assert.equal(claims['kubernetes.io'].node.name, 'node-2');
  if (server.secure) assert.equal(await whoAmI(token), 'system:serviceaccount:default:tok');
  const lab = JSON.parse(
    Buffer.from(ok(await k('exec', 'tokpod', '--', 'cat', '/var/run/lab/token')).split('.')[1], 'base64url').toString(),
  );
  assert.deepEqual(lab.aud, ['lab']);
  assert.equal(lab.exp - lab.iat, 3600);
});

test('a token that cannot be issued is a FailedMount event, and the Pod waits in ContainerCreating', async () => {
  // ServiceAccount admission refuses a Pod whose ServiceAccount is missing: it goes away while the node is off.
  const post = (path: string) => fetch(`http://127.0.0.1:${simPort}${path}`, { method: 'POST' });
  assert.equal((await post('/nodes/node-1/stop')).status, 200);
  ok(await apply('apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: brief}\n'));
  ok(await apply(pod('nosa', 'node-1', '  serviceAccountName: brief\n  containers: [{name: main, image: busybox}]')));
  ok(await k('delete', 'serviceaccount', 'brief'));
  assert.equal((await post('/nodes/node-1/start')).status, 200);
  const failedMount =
    /^FailedMount:MountVolume.SetUp failed for volume "kube-api-access-[a-z0-9]+" : failed to fetch token: serviceaccounts "brief" not found$/m;
  const events = () =>
    k('get', 'events', '--field-selector', 'involvedObject.name=nosa', '-o', 'jsonpath={range .items[*]}{.reason}:{.message}{"\\n"}{end}');
  await until(async () => failedMount.test(ok(await events())), 'FailedMount for the token');
  assert.equal(await jsonpath(['get', 'pod', 'nosa'], '{.status.containerStatuses[0].state.waiting.reason}'), 'ContainerCreating');
});
