// Node failure on `ksim up --nodes 3 --speed 50`, with the real kubectl: a
// node cut off from the apiserver goes NotReady (Ready=Unknown) with the
// unreachable taints, its Deployment Pods are evicted once their 300 s
// tolerations run out (6 s at speed 50) and replaced on other nodes; when
// the node is back, the taints go. Also: drain moves Pods off a node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startCluster, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 50 });
});
after(() => c?.stop());

/** Node failure and recovery take longer than most waits. */
const NODE_WAIT_MS = 60_000;
const podsOn = async (node: string, app: string) =>
  ok(await c.k(['get', 'pods', '-l', `app=${app}`, '--field-selector', `spec.nodeName=${node}`, '-o', 'name']))
    .trim()
    .split('\n')
    .filter(Boolean);

test('a partitioned node goes NotReady and tainted; its Pods are evicted and replaced; healing clears the taints', async () => {
  ok(await c.k(['create', 'deployment', 'svc', '--image=nginx', '--replicas=6']));
  ok(await c.k(['rollout', 'status', 'deploy/svc', '--timeout=60s']));
  // Cut off a node that runs replicas. Which nodes those are is the scheduler's choice: a node the scheduler
  // still saw tainted when the Pods were created gets none, so the test does not assume node-1 is one.
  const nodes = ok(await c.k(['get', 'pods', '-l', 'app=svc', '-o', 'jsonpath={.items[*].spec.nodeName}'])).split(/\s+/);
  const target = nodes.filter(Boolean).sort((a, b) => nodes.filter((n) => n === b).length - nodes.filter((n) => n === a).length)[0];
  assert.ok(target, 'the replicas are scheduled');
  const before = await podsOn(target, 'svc');
  assert.ok(before.length > 0, `some replicas run on ${target}`);
  const res = await fetch(`${c.endpointOf('kubelet-sim')}/nodes/${target}/partition`, { method: 'POST' });
  assert.equal(res.status, 200);
  await eventually(
    `${target} NotReady`,
    async () => new RegExp(`${target}\\s+NotReady`).test((await c.k(['get', 'nodes'])).stdout),
    NODE_WAIT_MS,
  );
  // The node lifecycle controller writes Ready=Unknown first and the taints in later writes, as kube's does.
  const taintsOf = async () => ok(await c.k(['get', 'node', target, '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect}{"\\n"}{end}']));
  await eventually(
    `${target} tainted unreachable`,
    async () => {
      const t = await taintsOf();
      return /node\.kubernetes\.io\/unreachable:NoSchedule/.test(t) && /node\.kubernetes\.io\/unreachable:NoExecute/.test(t);
    },
    NODE_WAIT_MS,
  );
  const taints = await taintsOf();
  assert.match(taints, /node\.kubernetes\.io\/unreachable:NoSchedule/);
  assert.match(taints, /node\.kubernetes\.io\/unreachable:NoExecute/);
  const tolerations = ok(
    await c.k(['get', before[0], '-o', 'jsonpath={.spec.tolerations[?(@.key=="node.kubernetes.io/unreachable")].tolerationSeconds}']),
  );
  assert.equal(tolerations, '300');
  // The evicted Pods stay Terminating (their kubelet cannot confirm); replacements run elsewhere.
  await eventually(
    `6 running replicas off ${target}`,
    async () => {
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
      const live = rows.split('\n').filter((l) => /<none>\s*$/.test(l) && !l.startsWith(target));
      return live.length >= 6;
    },
    NODE_WAIT_MS,
  );
  const events = ok(await c.k(['get', 'events', '--field-selector', 'reason=TaintManagerEviction']));
  assert.match(events, /Marking for deletion Pod default\/svc-/);
  await fetch(`${c.endpointOf('kubelet-sim')}/nodes/${target}/heal`, { method: 'POST' });
  await eventually(
    `${target} Ready and untainted`,
    async () => {
      const out = (await c.k(['get', 'node', target, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.spec.taints}']))
        .stdout;
      return out.trim() === 'True';
    },
    NODE_WAIT_MS,
  );
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
