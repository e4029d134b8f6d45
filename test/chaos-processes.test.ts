// Process faults through `ksim chaos` on one `ksim up --nodes 2 --speed 20`
// cluster, with the real kubectl: `ksim status` lists every component with
// pid, state, uptime, restarts and leader; a killed scheduler leaves a new Pod
// Pending until it is started; a killed controller-manager stops scaling until
// it is started; the control endpoint wants its token and its file is
// 0600; SIGTERM to `ksim up` leaves no process behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, ok, startCluster, type Cluster } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 20 });
});
after(() => c?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `ksim status`'s component rows by name: [pid, state, uptime, restarts, leader, endpoint]. */
async function statusRows(): Promise<Map<string, string[]>> {
  const out = ok(await c.status());
  const lines = out.split('\n');
  assert.match(lines[0], /^COMPONENT\s+PID\s+STATE\s+UPTIME\s+RESTARTS\s+LEADER\s+ENDPOINT$/);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    if (!line || /^(Faults|Ingress|TLS|INSECURE|ID)\b/.test(line)) break;
    const [name, ...cells] = line.split(/\s+/);
    rows.set(name, cells);
  }
  return rows;
}

/** `ksim chaos ARGS` that must succeed; its stdout. */
async function chaos(...args: string[]): Promise<string> {
  const r = await c.chaos(args);
  assert.equal(r.code, 0, `ksim chaos ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

const phaseAndNode = async (pod: string) =>
  (await c.k(['get', 'pod', pod, '-o', 'jsonpath={.status.phase} {.spec.nodeName}'])).stdout.trim();

test('ksim status lists every component with pid, state, uptime, restarts and leader', async () => {
  // Each leader-elected component takes its Lease soon after starting.
  await eventually('both leaders in the supervisor status', async () => {
    const { components } = (await c.control('GET', '/status')).body as { components: { name: string; leader?: boolean }[] };
    return components.filter((s) => s.leader).length === 2;
  });
  const rows = await statusRows();
  assert.deepEqual([...rows.keys()], ['apiserver', 'controller-manager', 'scheduler', 'kubelet-sim']);
  for (const [name, [pid, state, uptime, restarts, leader, endpoint]] of rows) {
    assert.equal(Number(pid), c.pidOf(name), name);
    assert.equal(state, 'running', name);
    assert.match(uptime, /^\d+[smhd]/, name);
    assert.equal(restarts, '0', name);
    assert.equal(leader, name === 'controller-manager' || name === 'scheduler' ? 'leader' : '-', name);
    assert.match(endpoint, /^https?:\/\/127\.0\.0\.1:\d+$/, name);
  }
  assert.match(ok(await c.status()), /^Faults: none$/m);
});

test('the control endpoint refuses a missing or wrong token, names the bad field, and its file is 0600', async () => {
  const file = join(c.dataDir, 'control.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const { url, token } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; token: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(`${url}/status`)).status, 401);
  assert.equal((await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token.replace(/.$/, 'x')}` } })).status, 401);
  const none = await fetch(`${url}/chaos`, { method: 'POST', body: JSON.stringify({ action: 'kill', target: 'scheduler' }) });
  assert.equal(none.status, 401);
  assert.equal(c.pidOf('scheduler'), (await c.control('GET', '/status')).body.components[2].pid, 'a refused kill killed nothing');
  const bad = await c.control('POST', '/chaos', { action: 'explode' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /^action: must be one of kill, stop/);
  const noTarget = await c.control('POST', '/chaos', { action: 'kill' });
  assert.equal(noTarget.status, 400);
  assert.match(noTarget.body.message, /^target: kill needs a target/);
  const unknown = await c.control('POST', '/chaos', { action: 'kill', target: 'etcd' });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.message, /^target: no component "etcd"/);
  const notJson = await fetch(`${url}/chaos`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{' });
  assert.equal(notJson.status, 400);
  assert.equal((await c.control('GET', '/faults')).status, 200);
});

test('a killed scheduler leaves a new Pod Pending until it is started', async () => {
  const pid = c.pidOf('scheduler');
  assert.match(await chaos('kill', 'scheduler'), new RegExp(`killed scheduler \\(pid ${pid}\\)`));
  assert.match((await statusRows()).get('scheduler')![1], /^exited\(SIGKILL\)$/);
  assert.match(ok(await c.status()), /^kill-\d+\s+kill\s+scheduler\s/m);
  ok(await c.k(['run', 'waiter', '--image=nginx', '--restart=Never']));
  // 1.5 s at --speed 20 is 30 s of cluster time: a running scheduler binds a Pod in well under that.
  await sleep(1500);
  assert.equal(await phaseAndNode('waiter'), 'Pending');
  assert.match(await chaos('start', 'scheduler'), /started scheduler \(pid \d+\)/);
  await eventually('the Pod scheduled after start', async () => /^(Pending|Running) node-\d$/.test(await phaseAndNode('waiter')), 40_000);
  const row = (await statusRows()).get('scheduler')!;
  assert.notEqual(Number(row[0]), pid);
  assert.equal(row[1], 'running');
  assert.equal(row[3], '1', 'restarts');
  assert.match(ok(await c.status()), /^Faults: none$/m);
  const events = ok(
    await c.k(['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=ChaosInjected', '-o', 'jsonpath={.items[*].message}']),
  );
  assert.match(events, new RegExp(`killed scheduler \\(pid ${pid}\\)`));
  ok(await c.k(['delete', 'pod', 'waiter', '--wait=false']));
});

test('a killed controller-manager stops scaling until it is started', async () => {
  ok(await c.k(['create', 'deployment', 'scaled', '--image=nginx', '--replicas=1']));
  await eventually(
    '1 Pod',
    async () =>
      ok(await c.k(['get', 'pods', '-l', 'app=scaled', '-o', 'name']))
        .trim()
        .split('\n')
        .filter(Boolean).length === 1,
  );
  await chaos('kill', 'controller-manager');
  ok(await c.k(['scale', 'deployment', 'scaled', '--replicas=3']));
  await sleep(1500);
  assert.equal(
    ok(await c.k(['get', 'pods', '-l', 'app=scaled', '-o', 'name']))
      .trim()
      .split('\n').length,
    1,
    'scaled without a controller-manager',
  );
  assert.equal(ok(await c.k(['get', 'deployment', 'scaled', '-o', 'jsonpath={.status.replicas}'])), '1');
  await chaos('start', 'controller-manager');
  await eventually(
    '3 Pods after start',
    async () =>
      ok(await c.k(['get', 'pods', '-l', 'app=scaled', '-o', 'name']))
        .trim()
        .split('\n').length === 3,
    40_000,
  );
});

test('SIGTERM to ksim up stops every component, exits 0, leaves no process and removes control.json', async () => {
  const pids = [...(await statusRows()).values()].map((r) => Number(r[0]));
  assert.equal(pids.length, 4);
  const start = Date.now();
  process.kill(c.up.pid, 'SIGTERM');
  const exit = await c.up.exited;
  const took = Date.now() - start;
  assert.equal(exit.code, 0);
  assert.ok(took < 8000, `stopping took ${took}ms`);
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `pid ${pid} is still there`);
  assert.equal(existsSync(join(c.dataDir, 'control.json')), false);
  // Without a supervisor, ksim status reads what cluster.json last said.
  const r = await c.status();
  assert.equal(r.code, 0);
  assert.match(r.stderr, /showing the state recorded in .*cluster\.json/);
  assert.match(r.stdout, /^apiserver\s+\d+\s+stopped\s/m);
});
