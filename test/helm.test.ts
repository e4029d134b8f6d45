// helm 4's whole release lifecycle against a ksim cluster, with the real
// helm: install, list, status, upgrade, history, rollback and uninstall, with
// its default server-side apply and with --server-side=false. helm sends its
// DELETE bodies in protobuf; uninstall must really remove the release's
// objects (and the garbage collector their Pods).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { helm, ok, removeTempDir, startCluster, tempDir, until, type Cluster, type ToolResult } from './helpers/index.ts';

let cluster: Cluster;
let chart: string;
let dir: string;

const CHART = {
  'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
  'values.yaml': 'greeting: hello\nreplicas: 1\n',
  'templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
`,
  'templates/deploy.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}-web}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}-web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`,
  'templates/svc.yaml': `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  selector: {app: {{ .Release.Name }}-web}
  ports: [{port: 80}]
`,
};

before(async () => {
  cluster = await startCluster({ nodes: 1 });
  dir = await tempDir('helm');
  chart = join(dir, 'demo');
  for (const [file, text] of Object.entries(CHART)) {
    await mkdir(join(chart, file, '..'), { recursive: true });
    await writeFile(join(chart, file), text);
  }
});
after(async () => {
  await cluster?.stop();
  if (dir) await removeTempDir(dir);
});

const h = (args: string[]): Promise<ToolResult> => helm(args, { kubeconfig: cluster.kubeconfig, timeoutMs: 120_000 });
const passes = async (args: string[]): Promise<string> => {
  const r = await h(args);
  assert.equal(r.code, 0, `helm ${args.join(' ')}:\n${r.stderr}`);
  return r.stdout;
};
const greeting = async (release: string) => ok(await cluster.k(['get', 'cm', `${release}-cm`, '-o', 'jsonpath={.data.greeting}']));

async function lifecycle(release: string, applyFlags: string[]): Promise<void> {
  assert.match(await passes(['install', release, chart, ...applyFlags]), /STATUS: deployed/);
  assert.equal(await greeting(release), 'hello');

  const list = JSON.parse(await passes(['list', '-o', 'json']));
  const listed = list.find((r: any) => r.name === release);
  assert.equal(listed?.status, 'deployed', JSON.stringify(list));
  assert.equal(listed?.revision, '1');

  const status = await passes(['status', release]);
  assert.match(status, new RegExp(`NAME: ${release}`));
  assert.match(status, /STATUS: deployed/);
  assert.match(status, /REVISION: 1/);

  assert.match(await passes(['upgrade', release, chart, '--set', 'greeting=bonjour', '--set', 'replicas=2', ...applyFlags]), /REVISION: 2/);
  assert.equal(await greeting(release), 'bonjour');
  assert.equal(ok(await cluster.k(['get', 'deploy', `${release}-web`, '-o', 'jsonpath={.spec.replicas}'])), '2');

  const history = JSON.parse(await passes(['history', release, '-o', 'json']));
  assert.deepEqual(
    history.map((r: any) => [r.revision, r.status]),
    [
      [1, 'superseded'],
      [2, 'deployed'],
    ],
  );

  await passes(['rollback', release, '1', ...applyFlags]);
  assert.equal(await greeting(release), 'hello');
  assert.equal(ok(await cluster.k(['get', 'deploy', `${release}-web`, '-o', 'jsonpath={.spec.replicas}'])), '1');
  const afterRollback = JSON.parse(await passes(['history', release, '-o', 'json']));
  assert.deepEqual(afterRollback.at(-1).status, 'deployed');
  assert.equal(afterRollback.at(-1).revision, 3);

  // The Deployment's Pod exists before the uninstall, so the garbage collector has work to do.
  await until(
    async () => ok(await cluster.k(['get', 'pods', '-l', `app=${release}-web`, '-o', 'name'])) !== '',
    `a Pod of ${release}-web`,
    60_000,
  );

  assert.match(await passes(['uninstall', release]), new RegExp(`release "${release}" uninstalled`));
  for (const kind of ['cm', 'deploy', 'svc']) {
    const got = await cluster.k(['get', kind, '-o', 'name']);
    assert.doesNotMatch(ok(got), new RegExp(`${release}-`), `${kind} left after uninstall`);
  }
  await until(
    async () => ok(await cluster.k(['get', 'pods,rs', '-l', `app=${release}-web`, '-o', 'name'])) === '',
    `the Pods of ${release}-web to go`,
    60_000,
  );
  // The release records (Secrets) go too: helm knows nothing of the release any more.
  assert.equal(ok(await cluster.k(['get', 'secrets', '-l', `owner=helm,name=${release}`, '-o', 'name'])), '');
  const gone = await h(['status', release]);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /release: not found/);
}

describe('helm release lifecycle', { timeout: 600_000 }, () => {
  test('install, list, status, upgrade, history, rollback and uninstall with server-side apply (the default)', () => lifecycle('ssa', []));
  test('the same with client-side apply (--server-side=false)', () => lifecycle('csa', ['--server-side=false']));
});
