// The apiserver's chaos faults end to end: the apiserver runs as `ksim up`
// runs it (an IPC channel, KSIM_SUPERVISOR_PID), this test plays the
// supervisor (ComponentRequest in, ComponentReply out), and the real kubectl
// shows what a user sees: injected latency, a 500 that fails at once, a 429
// that kubectl retries (each retry refused again is counted), faults that
// hit only the user agent, user, verb or resource they name, watches
// dropped, delayed and held, a forced compaction's 410 on resume, and clear.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { ComponentReply, ComponentRequest } from '../shared/chaos/protocol.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { seededDraws } from '../apiserver/chaos/rng.ts';
import type { ServingMessage } from '../apiserver/main.ts';
import {
  api,
  freePort,
  homeFor,
  kubectl,
  kubectlBin,
  ksimNodeArgs,
  repoRoot,
  spawnTracked,
  tempDir,
  tlsMaterialOf,
  until,
  type ApiClient,
  type TrackedProcess,
} from './helpers/index.ts';

let proc: TrackedProcess;
let tls: ReturnType<typeof tlsMaterialOf>;
let serverUrl: string;
let kubeconfig: string;
let admin: ApiClient;
let logFile: string;
let nextId = 1;
const replies = new Map<number, (r: ComponentReply) => void>();

/** Sends one op on the apiserver's control channel and waits for its reply. */
async function control(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const id = nextId++;
  const reply = new Promise<ComponentReply>((resolve) => replies.set(id, resolve));
  proc.child.send({ type: 'ksim-control', id, op, args } satisfies ComponentRequest);
  const r = await reply;
  if (!r.ok) throw new Error(`${op}: ${r.error}`);
  return r.result;
}

/** ksim_chaos_injected_total{kind} from /metrics. */
async function injected(kind: string): Promise<number> {
  const r = await admin.request('GET', '/metrics', undefined, { accept: 'text/plain' });
  const m = new RegExp(`^ksim_chaos_injected_total\\{kind="${kind}"[^}]*\\} (\\d+)`, 'm').exec(r.text);
  return m ? Number(m[1]) : 0;
}

/** Open watches, from the apiserver's own gauge. */
async function openWatches(): Promise<number> {
  const r = await admin.request('GET', '/metrics', undefined, { accept: 'text/plain' });
  const m = /^apiserver_longrunning_requests\{verb="WATCH"[^}]*\} (\d+)/m.exec(r.text);
  return m ? Number(m[1]) : 0;
}

const k = (args: string[], timeoutMs = 30_000) => kubectl(args, { kubeconfig, timeoutMs });

/** How long a kubectl run takes. */
async function timed(args: string[]): Promise<{ ms: number; code: number; stderr: string }> {
  const t0 = Date.now();
  const r = await k(args);
  return { ms: Date.now() - t0, code: r.code, stderr: r.stderr };
}

/** A long-running kubectl (get -w) whose output is read as it comes. */
async function kubectlStream(args: string[]) {
  const home = await homeFor(kubeconfig);
  const p = await spawnTracked(kubectlBin, ['--kubeconfig', kubeconfig, ...args], {
    env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: { at: number; line: string }[] = [];
  let stderr = '';
  let buf = '';
  p.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push({ at: Date.now(), line: buf.slice(0, nl) });
      buf = buf.slice(nl + 1);
    }
  });
  p.child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return { proc: p, lines, stderr: () => stderr };
}

before(async () => {
  const dataDir = await tempDir('chaos-apiserver');
  logFile = join(dataDir, 'apiserver.log');
  const fd = openSync(logFile, 'a');
  try {
    proc = await spawnTracked(
      process.execPath,
      [...ksimNodeArgs(), 'apiserver', '--data-dir', dataDir, '--port', String(await freePort())],
      { cwd: repoRoot, env: { ...process.env, KSIM_SUPERVISOR_PID: String(process.pid) }, stdio: ['ignore', fd, fd, 'ipc'] },
    );
  } finally {
    closeSync(fd);
  }
  const serving = await new Promise<ServingMessage>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`apiserver not serving after 30 s:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)),
      30_000,
    );
    proc.child.on('message', (m: ServingMessage | ComponentReply) => {
      if (m.type === 'serving') {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === 'ksim-control-reply') replies.get(m.id)?.(m);
    });
    void proc.exited.then(() => reject(new Error(`apiserver exited:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)));
  });
  kubeconfig = serving.kubeconfig;
  const config = loadKubeconfig(kubeconfig);
  tls = tlsMaterialOf(config);
  serverUrl = config.server;
  admin = api({ url: config.server, tls });
  // kubectl's discovery cache is filled once, so that each measured run is one API request.
  assert.equal((await k(['get', 'ns', 'default'])).code, 0);
});

after(async () => {
  await proc?.stop();
});

test('the control channel answers info, and refuses a bad fault naming the field', async () => {
  const info = (await control('info')) as { pid: number };
  assert.equal(info.pid, proc.pid);
  await assert.rejects(control('apiserver.faults.set', { id: 'x', errorRate: 2 }), /errorRate: must be a fraction from 0 to 1/);
  await assert.rejects(control('apiserver.nonsense'), /this component does not serve apiserver.nonsense/);
});

/** The milliseconds kubectl (-v=6) logs for its GET of namespace default, as client-go's round tripper measures them. */
async function kubectlRequestMs(): Promise<number> {
  const r = await k(['get', 'ns', 'default', '-v=6']);
  assert.equal(r.code, 0, r.stderr);
  const m = /"Response" verb="GET" url="[^"]*\/api\/v1\/namespaces\/default" status="200 OK" milliseconds=(\d+)/.exec(r.stderr);
  assert.ok(m, `no response line in kubectl's log:\n${r.stderr}`);
  return Number(m[1]);
}

test('--latency: every matching request is that much slower, until cleared', async () => {
  const base = await kubectlRequestMs();
  await control('apiserver.faults.set', { id: 'slow', latencyMs: 800, jitterMs: 100, match: { userAgent: 'kubectl' } });
  const slow = await kubectlRequestMs();
  assert.ok(slow >= 800, `with 800 ms (+ up to 100 ms) of latency the request took ${slow} ms`);
  assert.ok(slow < 900 + base + 1000, `${slow} ms is far more than the latency asked for (${base} ms without)`);
  assert.ok((await injected('latency')) >= 1);
  assert.deepEqual(await control('apiserver.faults.clear', { id: 'slow' }), { cleared: ['slow'], active: [] });
  const again = await kubectlRequestMs();
  assert.ok(again < 800, `after clear: ${again} ms`);
});

test('--error-rate 1 with 500: kubectl fails at once with the server message', async () => {
  const before = await injected('error');
  await control('apiserver.faults.set', { id: 'boom', errorRate: 1, errorCode: 500, match: { userAgent: 'kubectl' } });
  const r = await k(['get', 'ns', 'default']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Error from server \(InternalError\): Internal error occurred: ksim chaos: fault "boom" injected this error/);
  // client-go does not retry a 500 without Retry-After: one request, one refusal.
  assert.equal((await injected('error')) - before, 1);
  await control('apiserver.faults.clear', { id: 'boom' });
});

test('--error-code 429: kubectl retries after Retry-After (each refusal counted) and then succeeds', async () => {
  // A seed whose first two draws refuse (< 0.5) and the third lets through: two retries, then success.
  let seed = 0;
  for (; ; seed++) {
    const d = seededDraws(seed);
    if (d() < 0.5 && d() < 0.5 && d() >= 0.5) break;
  }
  const before = await injected('error');
  await control('apiserver.faults.set', {
    id: 'shed',
    errorRate: 0.5,
    errorCode: 429,
    seed,
    match: { userAgent: 'kubectl', verb: 'get', resource: 'namespaces' },
  });
  const t0 = Date.now();
  const r = await k(['get', 'ns', 'default', '-v=4']);
  const ms = Date.now() - t0;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^default\s+Active/m);
  assert.equal((await injected('error')) - before, 2);
  // client-go's own log of each retry (rest/with_retry.go), at -v=4.
  assert.match(r.stderr, /"Got a Retry-After response" delay="1s" attempt=1 /);
  assert.match(r.stderr, /"Got a Retry-After response" delay="1s" attempt=2 /);
  assert.doesNotMatch(r.stderr, /attempt=3/);
  assert.ok(ms >= 2000, `two retries one second apart took ${ms} ms`);
  await control('apiserver.faults.clear', { id: 'shed' });
});

test('a fault limited to a user agent, a user, a verb or a resource hits only those', async () => {
  await control('apiserver.faults.set', {
    id: 'cm-list',
    errorRate: 1,
    match: { userAgent: 'kubectl', verb: 'list', resource: 'configmaps' },
  });
  await control('apiserver.faults.set', { id: 'as-scheduler', errorRate: 1, errorCode: 504, match: { user: 'system:kube-scheduler' } });
  try {
    const list = await k(['get', 'configmaps', '-n', 'default']);
    assert.equal(list.code, 1);
    assert.match(list.stderr, /\(InternalError\)/);
    // Another verb on the same resource, and the same verb on another resource, are served.
    const get = await k(['get', 'configmap', 'missing', '-n', 'default']);
    assert.match(get.stderr, /configmaps "missing" not found/);
    assert.equal((await k(['get', 'secrets', '-n', 'default'])).code, 0);
    // Another user agent lists configmaps fine.
    assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { 'user-agent': 'curl/8' })).status, 200);
    // The user after impersonation is what is matched.
    const asScheduler = await k(['get', 'pods', '-A', '--as', 'system:kube-scheduler']);
    assert.equal(asScheduler.code, 1);
    assert.match(
      asScheduler.stderr,
      /Error from server \(Timeout\): Timeout: request did not complete within requested timeout - context deadline exceeded/,
    );
    assert.equal((await k(['get', 'pods', '-A'])).code, 0);
  } finally {
    await control('apiserver.faults.clear', {});
  }
});

test('--drop-watches closes a kubectl get -w', async () => {
  const w = await kubectlStream(['get', 'ns', '-w']);
  try {
    await until(() => w.lines.some((l) => l.line.startsWith('default')), 'kubectl get -w to list');
    await until(async () => (await openWatches()) >= 1, 'the watch to open');
    const { closed } = (await control('apiserver.watches.drop', { match: { userAgent: 'kubectl' } })) as { closed: number };
    assert.ok(closed >= 1);
    // kubectl get -w does not watch again: the watch is over, and so is kubectl, with status 0 and nothing said.
    const exit = await Promise.race([w.proc.exited, new Promise<undefined>((r) => setTimeout(r, 10_000))]);
    assert.ok(exit, `kubectl get -w still running after the drop; stderr: ${w.stderr()}`);
    assert.equal(exit.code, 0, w.stderr());
  } finally {
    await w.proc.stop();
  }
});

test('a watchDrop fault closes matching watches as they start, until cleared', async () => {
  await control('apiserver.faults.set', { id: 'nowatch', watchDrop: true, match: { userAgent: 'kubectl' } });
  try {
    const r = await k(['get', 'ns', '-w'], 10_000);
    assert.equal(r.timedOut, false, 'kubectl get -w was not closed');
    assert.match(r.stdout, /^default\s+Active/m);
  } finally {
    await control('apiserver.faults.clear', { id: 'nowatch' });
  }
  const t0 = Date.now();
  const r = await k(['get', 'ns', '-w', '--request-timeout=2s'], 10_000);
  // Now it watches until its own timeout.
  assert.ok(Date.now() - t0 >= 1900, `kubectl get -w ended after ${Date.now() - t0} ms`);
  assert.match(r.stdout, /^default\s+Active/m);
});

/** How long after a create kubectl get -w prints it. */
async function watchLag(name: string): Promise<number> {
  const w = await kubectlStream(['get', 'configmaps', '-n', 'default', '-w', '-o', 'name']);
  try {
    const watchesBefore = await openWatches();
    await until(async () => (await openWatches()) > watchesBefore || w.lines.length > 0, 'kubectl get -w to watch', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const created = await admin.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });
    assert.equal(created.status, 201);
    const line = await until(() => w.lines.find((l) => l.line === `configmap/${name}`), `kubectl to print configmap/${name}`, 10_000);
    return line.at - t0;
  } finally {
    await w.proc.stop();
  }
}

test('--watch-delay delays every event to the watchers it names', async () => {
  const plain = await watchLag('plain');
  assert.ok(plain < 700, `undelayed event after ${plain} ms`);
  await control('apiserver.faults.set', { id: 'lag', watchDelayMs: 1500, match: { userAgent: 'kubectl' } });
  try {
    const delayed = await watchLag('delayed');
    assert.ok(delayed >= 1400, `event after ${delayed} ms with a 1500 ms watch delay`);
    assert.ok((await injected('watch-delay')) >= 1);
  } finally {
    await control('apiserver.faults.clear', { id: 'lag' });
  }
});

test('a watch hold keeps events back until cleared, then delivers them in order', async () => {
  const w = await kubectlStream(['get', 'configmaps', '-n', 'default', '-w', '-o', 'name', '--watch-only']);
  try {
    const watchesBefore = await openWatches();
    await until(async () => (await openWatches()) > watchesBefore, 'kubectl get -w to watch', 10_000).catch(() => true);
    await new Promise((r) => setTimeout(r, 300));
    await control('apiserver.faults.set', { id: 'stale', watchHold: true, match: { userAgent: 'kubectl' } });
    for (const name of ['held-1', 'held-2', 'held-3'])
      assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } })).status, 201);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(w.lines.length, 0, 'nothing reaches a held watcher');
    await control('apiserver.faults.clear', { id: 'stale' });
    await until(() => w.lines.length >= 3, 'the held events', 5000);
    assert.deepEqual(
      w.lines.map((l) => l.line),
      ['configmap/held-1', 'configmap/held-2', 'configmap/held-3'],
    );
  } finally {
    await control('apiserver.faults.clear', {});
    await w.proc.stop();
  }
});

test('--compact: a watch resumed from an older resourceVersion gets 410 Gone', async () => {
  const list = await admin.request('GET', '/api/v1/namespaces/default/configmaps');
  const old = list.body.metadata.resourceVersion as string;
  assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-rv' } })).status, 201);
  const resume = ['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}&timeoutSeconds=1`];
  const beforeCompact = await k(resume);
  assert.equal(beforeCompact.code, 0, beforeCompact.stderr);
  assert.match(beforeCompact.stdout, /"type":"ADDED".*"name":"after-rv"/);
  const { compactedRevision } = (await control('apiserver.compact')) as { compactedRevision: number };
  assert.ok(compactedRevision > Number(old));
  const afterCompact = await k(resume);
  assert.match(afterCompact.stdout, /"type":"ERROR"/);
  const error = JSON.parse(afterCompact.stdout.trim().split('\n')[0]);
  assert.equal(error.object.code, 410);
  assert.equal(error.object.reason, 'Expired');
  assert.match(afterCompact.stdout, new RegExp(`too old resource version: ${old} \\(${compactedRevision + 1}\\)`));
  // A resume from now is served as before.
  const now = await k([
    'get',
    '--raw',
    `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${compactedRevision}&timeoutSeconds=1`,
  ]);
  assert.equal(now.code, 0, now.stderr);
  assert.doesNotMatch(now.stdout, /ERROR/);
});

test('clear removes every fault at once', async () => {
  await control('apiserver.faults.set', { id: 'a', errorRate: 1 });
  await control('apiserver.faults.set', { id: 'b', latencyMs: 2000 });
  assert.equal((await k(['get', 'ns', 'default'])).code, 1);
  // Health and metrics are never faulted.
  for (const path of ['/healthz', '/livez', '/readyz', '/metrics'])
    assert.equal((await admin.request('GET', path, undefined, { accept: '*/*' })).status, 200, path);
  const cleared = (await control('apiserver.faults.clear', {})) as { cleared: string[] };
  assert.deepEqual(cleared.cleared.sort(), ['a', 'b']);
  const r = await timed(['get', 'ns', 'default']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.ms < 1500);
  const log = readFileSync(logFile, 'utf8');
  assert.match(log, /chaos: apiserver fault \\"a\\" applied/);
  assert.match(log, /chaos: apiserver faults cleared: a, b/);
});

/** A WebSocket watch of default's configmaps, as the admin. */
function wsWatch(): WebSocket {
  const url = `${serverUrl.replace(/^https/, 'wss')}/api/v1/namespaces/default/configmaps?watch=1`;
  return new WebSocket(url, { ca: tls?.ca, cert: tls?.cert, key: tls?.key, headers: { 'user-agent': 'ws-client/1' } });
}

test('WebSocket watches: request faults refuse the upgrade with the Status; drops that name their user and user agent close them', async () => {
  await control('apiserver.faults.set', { id: 'no-ws', errorRate: 1, errorCode: 429, match: { userAgent: 'ws-client', verb: 'watch' } });
  try {
    const refused = wsWatch();
    const status = await new Promise<number>((resolve, reject) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      refused.on('open', () => reject(new Error('the upgrade was accepted')));
      refused.on('error', () => {});
    });
    assert.equal(status, 429);
  } finally {
    await control('apiserver.faults.clear', { id: 'no-ws' });
  }
  const ws = wsWatch();
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
  });
  await new Promise((r) => setTimeout(r, 200));
  // A WebSocket watch is known by its user and user agent too, as a chunked one is.
  const { closed: none } = (await control('apiserver.watches.drop', { match: { userAgent: 'someone-else', resource: 'configmaps' } })) as {
    closed: number;
  };
  assert.equal(none, 0);
  const { closed: n } = (await control('apiserver.watches.drop', {
    match: { user: 'kubernetes-admin', userAgent: 'ws-client', resource: 'configmaps' },
  })) as { closed: number };
  assert.equal(n, 1);
  assert.equal(await closed, 1000);
});
