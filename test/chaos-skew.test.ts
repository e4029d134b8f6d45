// Clock skew of the controller-manager, with the real kubectl, on `ksim up
// --speed 10`, injected as a user does: `ksim chaos skew controller-manager
// +30s --data-dir DIR` (the supervisor sends op clock.skew down the
// component's control channel). A controller-manager whose clock runs ahead
// writes every timestamp in the future (its Lease's renewTime, its Events,
// a CronJob's lastScheduleTime) and takes its time-based decisions early (a
// CronJob fires before its time; a skew set after a Job finished makes
// ttlSecondsAfterFinished delete it early), yet keeps the Lease: others judge
// its expiry by their own observation. `ksim status` shows the skew and who
// leads; recovering the fault puts the timestamps right again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { controlRequest } from '../cli/control/client.ts';
import type { SupervisorStatus } from '../shared/chaos/protocol.ts';
import { ksimCli, ok, spawnTracked, startCluster, until, type Cluster } from './helpers/index.ts';

let c: Cluster;

/** Runs `ksim ARGS --data-dir DIR` to its end; throws with its output unless it exits 0. */
async function ksim(args: string[]): Promise<string> {
  const p = await spawnTracked(process.execPath, [ksimCli, ...args, '--data-dir', c.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.child.stdout!.on('data', (d) => (out += d));
  p.child.stderr!.on('data', (d) => (out += d));
  const timer = setTimeout(() => p.signal('SIGKILL'), 30_000);
  const { code } = await p.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`ksim ${args.join(' ')} exited ${code}: ${out}`);
  return out;
}

const controllerManager = async () => {
  const status = await controlRequest<SupervisorStatus>(c.dataDir, 'GET', 'status');
  return status.components.find((x) => x.name === 'controller-manager')!;
};

const lease = async () =>
  JSON.parse(ok(await c.k(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'json']))) as {
    spec: { renewTime: string; holderIdentity: string; leaseTransitions?: number };
  };

/** How far `stamp` is ahead of this (unskewed) machine's clock, in ms. */
const ahead = (stamp: string) => Date.parse(stamp) - Date.now();

before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
});
after(() => c?.stop());

test('a skew set after a Job finished makes ttlSecondsAfterFinished delete it early', async () => {
  // 300 s of TTL is 30 s at speed 10.
  const job = `apiVersion: batch/v1
kind: Job
metadata: {name: ttl}
spec:
  ttlSecondsAfterFinished: 300
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: "busybox:1.36", command: ["sh", "-c", "echo done"]}]
`;
  ok(await c.k(['apply', '-f', '-'], job));
  await until(
    async () => ok(await c.k(['get', 'job', 'ttl', '-o', 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'])) === 'True',
    'the Job to complete',
    30_000,
  ).catch(async (err: Error) => {
    const state = await c.k(['get', 'job,pods', '-o', 'wide']);
    throw new Error(`${err.message}\n${state.stdout}${state.stderr}`);
  });
  const finished = Date.now();
  await new Promise((r) => setTimeout(r, 1_000));
  assert.match(ok(await c.k(['get', 'jobs', '-o', 'name'])), /job\.batch\/ttl/, 'not deleted while its TTL runs on a true clock');
  assert.match(await ksim(['chaos', 'skew', 'controller-manager', '+60s']), /skewed controller-manager's clock \+60000ms/);
  // Any change to the Job makes the controller look again; its clock now says the 30 s are over.
  ok(await c.k(['label', 'job', 'ttl', 'touched=yes']));
  await until(async () => !/job\.batch\/ttl\b/.test(ok(await c.k(['get', 'jobs', '-o', 'name']))), 'the Job to be deleted', 10_000);
  const took = Date.now() - finished;
  assert.ok(took < 25_000, `deleted ${took} ms after it finished, before its 30 s TTL`);
  console.log(`ttlSecondsAfterFinished 300 at speed 10 (30 s): deleted ${took} ms after the Job finished, with +60 s skew`);
});

test('ksim status shows the skew and that the controller-manager still leads; its Lease renewTime runs 30 s ahead', async () => {
  // A new skew replaces the +60 s one.
  await ksim(['chaos', 'skew', 'controller-manager', '+30s']);
  const cm = await controllerManager();
  assert.equal(cm.clockSkewMs, 30_000);
  assert.equal(cm.leader, true);
  assert.match(await ksim(['status']), /^controller-manager\s+\d+\s+running \(clock \+30000ms\)\s+\S+\s+\d+\s+leader\s/m);
  const first = await until(async () => {
    const l = await lease();
    const lead = ahead(l.spec.renewTime);
    return lead > 25_000 && lead < 32_000 && l;
  }, 'a renewTime about 30 s ahead');
  // Three lease durations later (15 s / 10 each), the same holder, no transition.
  await new Promise((r) => setTimeout(r, 4_500));
  const later = await lease();
  assert.equal(later.spec.holderIdentity, first.spec.holderIdentity);
  assert.equal(later.spec.leaseTransitions, first.spec.leaseTransitions);
  assert.notEqual(later.spec.renewTime, first.spec.renewTime, 'it keeps renewing');
});

test("its Events are stamped 30 s in the future (the Deployment's own creationTimestamp is the apiserver's)", async () => {
  ok(await c.k(['create', 'deployment', 'skewed', '--image=nginx', '--replicas=1']));
  const created = ok(await c.k(['get', 'deployment', 'skewed', '-o', 'jsonpath={.metadata.creationTimestamp}']));
  const stamp = await until(
    async () =>
      ok(
        await c.k([
          'get',
          'events',
          '--field-selector',
          'involvedObject.kind=Deployment,involvedObject.name=skewed,reason=ScalingReplicaSet',
          '-o',
          'jsonpath={.items[0].lastTimestamp}',
        ]),
      ),
    'the ScalingReplicaSet event',
    15_000,
  );
  const lead = Date.parse(stamp) - Date.parse(created);
  assert.ok(lead >= 28_000 && lead <= 33_000, `event at ${stamp}, Deployment created at ${created}: ${lead} ms`);
  // kubectl prints the age of a timestamp in the future as <invalid>, as it does on a real cluster with a skewed node.
  assert.match(ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=skewed'])), /<invalid>/);
});

test('a CronJob fires early: a Job at once, and a lastScheduleTime in the future', async () => {
  // At speed 10 a cluster minute is 6 s; a 30 s skew is 5 cluster minutes ahead, so a schedule is always due, and the
  // latest one is within a cluster minute (6 s) of the skewed now: 24-30 s ahead of the true one.
  ok(await c.k(['create', 'cronjob', 'early', '--image=busybox', '--schedule=*/1 * * * *', '--', 'true']));
  const created = Date.now();
  const last = await until(
    async () => ok(await c.k(['get', 'cronjob', 'early', '-o', 'jsonpath={.status.lastScheduleTime}'])),
    'the CronJob to schedule',
    10_000,
  );
  const firedAfter = Date.now() - created;
  assert.ok(ahead(last) > 15_000, `lastScheduleTime ${last} is in the future (${ahead(last)} ms ahead)`);
  const jobs = ok(await c.k(['get', 'jobs', '-o', 'jsonpath={.items[*].metadata.ownerReferences[0].name}']));
  assert.match(jobs, /\bearly\b/);
  console.log(
    `CronJob */1 at speed 10 with +30 s skew: scheduled ${firedAfter} ms after creation, lastScheduleTime ${ahead(last)} ms ahead`,
  );
});

test('recovering the fault puts the clock right: renewTime is the present again, still the same leader', async () => {
  const holder = (await lease()).spec.holderIdentity;
  await ksim(['chaos', 'recover']);
  assert.equal((await controllerManager()).clockSkewMs ?? 0, 0);
  await until(async () => Math.abs(ahead((await lease()).spec.renewTime)) < 3_000, 'a renewTime of the present');
  assert.equal((await lease()).spec.holderIdentity, holder);
});
