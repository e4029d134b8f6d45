// `kubectl rollout history` and `rollout undo` against `ksim up`: each
// revision keeps the change-cause it was rolled out with (the controller
// copies the Deployment's annotations only onto the new ReplicaSet), a
// revision's template can be shown, and undo brings an old revision's cause
// back under a new revision number, as on a real cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, until } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
});
after(() => c?.stop());

const CAUSE = 'kubernetes.io/change-cause';
const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hist
  annotations: {${CAUSE}: "create hist at nginx:1.26"}
spec:
  replicas: 2
  selector: {matchLabels: {app: hist}}
  template:
    metadata: {labels: {app: hist}}
    spec:
      containers:
      - {name: web, image: "nginx:1.26"}
`;

/** The REVISION / CHANGE-CAUSE rows of `rollout history`, as [revision, cause]. */
function rows(out: string): [string, string][] {
  const lines = out.split('\n');
  const header = lines.findIndex((l) => /^REVISION\s+CHANGE-CAUSE$/.test(l));
  assert.ok(header > 0, `no header in:\n${out}`);
  return lines
    .slice(header + 1)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const m = /^(\d+)\s+(.*)$/.exec(l);
      assert.ok(m, `bad row ${JSON.stringify(l)}`);
      return [m[1], m[2].trimEnd()];
    });
}

test('each revision keeps its own change-cause; --revision shows its template; undo reuses revision 1 under a new number', async () => {
  ok(await c.k(['create', '-f', '-'], manifest));
  ok(await c.k(['rollout', 'status', 'deploy/hist', '--timeout=60s']));
  for (const v of ['1.27', '1.28', '1.29']) {
    ok(await c.k(['set', 'image', 'deploy/hist', `web=nginx:${v}`]));
    ok(await c.k(['annotate', 'deploy/hist', `${CAUSE}=set image nginx:${v}`, '--overwrite']));
    ok(await c.k(['rollout', 'status', 'deploy/hist', '--timeout=60s']));
    // An annotation does not move the generation, so rollout status may finish
    // before the controller has copied it: wait for the new ReplicaSet to carry it.
    await until(
      async () => {
        const rss = JSON.parse(ok(await c.k(['get', 'rs', '-l', 'app=hist', '-o', 'json']))).items;
        return rss.some(
          (r: any) =>
            r.spec.template.spec.containers[0].image === `nginx:${v}` && r.metadata.annotations?.[CAUSE] === `set image nginx:${v}`,
        );
      },
      `the nginx:${v} ReplicaSet to carry its change-cause`,
      30_000,
    );
  }

  const history = ok(await c.k(['rollout', 'history', 'deployment/hist']));
  assert.match(history, /^deployment\.apps\/hist \n/, 'kubectl names the object first');
  assert.deepEqual(rows(history), [
    ['1', 'create hist at nginx:1.26'],
    ['2', 'set image nginx:1.27'],
    ['3', 'set image nginx:1.28'],
    ['4', 'set image nginx:1.29'],
  ]);

  const two = ok(await c.k(['rollout', 'history', 'deployment/hist', '--revision=2']));
  assert.match(two, /^deployment\.apps\/hist with revision #2\nPod Template:\n/);
  assert.match(two, /^\s+Image:\s+nginx:1\.27$/m);
  assert.match(two, new RegExp(`^\\s+Annotations:\\s+${CAUSE.replace(/\./g, '\\.')}: set image nginx:1\\.27$`, 'm'));
  const none = await c.k(['rollout', 'history', 'deployment/hist', '--revision=9']);
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, /unable to find the specified revision/);

  assert.match(ok(await c.k(['rollout', 'undo', 'deployment/hist', '--to-revision=1'])), /^deployment\.apps\/hist rolled back$/m);
  ok(await c.k(['rollout', 'status', 'deploy/hist', '--timeout=60s']));
  assert.equal(
    ok(await c.k(['get', 'deploy', 'hist', '-o', `jsonpath={.metadata.annotations.kubernetes\\.io/change-cause}`])),
    'create hist at nginx:1.26',
  );
  assert.deepEqual(rows(ok(await c.k(['rollout', 'history', 'deployment/hist']))), [
    ['2', 'set image nginx:1.27'],
    ['3', 'set image nginx:1.28'],
    ['4', 'set image nginx:1.29'],
    ['5', 'create hist at nginx:1.26'],
  ]);
  // The reused ReplicaSet remembers the revision it had before.
  const rs = JSON.parse(ok(await c.k(['get', 'rs', '-l', 'app=hist', '-o', 'json']))).items.find(
    (r: any) => r.spec.template.spec.containers[0].image === 'nginx:1.26',
  );
  assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '5');
  assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
  // Go's omitempty: a zero minReadySeconds is not in a kube ReplicaSet.
  assert.ok(!('minReadySeconds' in rs.spec), JSON.stringify(rs.spec));
  assert.equal(
    ok(await c.k(['get', 'deploy', 'hist', '-o', `jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}`])),
    '5',
  );
});
