// Deployments end to end on `ksim up --nodes 3`, driven by the real kubectl:
// apply and rollout status, scale, set image, history, undo, pause/resume,
// restart, Pod replacement, Services and endpoints, cascading deletes,
// adoption, namespace deletion, events, and a controller-manager killed in
// the middle of a rollout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 3, speed: 10 });
});
after(() => c?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const deployment = (name: string, image: string, replicas = 3, ns = 'default') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports: [{containerPort: 80, name: http}]
`;

describe('rollouts', () => {
  test('apply, rollout status, scale up and down', async () => {
    ok(await c.k(['apply', '-f', '-'], deployment('web', 'nginx:1.27')));
    assert.match(ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s'])), /successfully rolled out/);
    assert.match(ok(await c.k(['get', 'deploy', 'web'])), /^web\s+3\/3\s+3\s+3\s+/m);
    ok(await c.k(['scale', 'deploy', 'web', '--replicas=5']));
    ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
    assert.equal(await c.jsonpath(['get', 'deploy', 'web'], '{.status.availableReplicas}'), '5');
    ok(await c.k(['scale', 'deploy', 'web', '--replicas=2']));
    await eventually(
      '2 pods',
      async () => (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].metadata.name}')).split(' ').filter(Boolean).length === 2,
    );
    ok(await c.k(['wait', '--for=condition=Available', 'deploy/web', '--timeout=30s']));
  });

  test('set image rolls to a new ReplicaSet; history and undo go back to the old one', async () => {
    ok(await c.k(['set', 'image', 'deploy/web', 'web=nginx:1.28']));
    ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
    const rs = ok(await c.k(['get', 'rs', '-l', 'app=web', '--no-headers']))
      .trim()
      .split('\n');
    assert.equal(rs.length, 2);
    const history = ok(await c.k(['rollout', 'history', 'deploy/web']));
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    ok(await c.k(['rollout', 'undo', 'deploy/web']));
    ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
    assert.equal(await c.jsonpath(['get', 'deploy', 'web'], '{.spec.template.spec.containers[0].image}'), 'nginx:1.27');
    assert.equal(
      ok(await c.k(['get', 'rs', '-l', 'app=web', '--no-headers']))
        .trim()
        .split('\n').length,
      2,
      'undo reuses the old ReplicaSet',
    );
    assert.equal(await c.jsonpath(['get', 'deploy', 'web'], '{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'), '3');
    const events = ok(await c.k(['get', 'events', '--field-selector', 'involvedObject.name=web,reason=ScalingReplicaSet']));
    assert.match(events, /Scaled up replica set web-\w+ from \d+ to \d+/);
  });

  test('pause holds a template change; resume rolls it; restart rolls again', async () => {
    ok(await c.k(['rollout', 'pause', 'deploy/web']));
    ok(await c.k(['set', 'image', 'deploy/web', 'web=nginx:1.29']));
    await sleep(1500);
    assert.equal(
      ok(await c.k(['get', 'rs', '-l', 'app=web', '--no-headers']))
        .trim()
        .split('\n').length,
      2,
      'no new ReplicaSet while paused',
    );
    assert.equal(await c.jsonpath(['get', 'deploy', 'web'], '{.status.conditions[?(@.type=="Progressing")].reason}'), 'DeploymentPaused');
    ok(await c.k(['rollout', 'resume', 'deploy/web']));
    ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
    assert.match(await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].spec.containers[0].image}'), /^(nginx:1\.29 ?)+$/);
    ok(await c.k(['rollout', 'restart', 'deploy/web']));
    ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
    assert.ok(await c.jsonpath(['get', 'deploy', 'web'], '{.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}'));
  });

  test('a deleted Pod is replaced; a Service lists exactly the ready Pods', async () => {
    const [victim] = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].metadata.name}')).split(' ');
    ok(await c.k(['delete', 'pod', victim, '--wait=false']));
    await eventually('a replacement', async () => {
      const names = (
        await c.jsonpath(['get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running'], '{.items[*].metadata.name}')
      )
        .split(' ')
        .filter(Boolean);
      return names.length === 2 && !names.includes(victim);
    });
    ok(await c.k(['expose', 'deploy', 'web', '--port=80', '--target-port=http']));
    await eventually('endpoints', async () => {
      const ips = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].status.podIP}')).split(' ').filter(Boolean).sort();
      const eps = (await c.jsonpath(['get', 'endpoints', 'web'], '{.subsets[*].addresses[*].ip}')).split(' ').filter(Boolean).sort();
      return ips.length === 2 && JSON.stringify(ips) === JSON.stringify(eps);
    });
    assert.match(await c.jsonpath(['get', 'svc', 'web'], '{.spec.clusterIP}'), /^10\.(9[6-9]|1[01]\d)\.\d+\.\d+$/);
    ok(await c.k(['create', 'service', 'clusterip', 'nobody', '--tcp=80:80']));
    await eventually('an empty Endpoints', async () => (await c.k(['get', 'endpoints', 'nobody'])).stdout.includes('<none>'));
  });
});

describe('deletion and adoption', () => {
  test('delete deploy removes its ReplicaSets and Pods', async () => {
    ok(await c.k(['apply', '-f', '-'], deployment('gone', 'nginx', 2)));
    ok(await c.k(['rollout', 'status', 'deploy/gone', '--timeout=60s']));
    ok(await c.k(['delete', 'deploy', 'gone']));
    await eventually(
      'no ReplicaSets or Pods',
      async () => (await c.k(['get', 'rs,pods', '-l', 'app=gone', '-o', 'name'])).stdout.trim() === '',
    );
  });

  test('--cascade=orphan leaves the ReplicaSet without owner; a new Deployment adopts it', async () => {
    ok(await c.k(['apply', '-f', '-'], deployment('orph', 'nginx', 2)));
    ok(await c.k(['rollout', 'status', 'deploy/orph', '--timeout=60s']));
    const rsName = (await c.jsonpath(['get', 'rs', '-l', 'app=orph'], '{.items[0].metadata.name}')).trim();
    ok(await c.k(['delete', 'deploy', 'orph', '--cascade=orphan']));
    await eventually(
      'the ReplicaSet orphaned',
      async () => (await c.jsonpath(['get', 'rs', rsName], '{.metadata.ownerReferences}')) === '',
    );
    assert.equal(
      (await c.jsonpath(['get', 'pods', '-l', 'app=orph'], '{.items[*].metadata.name}')).split(' ').filter(Boolean).length,
      2,
      'pods stay',
    );
    ok(await c.k(['apply', '-f', '-'], deployment('orph', 'nginx', 2)));
    await eventually(
      'adoption',
      async () => (await c.jsonpath(['get', 'rs', rsName], '{.metadata.ownerReferences[0].kind}')) === 'Deployment',
    );
    ok(await c.k(['rollout', 'status', 'deploy/orph', '--timeout=60s']));
    assert.equal(
      ok(await c.k(['get', 'rs', '-l', 'app=orph', '--no-headers']))
        .trim()
        .split('\n').length,
      1,
    );
  });

  test('deleting a namespace empties and removes it', async () => {
    ok(await c.k(['create', 'namespace', 'doomed']));
    ok(await c.k(['apply', '-f', '-'], deployment('inner', 'nginx', 2, 'doomed')));
    ok(await c.k(['rollout', 'status', 'deploy/inner', '-n', 'doomed', '--timeout=60s']));
    ok(await c.k(['delete', 'namespace', 'doomed', '--timeout=90s']));
    const r = await c.k(['get', 'namespace', 'doomed']);
    assert.match(r.stderr, /NotFound/);
  });
});

describe('chaos', () => {
  test('a controller-manager killed mid-rollout finishes it after a restart, without extra Pods', async () => {
    ok(await c.k(['apply', '-f', '-'], deployment('chaos', 'nginx:1.27', 6)));
    ok(await c.k(['rollout', 'status', 'deploy/chaos', '--timeout=60s']));
    ok(await c.k(['set', 'image', 'deploy/chaos', 'web=nginx:1.28']));
    await sleep(300);
    process.kill(c.pidOf('controller-manager'), 'SIGKILL');
    await sleep(1000);
    await c.startComponent('controller-manager', ['--speed', '10']);
    ok(await c.k(['rollout', 'status', 'deploy/chaos', '--timeout=90s']));
    await eventually(
      'old pods gone',
      async () =>
        (await c.jsonpath(['get', 'pods', '-l', 'app=chaos'], '{.items[*].metadata.name}')).split(' ').filter(Boolean).length === 6,
    );
    const images = (await c.jsonpath(['get', 'pods', '-l', 'app=chaos'], '{.items[*].spec.containers[0].image}')).split(' ');
    assert.deepEqual([...new Set(images)], ['nginx:1.28']);
  });
});
