// Resource metrics end to end on `ksim up --nodes 2`: kubelet-sim's usage
// model behind /metrics/resource, the apiserver's metrics.k8s.io computed
// from it as metrics-server computes it, and the real `kubectl top nodes`
// and `kubectl top pods` (--containers, -A, -l) printing it; discovery, the
// Table of `kubectl get podmetrics`, and the view role reading it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
  ok(await c.k(['create', 'namespace', 'other']));
  ok(await c.k(['apply', '-f', '-'], PODS));
  ok(await c.k(['wait', '--for=condition=Ready', 'pod', '--all', '-A', '--timeout=60s']));
});
after(() => c?.stop());

const pod = (name: string, ns: string, containers: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: {app: ${name}}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
${containers}
---
`;
const PODS = [
  pod(
    'busy',
    'default',
    `  - {name: spin, image: busybox:1.36, command: [sh, -c, 'while true; do :; done']}
  - {name: side, image: busybox:1.36, command: [sleep, '3600']}`,
  ),
  pod('idle', 'default', `  - {name: idle, image: busybox:1.36, command: [sleep, '3600']}`),
  pod(
    'throttled',
    'default',
    `  - {name: spin, image: busybox:1.36, command: [sh, -c, 'while true; do :; done'], resources: {limits: {cpu: 200m}}}`,
  ),
  pod(
    'mem',
    'default',
    `  - {name: stress, image: polinux/stress, command: [stress], args: [--vm, '1', --vm-bytes, 100M, --vm-hang, '1'], resources: {limits: {memory: 200Mi}}}`,
  ),
  pod('web', 'other', `  - {name: nginx, image: nginx:1.27}`),
].join('');

/** `kubectl top ...` rows as arrays of cells, header first. */
async function top(args: string[]): Promise<string[][]> {
  return ok(await c.k(['top', ...args]))
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
}
const milli = (cell: string) => {
  assert.match(cell, /^\d+m$/);
  return Number(cell.slice(0, -1));
};
const mebi = (cell: string) => {
  assert.match(cell, /^\d+Mi$/);
  return Number(cell.slice(0, -2));
};

describe('kubectl top', () => {
  test('metrics.k8s.io is discovered as an aggregated API would be', async () => {
    const out = ok(await c.k(['api-resources', '--api-group=metrics.k8s.io']));
    assert.match(out, /^nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics$/m);
    assert.match(out, /^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics$/m);
    const list = JSON.parse(ok(await c.k(['get', '--raw', '/apis/metrics.k8s.io/v1beta1'])));
    assert.deepEqual(
      list.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs]),
      [
        ['nodes', ['get', 'list']],
        ['pods', ['get', 'list']],
      ],
    );
  });

  test('pods: a busy loop uses a core, an idle one nothing, limits.cpu throttles, stress holds its bytes', async () => {
    let rows: string[][] = [];
    await eventually('metrics of the four default Pods', async () => {
      const r = await c.k(['top', 'pods']);
      rows = r.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/));
      return r.code === 0 && rows.length === 5;
    });
    assert.deepEqual(rows[0], ['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
    const busy = milli(byName.get('busy')![1]);
    assert.ok(busy >= 900 && busy <= 1100, `busy: ${busy}m`);
    assert.equal(milli(byName.get('idle')![1]), 0);
    const throttled = milli(byName.get('throttled')![1]);
    assert.ok(throttled >= 190 && throttled <= 200, `throttled: ${throttled}m`);
    const mem = mebi(byName.get('mem')![2]);
    assert.ok(mem >= 100 && mem <= 102, `mem: ${mem}Mi`);
    assert.ok(!byName.has('web'), 'only the namespace asked for');
  });

  test('--containers, -A and -l', async () => {
    const containers = await top(['pods', 'busy', '--containers']);
    assert.deepEqual(containers[0], ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const spin = containers.find((r) => r[1] === 'spin')!;
    const side = containers.find((r) => r[1] === 'side')!;
    assert.equal(spin[0], 'busy');
    assert.ok(milli(spin[2]) >= 900, spin.join(' '));
    assert.equal(milli(side[2]), 0);

    await eventually('metrics of other/web', async () => (await c.k(['top', 'pods', '-n', 'other'])).stdout.includes('web'));
    const all = await top(['pods', '-A']);
    assert.deepEqual(all[0], ['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    const web = all.find((r) => r[1] === 'web')!;
    assert.equal(web[0], 'other');
    assert.ok(mebi(web[3]) >= 2 && mebi(web[3]) < 20, `nginx idles at a few Mi: ${web[3]}`);

    const labelled = await top(['pods', '-l', 'app=busy']);
    assert.deepEqual(
      labelled.slice(1).map((r) => r[0]),
      ['busy'],
    );
  });

  test('nodes: every node with plausible usage and percentages of allocatable', async () => {
    const rows = await top(['nodes']);
    assert.deepEqual(rows[0], ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    // The two workers and the control-plane node.
    assert.equal(rows.length, 4, rows.map((r) => r.join(' ')).join('\n'));
    let total = 0;
    for (const [, cpu, cpuPct, memory, memPct] of rows.slice(1)) {
      total += milli(cpu);
      assert.match(cpuPct, /^\d+%$/);
      assert.match(memPct, /^\d+%$/);
      assert.ok(mebi(memory) >= 400 && mebi(memory) < 2048, memory);
    }
    // Two busy loops (one throttled to 200m) and system overhead on 2 x 4 cores.
    assert.ok(total >= 1150 && total <= 1500, `nodes: ${total}m`);
  });

  test('the metrics objects, the Table and a missing Pod', async () => {
    const pm = JSON.parse(ok(await c.k(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/idle'])));
    assert.equal(pm.kind, 'PodMetrics');
    assert.equal(pm.metadata.labels.app, 'idle');
    assert.match(pm.window, /^[\d.]+m?s$/);
    assert.deepEqual(
      pm.containers.map((x: { name: string }) => x.name),
      ['idle'],
    );
    const table = ok(await c.k(['get', 'podmetrics', 'busy']));
    assert.match(table, /^NAME\s+CPU\s+MEMORY\s+WINDOW\n/);
    assert.match(table, /^busy\s+\d+(n|u|m)?\s+\d+(Ki|Mi)?\s+[\d.]+m?s$/m);
    const missing = await c.k(['top', 'pod', 'nosuch']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /pods? "nosuch" not found/);
  });

  test("the HPA walkthrough's load generator drives php-apache's CPU up to its limit", async () => {
    // The simulated busy loops really spin in kubelet-sim's shell: stop them, so the load generator gets the CPU.
    ok(await c.k(['delete', 'pod', 'busy', 'throttled', '--now']));
    ok(await c.k(['create', 'deployment', 'php-apache', '--image=registry.k8s.io/hpa-example', '--port=80']));
    ok(await c.k(['set', 'resources', 'deployment', 'php-apache', '--requests=cpu=200m', '--limits=cpu=500m']));
    ok(await c.k(['expose', 'deployment', 'php-apache', '--port=80']));
    ok(await c.k(['rollout', 'status', 'deployment/php-apache', '--timeout=60s']));
    const cpu = async () => {
      const r = await c.k(['top', 'pods', '-l', 'app=php-apache', '--no-headers']);
      return r.code === 0 && r.stdout.trim() ? milli(r.stdout.trim().split(/\s+/)[1]) : undefined;
    };
    let idle: number | undefined;
    await eventually('metrics of php-apache', async () => (idle = await cpu()) !== undefined);
    assert.ok(idle! <= 5, `idle php-apache: ${idle}m`);
    ok(
      await c.k([
        'run',
        'load-generator',
        '--image=busybox:1.28',
        '--restart=Never',
        '--',
        '/bin/sh',
        '-c',
        'while sleep 0.01; do wget -q -O- http://php-apache; done',
      ]),
    );
    let loaded = 0;
    await eventually('php-apache busy', async () => (loaded = (await cpu()) ?? 0) >= 150, 40_000);
    assert.ok(loaded <= 500, `CFS holds it at limits.cpu: ${loaded}m`);
    ok(await c.k(['delete', 'pod', 'load-generator', '--now']));
  });

  test('the view role reads pod metrics; a namespaced binding does not reach nodes', async () => {
    ok(await c.k(['create', 'serviceaccount', 'viewer']));
    ok(await c.k(['create', 'rolebinding', 'viewer', '--clusterrole=view', '--serviceaccount=default:viewer']));
    const as = ['--as=system:serviceaccount:default:viewer'];
    await eventually(
      'view aggregates the metrics reader',
      async () => (await c.k(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', ...as])).stdout.trim() === 'yes',
    );
    assert.match(ok(await c.k(['top', 'pods', ...as])), /^idle\s/m);
    const nodes = await c.k(['top', 'nodes', ...as]);
    assert.notEqual(nodes.code, 0);
    assert.match(nodes.stderr, /forbidden/);
  });
});
