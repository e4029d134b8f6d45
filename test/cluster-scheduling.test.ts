// Scheduling on `ksim up --nodes 3` with the real kubectl: kube's
// FailedScheduling message, nodeSelector, taints and tolerations,
// cordon/uncordon, anti-affinity by hostname, topology spread, even
// spreading, a label change that makes a Pending Pod fit, spec.nodeName.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 10 });
});
after(() => c?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function eventually<T>(what: string, get: () => Promise<T>, good: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (good(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await sleep(250);
  }
}
const nodeOf = (pod: string) =>
  eventually(
    `${pod} scheduled`,
    async () => (await c.k(['get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}'])).stdout,
    (n) => n !== '',
  );
const podYaml = (name: string, spec: string, labels = `{app: ${name}}`) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: ${labels}}
spec:
${spec}
  containers:
  - name: c
    image: nginx
`;

describe('scheduling decisions', () => {
  test('a Pod bigger than any node stays Pending with kube FailedScheduling message', async () => {
    // Requests beyond every node's allocatable are unresolvable, so kube reports that preemption cannot help.
    ok(
      await c.k(
        ['apply', '-f', '-'],
        podYaml('huge', '  terminationGracePeriodSeconds: 0').replace(
          'image: nginx',
          'image: nginx\n    resources: {requests: {cpu: "64"}}',
        ),
      ),
    );
    const message = await eventually(
      'PodScheduled=False',
      async () => (await c.k(['get', 'pod', 'huge', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).stdout,
      (m) => m !== '',
    );
    assert.equal(
      message,
      // The control-plane node's taint counts, as on a kubeadm or kind cluster.
      '0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient cpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.',
    );
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=huge,reason=FailedScheduling']));
    assert.match(
      events,
      /FailedScheduling\s+pod\/huge\s+0\/4 nodes are available: 1 node\(s\) had untolerated taint .*, 3 Insufficient cpu/,
    );
    assert.equal((await c.k(['get', 'pod', 'huge', '-o', 'jsonpath={.status.phase}'])).stdout, 'Pending');
    ok(await c.k(['delete', 'pod', 'huge']));
  });

  test('nodeSelector waits for a label; labelling a node schedules the Pod there', async () => {
    ok(await c.k(['apply', '-f', '-'], podYaml('picky', '  nodeSelector: {disk: ssd}')));
    await sleep(1500);
    assert.equal((await c.k(['get', 'pod', 'picky', '-o', 'jsonpath={.spec.nodeName}'])).stdout, '');
    ok(await c.k(['label', 'node', 'node-1', 'disk=ssd']));
    assert.equal(await nodeOf('picky'), 'node-1');
    const decision = JSON.parse(
      ok(await c.k(['get', 'pod', 'picky', '-o', 'jsonpath={.metadata.annotations.ksim\\.io/scheduling-decision}'])),
    );
    assert.ok(decision, 'the scheduler explains its choice');
  });

  test('taints repel Pods without a toleration; a toleration lets them in', async () => {
    ok(await c.k(['taint', 'node', 'node-0', 'dedicated=db:NoSchedule']));
    ok(await c.k(['taint', 'node', 'node-2', 'dedicated=db:NoSchedule']));
    ok(await c.k(['apply', '-f', '-'], podYaml('plain', '  terminationGracePeriodSeconds: 0')));
    assert.equal(await nodeOf('plain'), 'node-1');
    ok(
      await c.k(
        ['apply', '-f', '-'],
        podYaml(
          'tolerant',
          '  nodeSelector: {kubernetes.io/hostname: node-2}\n  tolerations: [{key: dedicated, operator: Equal, value: db, effect: NoSchedule}]',
        ),
      ),
    );
    assert.equal(await nodeOf('tolerant'), 'node-2');
    ok(await c.k(['taint', 'node', 'node-0', 'dedicated-']));
    ok(await c.k(['taint', 'node', 'node-2', 'dedicated-']));
  });

  test('cordon keeps new Pods off a node; uncordon lets them back', async () => {
    ok(await c.k(['cordon', 'node-0']));
    ok(await c.k(['cordon', 'node-1']));
    assert.match(ok(await c.k(['get', 'node', 'node-0'])), /Ready,SchedulingDisabled/);
    ok(await c.k(['apply', '-f', '-'], podYaml('cordoned', '  nodeSelector: {kubernetes.io/hostname: node-0}')));
    await sleep(1500);
    assert.equal((await c.k(['get', 'pod', 'cordoned', '-o', 'jsonpath={.spec.nodeName}'])).stdout, '');
    ok(await c.k(['uncordon', 'node-0']));
    ok(await c.k(['uncordon', 'node-1']));
    assert.equal(await nodeOf('cordoned'), 'node-0');
  });

  test('required anti-affinity by hostname puts one replica per node', async () => {
    const affinity = `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: spread}}
        topologyKey: kubernetes.io/hostname`;
    for (const n of ['s1', 's2', 's3']) ok(await c.k(['apply', '-f', '-'], podYaml(n, affinity, '{app: spread}')));
    const nodes = await Promise.all(['s1', 's2', 's3'].map(nodeOf));
    assert.equal(new Set(nodes).size, 3);
    ok(await c.k(['apply', '-f', '-'], podYaml('s4', affinity, '{app: spread}')));
    const message = await eventually(
      's4 unschedulable',
      async () => (await c.k(['get', 'pod', 's4', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).stdout,
      (m) => m !== '',
    );
    assert.match(
      message,
      /^0\/4 nodes are available: 1 node\(s\) had untolerated taint \{node-role.kubernetes.io\/control-plane: \}, 3 node\(s\) didn't match pod anti-affinity rules\./,
    );
  });

  test('topology spread and default spreading place replicas evenly', async () => {
    ok(await c.k(['create', 'deployment', 'even', '--image=nginx', '--replicas=6']));
    ok(await c.k(['rollout', 'status', 'deploy/even', '--timeout=60s']));
    const nodes = ok(await c.k(['get', 'pods', '-l', 'app=even', '-o', 'jsonpath={.items[*].spec.nodeName}'])).split(' ');
    const counts = ['node-0', 'node-1', 'node-2'].map((n) => nodes.filter((x) => x === n).length);
    assert.deepEqual(counts, [2, 2, 2], `placement: ${nodes.join(',')}`);
    const spread = `  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: ts}}`;
    for (const n of ['t1', 't2', 't3']) ok(await c.k(['apply', '-f', '-'], podYaml(n, spread, '{app: ts}')));
    const placed = await Promise.all(['t1', 't2', 't3'].map(nodeOf));
    assert.equal(new Set(placed).size, 3);
  });

  test('required node affinity picks the labelled node; preferred affinity leans towards one', async () => {
    ok(await c.k(['label', 'node', 'node-2', 'zone=blue']));
    const required = `  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [blue]}]`;
    ok(await c.k(['apply', '-f', '-'], podYaml('affine', required)));
    assert.equal(await nodeOf('affine'), 'node-2');
    const preferred = `  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        preference:
          matchExpressions: [{key: zone, operator: In, values: [blue]}]`;
    ok(await c.k(['apply', '-f', '-'], podYaml('leaning', preferred)));
    assert.equal(await nodeOf('leaning'), 'node-2');
  });

  test('a high-priority Pod that fits nowhere preempts lower-priority Pods', async () => {
    ok(await c.k(['create', 'priorityclass', 'important', '--value=1000']));
    // Fill every node's 4 CPUs with low-priority Pods.
    for (let i = 0; i < 3; i++) {
      ok(
        await c.k(
          ['apply', '-f', '-'],
          podYaml(`filler-${i}`, `  nodeName: node-${i}\n  terminationGracePeriodSeconds: 0`, '{app: filler}').replace(
            'image: nginx',
            'image: nginx\n    resources: {requests: {cpu: "3500m"}}',
          ),
        ),
      );
    }
    await eventually(
      'fillers running',
      async () =>
        (await c.k(['get', 'pods', '-l', 'app=filler', '--field-selector=status.phase=Running', '-o', 'name'])).stdout
          .trim()
          .split('\n')
          .filter(Boolean).length,
      (n) => n === 3,
    );
    ok(
      await c.k(
        ['apply', '-f', '-'],
        podYaml('vip', '  priorityClassName: important\n  terminationGracePeriodSeconds: 0').replace(
          'image: nginx',
          'image: nginx\n    resources: {requests: {cpu: "3"}}',
        ),
      ),
    );
    const node = await nodeOf('vip');
    assert.match(node, /^node-[012]$/);
    const events = ok(await c.k(['get', 'events', '--field-selector', 'reason=Preempted']));
    assert.match(events, /Preempted by pod/);
    assert.equal((await c.k(['get', 'pod', 'vip', '-o', 'jsonpath={.spec.priority}'])).stdout, '1000');
  });

  test('a Pod with spec.nodeName bypasses the scheduler', async () => {
    ok(await c.k(['apply', '-f', '-'], podYaml('direct', '  nodeName: node-2\n  nodeSelector: {nowhere: "true"}')));
    assert.equal(await nodeOf('direct'), 'node-2');
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=direct']));
    assert.doesNotMatch(events, /Scheduled/);
  });
});
