// The real kubectl v1.35, with its default settings (strict validation,
// discovery cache, protobuf bodies from generators, server-side printing),
// against a ksim apiserver: every command a learner uses, and kube's messages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { helm, kubectl as runKubectl, startApiserver, tempDir, type Apiserver, type ToolResult, ok } from './helpers/index.ts';

let server: Apiserver;
let kubeconfig: string;
let dir: string;

before(async () => {
  server = await startApiserver();
  dir = await tempDir('kubectl');
  kubeconfig = server.kubeconfig;
});
after(() => server?.stop());

const k = (args: string[], input?: string, env?: Record<string, string>) => runKubectl(args, { kubeconfig, input, env });
function fails(r: ToolResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0, `kubectl should have failed:\n${r.stdout}`);
  assert.match(r.stderr, pattern);
}

const deployYaml = (name: string, replicas = 2, image = 'nginx:1.27', extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports: [{containerPort: 80}]${extra}
`;

describe('discovery and version', () => {
  test('version, api-resources, api-versions', async () => {
    assert.match(ok(await k(['version'])), /Server Version: v1\.35\./);
    const resources = ok(await k(['api-resources']));
    for (const line of [
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
      /^pods\s+po\s+v1\s+true\s+Pod$/m,
      /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m,
    ]) {
      assert.match(resources, line);
    }
    const versions = ok(await k(['api-versions']))
      .trim()
      .split('\n');
    for (const v of ['v1', 'apps/v1', 'batch/v1', 'rbac.authorization.k8s.io/v1', 'policy/v1']) assert.ok(versions.includes(v), v);
  });
});

describe('auth', () => {
  test("auth whoami names the kubeconfig's admin and can-i answers as for cluster-admin", async () => {
    assert.equal(ok(await k(['auth', 'can-i', 'create', 'deployments'])).trim(), 'yes');
    assert.equal(ok(await k(['auth', 'can-i', '*', '*', '--all-namespaces'])).trim(), 'yes');
    const whoami = ok(await k(['auth', 'whoami']));
    assert.match(whoami, /Username\s+kubernetes-admin/);
    assert.match(whoami, /Groups\s+\[kubeadm:cluster-admins system:authenticated\]/);
  });
});

describe('create', () => {
  test('create -f with strict validation, and kube messages for AlreadyExists and unknown fields', async () => {
    assert.match(ok(await k(['create', '-f', '-'], deployYaml('created'))), /deployment.apps\/created created/);
    fails(
      await k(['create', '-f', '-'], deployYaml('created')),
      /Error from server \(AlreadyExists\).*deployments.apps "created" already exists/,
    );
    const typo = deployYaml('typo').replace('replicas: 2', 'replicas: 2\n  replica: 3');
    fails(await k(['create', '-f', '-'], typo), /strict decoding error: unknown field "spec.replica"/);
  });

  test('the generators send protobuf bodies', async () => {
    ok(await k(['create', 'namespace', 'gen']));
    ok(await k(['create', 'configmap', 'cfg', '-n', 'gen', '--from-literal=a=b', '--from-literal=c=d']));
    ok(await k(['create', 'secret', 'generic', 'sec', '-n', 'gen', '--from-literal=password=s3cret']));
    ok(await k(['create', 'deployment', 'dep', '-n', 'gen', '--image=nginx', '--replicas=3', '--port=80']));
    ok(await k(['create', 'service', 'clusterip', 'svc', '-n', 'gen', '--tcp=80:8080']));
    assert.equal(ok(await k(['get', 'cm', 'cfg', '-n', 'gen', '-o', 'jsonpath={.data.a}{.data.c}'])), 'bd');
    assert.equal(
      Buffer.from(ok(await k(['get', 'secret', 'sec', '-n', 'gen', '-o', 'jsonpath={.data.password}'])), 'base64').toString(),
      's3cret',
    );
    assert.equal(
      ok(
        await k([
          'get',
          'deploy',
          'dep',
          '-n',
          'gen',
          '-o',
          'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].ports[0].containerPort} {.spec.strategy.rollingUpdate.maxSurge}',
        ]),
      ),
      '3 80 25%',
    );
    assert.equal(
      ok(await k(['get', 'svc', 'svc', '-n', 'gen', '-o', 'jsonpath={.spec.ports[0].port}/{.spec.ports[0].targetPort}'])),
      '80/8080',
    );
  });
});

describe('get', () => {
  before(async () => {
    ok(await k(['create', 'namespace', 'g']));
    for (const [name, tier] of [
      ['alpha', 'web'],
      ['beta', 'db'],
      ['gamma', 'web'],
    ]) {
      ok(
        await k(
          ['create', '-n', 'g', '-f', '-'],
          `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, labels: {tier: ${tier}}}\ndata: {k: ${name}}\n`,
        ),
      );
    }
  });

  test('table, wide, name, yaml, json, jsonpath and custom-columns output', async () => {
    const table = ok(await k(['get', 'cm', '-n', 'g']));
    assert.match(table, /^NAME\s+DATA\s+AGE$/m);
    assert.match(table, /^alpha\s+1\s+\d+s$/m);
    assert.match(
      ok(await k(['get', 'deploy', 'created', '-o', 'wide'])),
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m,
    );
    assert.equal(ok(await k(['get', 'cm', '-n', 'g', '-o', 'name', '-l', 'tier=web'])), 'configmap/alpha\nconfigmap/gamma\n');
    assert.match(ok(await k(['get', 'cm', 'beta', '-n', 'g', '-o', 'yaml'])), /^kind: ConfigMap$/m);
    assert.equal(JSON.parse(ok(await k(['get', 'cm', 'beta', '-n', 'g', '-o', 'json']))).data.k, 'beta');
    assert.equal(
      ok(await k(['get', 'cm', '-n', 'g', '-o', 'custom-columns=N:.metadata.name,T:.metadata.labels.tier', '--no-headers'])).replace(
        / +/g,
        ' ',
      ),
      'alpha web\nbeta db\ngamma web\n',
    );
  });

  test('selectors, all namespaces, chunking, sorting and labels', async () => {
    assert.equal(
      ok(await k(['get', 'cm', '-A', '--field-selector', 'metadata.namespace=g,metadata.name!=beta', '-o', 'name'])),
      'configmap/alpha\nconfigmap/gamma\n',
    );
    assert.equal(
      ok(await k(['get', 'cm', '-n', 'g', '--chunk-size=1', '-o', 'name'])),
      'configmap/alpha\nconfigmap/beta\nconfigmap/gamma\n',
    );
    const sorted = ok(await k(['get', 'cm', '-n', 'g', '--sort-by=.metadata.labels.tier', '-o', 'name']));
    assert.equal(sorted, 'configmap/beta\nconfigmap/alpha\nconfigmap/gamma\n');
    assert.match(ok(await k(['get', 'cm', 'alpha', '-n', 'g', '--show-labels'])), /^alpha\s+1\s+\S+\s+tier=web$/m);
    assert.match(ok(await k(['get', 'all', '-n', 'gen'])), /deployment\.apps\/dep/);
  });

  test('get -w prints changes as they happen and --output-watch-events names them', async () => {
    const watching = k(['get', 'cm', 'alpha', '-n', 'g', '-w', '--output-watch-events', '--request-timeout=4s']);
    await new Promise((r) => setTimeout(r, 1500));
    ok(await k(['label', 'cm', 'alpha', '-n', 'g', 'seen=yes']));
    const out = (await watching).stdout;
    assert.match(out, /^EVENT\s+NAME\s+DATA\s+AGE$/m);
    assert.match(out, /^ADDED\s+alpha/m);
    assert.match(out, /^MODIFIED\s+alpha/m);
  });
});

describe('apply, replace, edit, patch', () => {
  test('apply: created, unchanged, configured; removing a field from the file removes it', async () => {
    const withEnv = deployYaml('app', 2, 'nginx:1.27', '\n        env: [{name: MODE, value: blue}]');
    assert.match(ok(await k(['apply', '-f', '-'], withEnv)), /deployment.apps\/app created/);
    assert.match(ok(await k(['apply', '-f', '-'], withEnv)), /deployment.apps\/app unchanged/);
    assert.match(ok(await k(['apply', '-f', '-'], deployYaml('app', 4))), /deployment.apps\/app configured/);
    const got = JSON.parse(ok(await k(['get', 'deploy', 'app', '-o', 'json'])));
    assert.equal(got.spec.replicas, 4);
    assert.equal(got.spec.template.spec.containers[0].env, undefined);
  });

  test('apply --server-side creates and then merges (partial: fields dropped from the file are kept)', async () => {
    const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {${data}}\n`;
    assert.match(ok(await k(['apply', '--server-side', '-f', '-'], cm('a: "1"'))), /configmap\/ssa serverside-applied/);
    ok(await k(['apply', '--server-side', '-f', '-'], cm('a: "2", b: "3"')));
    assert.equal(ok(await k(['get', 'cm', 'ssa', '-o', 'jsonpath={.data.a}{.data.b}'])), '23');
  });

  test('replace, and Conflict on a stale resourceVersion', async () => {
    const current = JSON.parse(ok(await k(['get', 'deploy', 'app', '-o', 'json'])));
    current.spec.replicas = 1;
    ok(await k(['replace', '-f', '-'], JSON.stringify(current)));
    current.spec.replicas = 5;
    fails(
      await k(['replace', '-f', '-'], JSON.stringify(current)),
      /Error from server \(Conflict\).*the object has been modified; please apply your changes to the latest version and try again/,
    );
  });

  test('edit with an editor that changes the image', async () => {
    const editor = join(dir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/image: nginx:1.27/image: nginx:1.28/" "$1"\n');
    await chmod(editor, 0o755);
    assert.match(ok(await k(['edit', 'deploy', 'app'], undefined, { KUBE_EDITOR: editor })), /deployment.apps\/app edited/);
    assert.equal(ok(await k(['get', 'deploy', 'app', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])), 'nginx:1.28');
  });

  test('patch: strategic, merge and json', async () => {
    ok(await k(['patch', 'deploy', 'app', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.29"}]}}}}']));
    ok(await k(['patch', 'deploy', 'app', '--type=merge', '-p', '{"metadata":{"labels":{"patched":"merge"}}}']));
    ok(await k(['patch', 'deploy', 'app', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":2}]']));
    const d = JSON.parse(ok(await k(['get', 'deploy', 'app', '-o', 'json'])));
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.29');
    assert.equal(d.spec.template.spec.containers.length, 1);
    assert.equal(d.metadata.labels.patched, 'merge');
    assert.equal(d.spec.replicas, 2);
  });

  test('label, annotate, scale', async () => {
    ok(await k(['label', 'deploy', 'app', 'team=blue']));
    fails(await k(['label', 'deploy', 'app', 'team=red']), /already has a value \(blue\)/);
    ok(await k(['label', 'deploy', 'app', 'team=red', '--overwrite']));
    ok(await k(['annotate', 'deploy', 'app', 'note=hello']));
    assert.match(ok(await k(['scale', 'deploy', 'app', '--replicas=7'])), /deployment.apps\/app scaled/);
    assert.equal(
      ok(await k(['get', 'deploy', 'app', '-o', 'jsonpath={.spec.replicas} {.metadata.labels.team} {.metadata.annotations.note}'])),
      '7 red hello',
    );
  });

  test('Invalid and NotFound carry kube messages', async () => {
    fails(
      await k(['create', '-f', '-'], deployYaml('bad', -1)),
      /The Deployment "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0/,
    );
    fails(await k(['get', 'deploy', 'missing']), /Error from server \(NotFound\): deployments.apps "missing" not found/);
  });
});

describe('describe and delete', () => {
  test('describe shows the object and its events', async () => {
    const out = ok(await k(['describe', 'deploy', 'app']));
    assert.match(out, /^Name:\s+app$/m);
    assert.match(out, /^Replicas:\s+7 desired/m);
    assert.match(out, /^Events:/m);
  });

  test('delete waits until the object is gone', async () => {
    assert.match(ok(await k(['delete', 'deploy', 'app'])), /deployment.apps "app" deleted/);
    fails(await k(['get', 'deploy', 'app']), /NotFound/);
    ok(await k(['delete', 'ns', 'gen', '--wait=false']));
    assert.match(ok(await k(['get', 'ns', 'gen'])), /Terminating/);
  });
});

describe('helm', () => {
  test('helm install and upgrade of a chart, with its default server-side apply and with client-side apply', async () => {
    const chart = join(dir, 'chart');
    await mkdir(join(chart, 'templates'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
    await writeFile(
      join(chart, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
    );
    await writeFile(join(chart, 'values.yaml'), 'greeting: hello\n');
    const install = await helm(['install', 'demo', chart], { kubeconfig });
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /STATUS: deployed/);
    assert.equal(ok(await k(['get', 'cm', 'demo-cm', '-o', 'jsonpath={.data.greeting}'])), 'hello');
    const upgrade = await helm(['upgrade', 'demo', chart, '--set', 'greeting=bonjour'], { kubeconfig });
    assert.equal(upgrade.code, 0, upgrade.stderr);
    assert.equal(ok(await k(['get', 'cm', 'demo-cm', '-o', 'jsonpath={.data.greeting}'])), 'bonjour');
    const csa = await helm(['install', 'demo2', chart, '--server-side=false'], { kubeconfig });
    assert.equal(csa.code, 0, csa.stderr);
    assert.equal(ok(await k(['get', 'cm', 'demo2-cm', '-o', 'jsonpath={.data.greeting}'])), 'hello');
  });
});
