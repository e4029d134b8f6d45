// Terminating Pods as kube treats them, on `ksim up --nodes 2 --speed 10`
// with the real kubectl. The Pods run busybox's `sleep` as PID 1, which
// ignores SIGTERM, so each stays Terminating for its whole grace period
// (60 s of cluster time, 6 s here). A Recreate rollout creates no Pod of the
// new ReplicaSet until every old Pod is gone, terminating ones included
// (kube's oldPodsRunning); the Service's EndpointSlice keeps a terminating
// Pod, not ready but still serving, with `terminating: true`, until the Pod
// is gone (kube's EndpointSliceTerminatingCondition).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startCluster, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const slowToStop = (name: string, strategy: string, version: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  strategy: {type: ${strategy}}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}, version: "${version}"}}
    spec:
      terminationGracePeriodSeconds: 60
      containers:
      - name: main
        image: busybox:1.36
        command: [sleep, "3600"]
        ports: [{containerPort: 80}]
`;

/** Each Pod of app as "NAME VERSION TERMINATING(true|false)". */
async function podsOf(app: string): Promise<string[]> {
  const out = await c.jsonpath(
    ['get', 'pods', '-l', `app=${app}`],
    '{range .items[*]}{.metadata.name} {.metadata.labels.version} {.metadata.deletionTimestamp}{"\\n"}{end}',
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [name, version, deleted] = l.split(' ');
      return `${name} ${version} ${deleted ? 'true' : 'false'}`;
    });
}

test('a Recreate rollout starts no new Pod while an old one is still terminating', async () => {
  ok(await c.k(['apply', '-f', '-'], slowToStop('recreate', 'Recreate', 'v1')));
  ok(await c.k(['rollout', 'status', 'deploy/recreate', '--timeout=60s']));
  ok(await c.k(['apply', '-f', '-'], slowToStop('recreate', 'Recreate', 'v2')));
  await eventually('the old Pods terminating', async () => (await podsOf('recreate')).some((p) => p.endsWith(' v1 true')));
  // While any v1 Pod is left, even terminating, no v2 Pod may exist.
  let sawTerminating = 0;
  for (;;) {
    const pods = await podsOf('recreate');
    const old = pods.filter((p) => p.includes(' v1 '));
    const fresh = pods.filter((p) => p.includes(' v2 '));
    if (old.length > 0) {
      assert.deepEqual(fresh, [], `new Pods while old ones remain: ${pods.join(', ')}`);
      if (old.some((p) => p.endsWith('true'))) sawTerminating++;
    } else break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(sawTerminating > 1, 'the old Pods were seen terminating for a while');
  ok(await c.k(['rollout', 'status', 'deploy/recreate', '--timeout=60s']));
  const pods = await podsOf('recreate');
  assert.equal(pods.length, 2);
  assert.ok(
    pods.every((p) => p.endsWith(' v2 false')),
    pods.join(', '),
  );
});

test("a terminating Pod stays in its Service's EndpointSlice as serving and terminating, not ready", async () => {
  ok(await c.k(['apply', '-f', '-'], slowToStop('backend', 'RollingUpdate', 'v1')));
  ok(await c.k(['rollout', 'status', 'deploy/backend', '--timeout=60s']));
  ok(await c.k(['expose', 'deploy/backend', '--port=80']));
  const endpoints = async () =>
    (
      await c.jsonpath(
        ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=backend'],
        '{range .items[*].endpoints[*]}{.targetRef.name} {.conditions.ready} {.conditions.serving} {.conditions.terminating}{"\\n"}{end}',
      )
    )
      .split('\n')
      .filter(Boolean);
  await eventually(
    'both Pods ready in the slice',
    async () => (await endpoints()).filter((e) => e.endsWith(' true true false')).length === 2,
  );
  const victim = (await podsOf('backend'))[0].split(' ')[0];
  ok(await c.k(['delete', 'pod', victim, '--wait=false']));
  await eventually('the deleted Pod marked terminating in the slice', async () =>
    (await endpoints()).includes(`${victim} false true true`),
  );
  // Still there while its container ignores SIGTERM; gone once the Pod is.
  assert.ok((await endpoints()).includes(`${victim} false true true`));
  await eventually('the deleted Pod gone from the slice', async () => !(await endpoints()).some((e) => e.startsWith(`${victim} `)), 30_000);
});
