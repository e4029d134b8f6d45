// helm 4 with the chart `helm create` writes, unmodified but for its HPA and
// Ingress switched on (--set autoscaling.enabled=true,ingress.enabled=true),
// through a release's whole life on `ksim up`: install --wait, `helm test`
// (the chart's test Pod wgets the Service through the simulated network),
// upgrade, rollback, history, list and uninstall. Afterwards nothing of the
// release is left but the test Pod: helm leaves hook resources alone by
// design (they are not part of the release's manifest).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { helm, ok, removeTempDir, startCluster, tempDir, until, type Cluster, type ToolResult } from './helpers/index.ts';

let c: Cluster;
let dir: string;
let chart: string;
const RELEASE = 'stock';
const NAME = 'stock-mychart';
const SET = ['--set', 'autoscaling.enabled=true,ingress.enabled=true'];

before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  dir = await tempDir('helm-stock');
  chart = join(dir, 'mychart');
  const created = await helm(['create', chart], { kubeconfig: c.kubeconfig });
  assert.equal(created.code, 0, created.stderr);
});
after(async () => {
  await c?.stop();
  if (dir) await removeTempDir(dir);
});

const h = (args: string[]): Promise<ToolResult> => helm(args, { kubeconfig: c.kubeconfig, timeoutMs: 120_000 });
const passes = async (args: string[]): Promise<string> => {
  const r = await h(args);
  assert.equal(r.code, 0, `helm ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};
const image = () => c.jsonpath(['get', 'deploy', NAME], '{.spec.template.spec.containers[0].image}');
const labelled = async (kinds: string) =>
  ok(await c.k(['get', kinds, '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name']))
    .split('\n')
    .filter(Boolean)
    .sort();

/** `helm test`: the test Pod runs to Succeeded, and its log shows the Service's page fetched. */
async function chartTest(): Promise<void> {
  const out = await passes(['test', RELEASE, '--logs']);
  assert.match(out, new RegExp(`TEST SUITE:\\s+${NAME}-test-connection`));
  assert.match(out, /Phase:\s+Succeeded/);
  assert.match(out, new RegExp(`Connecting to ${NAME} \\(10\\.96\\.\\d+\\.\\d+:80\\)`));
  assert.match(out, /'index\.html' saved/);
}

test('the stock chart with HPA and Ingress: install, test, upgrade, rollback, history, list, uninstall', { timeout: 300_000 }, async () => {
  const installed = await passes(['install', RELEASE, chart, ...SET, '--wait', '--timeout', '60s']);
  assert.match(installed, /STATUS: deployed/);
  assert.match(installed, /REVISION: 1/);
  assert.deepEqual(await labelled('deploy,svc,sa,hpa,ingress'), [
    `deployment.apps/${NAME}`,
    `horizontalpodautoscaler.autoscaling/${NAME}`,
    `ingress.networking.k8s.io/${NAME}`,
    `service/${NAME}`,
    `serviceaccount/${NAME}`,
  ]);
  assert.equal(await c.jsonpath(['get', 'hpa', NAME], '{.spec.scaleTargetRef.kind}/{.spec.scaleTargetRef.name}'), `Deployment/${NAME}`);
  assert.equal(await c.jsonpath(['get', 'ingress', NAME], '{.spec.rules[0].host}'), 'chart-example.local');
  // The Deployment leaves its replica count to the HPA (the chart omits spec.replicas); the default is 1.
  assert.equal(await c.jsonpath(['get', 'deploy', NAME], '{.status.readyReplicas}'), '1');
  assert.equal(await image(), 'nginx:1.16.0');
  await chartTest();

  const upgraded = await passes(['upgrade', RELEASE, chart, ...SET, '--set', 'image.tag=1.27', '--wait', '--timeout', '60s']);
  assert.match(upgraded, /REVISION: 2/);
  assert.equal(await image(), 'nginx:1.27');
  assert.equal(await c.jsonpath(['get', 'deploy', NAME], '{.status.updatedReplicas}/{.status.readyReplicas}'), '1/1');

  assert.match(await passes(['rollback', RELEASE, '1', '--wait']), /Rollback was a success/);
  assert.equal(await image(), 'nginx:1.16.0');
  // The test hook runs again (its default before-hook-creation policy replaces the old Pod).
  await chartTest();

  const history = JSON.parse(await passes(['history', RELEASE, '-o', 'json'])) as {
    revision: number;
    status: string;
    description: string;
  }[];
  assert.deepEqual(
    history.map((r) => [r.revision, r.status, r.description]),
    [
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ],
  );
  const list = JSON.parse(await passes(['list', '-o', 'json'])) as { name: string; revision: string; status: string; chart: string }[];
  assert.deepEqual(
    list.map((r) => [r.name, r.revision, r.status, r.chart]),
    [[RELEASE, '3', 'deployed', 'mychart-0.1.0']],
  );

  assert.match(await passes(['uninstall', RELEASE, '--wait', '--timeout', '60s']), /release "stock" uninstalled/);
  // The manifest's objects are gone, and with them (by the garbage collector) the ReplicaSets and their Pods.
  assert.deepEqual(await labelled('deploy,svc,sa,hpa,ingress,rs'), []);
  await until(async () => (await labelled('pods')).join() === `pod/${NAME}-test-connection`, 'only the test Pod left', 60_000);
  // helm's release records (Secrets) go too.
  assert.equal(ok(await c.k(['get', 'secrets', '-l', `owner=helm,name=${RELEASE}`, '-o', 'name'])), '');
  assert.deepEqual(JSON.parse(await passes(['list', '-A', '-o', 'json'])), []);
  const gone = await h(['status', RELEASE]);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /release: not found/);
});
