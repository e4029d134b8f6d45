// ReplicationControllers and NoExecute taint eviction on `ksim up --nodes 2
// --speed 10`, with the real kubectl. An RC made from YAML gets kube's
// defaults, creates its Pods, scales (kubectl scale rc), is listed, described
// and exposed, and takes its Pods with it when deleted. Taint eviction honours
// each Pod's own tolerationSeconds: a Pod that does not tolerate a NoExecute
// taint goes at once, one tolerating it for 10 s goes after 1 s (10 s at speed
// 10) even for a taint made with kubectl taint, whose countdown no requeue
// restarts, a countdown is cancelled when the taint goes, and a partitioned
// node's Pods get the DisruptionTarget condition.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const podNames = async (selector: string) =>
  (await c.jsonpath(['get', 'pods', '-l', selector], '{.items[*].metadata.name}')).split(' ').filter(Boolean);
const exists = async (pod: string) => (await c.k(['get', 'pod', pod, '-o', 'name'])).code === 0;
const events = async (reason: string) =>
  ok(await c.k(['get', 'events', '--field-selector', `reason=${reason}`, '-o', 'custom-columns=MSG:.message']));

const rc = `apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
`;

describe('ReplicationController', () => {
  test('created from YAML: defaults, Pods owned by it, printed columns', async () => {
    ok(await c.k(['apply', '-f', '-'], rc));
    assert.equal(await c.jsonpath(['get', 'rc', 'web'], '{.spec.selector.app} {.metadata.labels.app}'), 'web web');
    await eventually('3 ready replicas', async () => (await c.jsonpath(['get', 'rc', 'web'], '{.status.readyReplicas}')) === '3');
    const pods = await podNames('app=web');
    assert.equal(pods.length, 3);
    assert.match(pods[0], /^web-[a-z0-9]{5}$/);
    assert.equal(
      await c.jsonpath(
        ['get', 'pod', pods[0]],
        '{.metadata.ownerReferences[0].apiVersion}/{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].controller}',
      ),
      'v1/ReplicationController true',
    );
    assert.match(ok(await c.k(['get', 'rc', 'web'])), /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nweb\s+3\s+3\s+3\s+\d+s\n$/);
    assert.match(ok(await c.k(['get', 'rc', 'web', '-o', 'wide'])), /CONTAINERS\s+IMAGES\s+SELECTOR\n.*web\s+nginx:1\.27\s+app=web/);
    assert.equal(await c.jsonpath(['get', 'rc', 'web'], '{.status.observedGeneration} {.metadata.generation}'), '1 1');
    assert.match(await events('SuccessfulCreate'), /Created pod: web-/);
  });

  test('kubectl scale rc, up and down; the scale subresource shows its selector', async () => {
    ok(await c.k(['scale', 'rc', 'web', '--replicas=5']));
    await eventually('5 ready replicas', async () => (await c.jsonpath(['get', 'rc', 'web'], '{.status.readyReplicas}')) === '5');
    const scale = JSON.parse(ok(await c.k(['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/web/scale'])));
    assert.deepEqual(
      [scale.kind, scale.apiVersion, scale.spec, scale.status],
      ['Scale', 'autoscaling/v1', { replicas: 5 }, { replicas: 5, selector: 'app=web' }],
    );
    ok(await c.k(['scale', 'rc', 'web', '--replicas=2']));
    await eventually('2 pods', async () => (await podNames('app=web')).length === 2);
    assert.equal(await c.jsonpath(['get', 'rc', 'web'], '{.metadata.generation}'), '3');
    assert.match(await events('SuccessfulDelete'), /Deleted pod: web-/);
  });

  test('describe and expose', async () => {
    // Terminating Pods still count in describe's Pods Status: wait for them to go.
    await eventually(
      '2 pods, 2 replicas reported',
      async () => (await podNames('app=web')).length === 2 && (await c.jsonpath(['get', 'rc', 'web'], '{.status.replicas}')) === '2',
    );
    const described = ok(await c.k(['describe', 'rc', 'web']));
    assert.match(described, /^Selector:\s+app=web$/m);
    assert.match(described, /^Replicas:\s+2 current \/ 2 desired$/m);
    assert.match(described, /^Pods Status:\s+2 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    assert.match(described, /SuccessfulCreate\s+.*Created pod: web-/);
    ok(await c.k(['expose', 'rc', 'web', '--port=80', '--name=web']));
    assert.equal(await c.jsonpath(['get', 'svc', 'web'], '{.spec.selector.app}'), 'web');
    await eventually(
      '2 endpoints',
      async () => (await c.jsonpath(['get', 'endpoints', 'web'], '{.subsets[*].addresses[*].ip}')).split(' ').filter(Boolean).length === 2,
    );
  });

  test('a Pod deleted by hand is replaced; a matching orphan is adopted and the excess removed', async () => {
    const [victim] = await podNames('app=web');
    ok(await c.k(['delete', 'pod', victim, '--wait=false']));
    await eventually('a replacement', async () => (await podNames('app=web')).filter((p) => p !== victim).length === 2);
    const stray = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    };
    ok(await c.k(['apply', '-f', '-'], JSON.stringify(stray)));
    // Three Pods for two replicas: one goes (the orphan, once adopted, is the newest and least ready).
    await eventually('back to 2 pods', async () => (await podNames('app=web')).length === 2);
    const adopted = await c.k(['get', 'pod', 'stray', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}']);
    assert.ok(adopted.code !== 0 || adopted.stdout === 'ReplicationController', `stray adopted or gone: ${adopted.stdout}`);
    assert.match(await events('SuccessfulDelete'), /Deleted pod: /);
  });

  test("a PodDisruptionBudget over an RC's Pods counts the RC's replicas (the disruption controller finds RC owners)", async () => {
    ok(await c.k(['create', 'pdb', 'web', '--selector=app=web', '--max-unavailable=1']));
    await eventually('the budget to count the RC', async () => (await c.jsonpath(['get', 'pdb', 'web'], '{.status.expectedPods}')) === '2');
    assert.equal(await c.jsonpath(['get', 'pdb', 'web'], '{.status.disruptionsAllowed}'), '1');
    ok(await c.k(['delete', 'pdb', 'web']));
  });

  test("an invalid RC is refused with kube's message", async () => {
    const bad = rc
      .replace('metadata: {name: web}', 'metadata: {name: bad}')
      .replace('  replicas: 3\n', '  replicas: 1\n  selector: {app: other}\n');
    const r = await c.k(['create', '-f', '-'], bad);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /ReplicationController "bad" is invalid: spec.template.metadata.labels: Invalid value: map\[string\]string\{"app":"web"\}: `selector` does not match template `labels`/,
    );
  });

  test('deleting the RC deletes its Pods', async () => {
    ok(await c.k(['delete', 'rc', 'web']));
    await eventually('no web pods', async () => (await podNames('app=web')).length === 0);
    ok(await c.k(['delete', 'svc', 'web']));
  });
});

/** A bare Pod pinned to `node`, tolerating `tolerations`. */
const pinned = (name: string, node: string, tolerations: object[]) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { lab: 'taints' } },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }], tolerations },
  });
const running = async (pods: string[]) => {
  const phases = await c.jsonpath(['get', 'pods', ...pods], '{.items[*].status.phase}');
  return phases.split(' ').filter((p) => p === 'Running').length === pods.length;
};

describe('NoExecute taint eviction', () => {
  test('kubectl taint: untolerated at once, tolerationSeconds honoured, a countdown cancelled when the taint goes', async () => {
    const dedicated = (seconds: number) => [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }];
    for (const p of [pinned('plain', 'node-1', []), pinned('brief', 'node-1', dedicated(10)), pinned('patient', 'node-1', dedicated(3600))])
      ok(await c.k(['apply', '-f', '-'], p));
    await eventually('the pods running', () => running(['plain', 'brief', 'patient']));
    ok(await c.k(['taint', 'node', 'node-1', 'dedicated=lab:NoExecute']));
    const t0 = Date.now();
    await eventually('plain evicted', async () => !(await exists('plain')), 10_000);
    // 10 s at speed 10: about a second after the taint, and never in the same instant.
    await eventually('brief evicted', async () => !(await exists('brief')), 10_000);
    assert.ok(Date.now() - t0 >= 900, `brief went after ${Date.now() - t0} ms, before its toleration ran out`);
    assert.equal(await c.jsonpath(['get', 'pod', 'patient'], '{.metadata.deletionTimestamp}'), '');
    const marked = await events('TaintManagerEviction');
    assert.match(marked, /Marking for deletion Pod default\/plain/);
    assert.match(marked, /Marking for deletion Pod default\/brief/);
    assert.doesNotMatch(marked, /default\/patient/);
    ok(await c.k(['taint', 'node', 'node-1', 'dedicated-']));
    await eventually('the cancellation event', async () =>
      /Cancelling deletion of Pod default\/patient/.test(await events('TaintManagerEviction')),
    );
    assert.equal(await c.jsonpath(['get', 'pod', 'patient'], '{.metadata.deletionTimestamp}'), '');
    ok(await c.k(['delete', 'pod', 'patient', '--wait=false']));
  });

  test('a partitioned node: its Pods go when their own tolerationSeconds run out, with the DisruptionTarget condition', async () => {
    const unreachable = (seconds?: number) => [
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        ...(seconds ? { tolerationSeconds: seconds } : {}),
      },
    ];
    ok(await c.k(['apply', '-f', '-'], pinned('fast', 'node-1', unreachable(40))));
    ok(await c.k(['apply', '-f', '-'], pinned('stays', 'node-1', unreachable())));
    await eventually('the pods running', () => running(['fast', 'stays']));
    const res = await fetch(`${c.endpointOf('kubelet-sim')}/nodes/node-1/partition`, { method: 'POST' });
    assert.equal(res.status, 200);
    try {
      await eventually('node-1 tainted unreachable:NoExecute', async () =>
        /unreachable:NoExecute/.test(await c.jsonpath(['get', 'node', 'node-1'], '{range .spec.taints[*]}{.key}:{.effect} {end}')),
      );
      // The kubelet cannot confirm the deletion: the Pod stays Terminating, with the condition.
      await eventually(
        'fast marked for deletion',
        async () => (await c.jsonpath(['get', 'pod', 'fast'], '{.metadata.deletionTimestamp}')) !== '',
      );
      assert.equal(
        await c.jsonpath(
          ['get', 'pod', 'fast'],
          '{.status.conditions[?(@.type=="DisruptionTarget")].status} {.status.conditions[?(@.type=="DisruptionTarget")].reason}',
        ),
        'True DeletionByTaintManager',
      );
      assert.equal(
        await c.jsonpath(['get', 'pod', 'fast'], '{.status.conditions[?(@.type=="DisruptionTarget")].message}'),
        'Taint manager: deleting due to NoExecute taint',
      );
      assert.equal(await c.jsonpath(['get', 'pod', 'stays'], '{.metadata.deletionTimestamp}'), '', 'tolerated forever');
      assert.match(await events('TaintManagerEviction'), /Marking for deletion Pod default\/fast/);
    } finally {
      await fetch(`${c.endpointOf('kubelet-sim')}/nodes/node-1/heal`, { method: 'POST' });
    }
    await eventually('node-1 untainted', async () => (await c.jsonpath(['get', 'node', 'node-1'], '{.spec.taints}')) === '');
  });
});
