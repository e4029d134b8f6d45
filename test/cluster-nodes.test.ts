// Node failure on `ksim up --nodes 3 --speed 50`, with the real kubectl: a
// node cut off from the apiserver goes NotReady (Ready=Unknown) with the
// unreachable taints, its Deployment Pods are evicted once their 300 s
// tolerations run out (6 s at speed 50) and replaced on other nodes; when
// the node is back, the taints go. Also: drain moves Pods off a node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 50 });
});
after(() => c?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
const podsOn = async (node: string, app: string) =>
  ok(await c.k(['get', 'pods', '-l', `app=${app}`, '--field-selector', `spec.nodeName=${node}`, '-o', 'name']))
    .trim()
    .split('\n')
    .filter(Boolean);

test('a partitioned node goes NotReady and tainted; its Pods are evicted and replaced; healing clears the taints', async () => {
  ok(await c.k(['create', 'deployment', 'svc', '--image=nginx', '--replicas=6']));
  ok(await c.k(['rollout', 'status', 'deploy/svc', '--timeout=60s']));
  const before = await podsOn('node-1', 'svc');
  assert.ok(before.length > 0, 'some replicas run on node-1');
  const res = await fetch(`${c.endpointOf('kubelet-sim')}/nodes/node-1/partition`, { method: 'POST' });
  assert.equal(res.status, 200);
  await eventually('node-1 NotReady', async () => /node-1\s+NotReady/.test((await c.k(['get', 'nodes'])).stdout));
  const taints = ok(await c.k(['get', 'node', 'node-1', '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect}{"\\n"}{end}']));
  assert.match(taints, /node\.kubernetes\.io\/unreachable:NoSchedule/);
  assert.match(taints, /node\.kubernetes\.io\/unreachable:NoExecute/);
  const tolerations = ok(
    await c.k(['get', before[0], '-o', 'jsonpath={.spec.tolerations[?(@.key=="node.kubernetes.io/unreachable")].tolerationSeconds}']),
  );
  assert.equal(tolerations, '300');
  // The evicted Pods stay Terminating (their kubelet cannot confirm); replacements run elsewhere.
  await eventually('6 running replicas off node-1', async () => {
    const rows = ok(
      await c.k([
        'get',
        'pods',
        '-l',
        'app=svc',
        '--field-selector',
        'status.phase=Running',
        '--no-headers',
        '-o',
        'custom-columns=NODE:.spec.nodeName,DELETED:.metadata.deletionTimestamp',
      ]),
    );
    const live = rows.split('\n').filter((l) => /<none>\s*$/.test(l) && !l.startsWith('node-1'));
    return live.length >= 6;
  });
  const events = ok(await c.k(['get', 'events', '--field-selector', 'reason=TaintManagerEviction']));
  assert.match(events, /Marking for deletion Pod default\/svc-/);
  await fetch(`${c.endpointOf('kubelet-sim')}/nodes/node-1/heal`, { method: 'POST' });
  await eventually('node-1 Ready and untainted', async () => {
    const out = (await c.k(['get', 'node', 'node-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.spec.taints}']))
      .stdout;
    return out.trim() === 'True';
  });
});

test('kubectl drain moves a Deployment off a node, honouring its PodDisruptionBudget', async () => {
  ok(await c.k(['create', 'deployment', 'drained', '--image=nginx', '--replicas=4']));
  ok(await c.k(['rollout', 'status', 'deploy/drained', '--timeout=60s']));
  ok(await c.k(['create', 'pdb', 'drained', '--selector=app=drained', '--min-available=3']));
  ok(await c.k(['drain', 'node-2', '--ignore-daemonsets', '--timeout=90s']));
  assert.deepEqual(await podsOn('node-2', 'drained'), []);
  ok(await c.k(['rollout', 'status', 'deploy/drained', '--timeout=60s']));
  assert.match(ok(await c.k(['get', 'node', 'node-2'])), /SchedulingDisabled/);
  ok(await c.k(['uncordon', 'node-2']));
});
