// The real kubectl's `cp` and `rollout history` against `ksim up`. `kubectl
// cp` is tar over exec: the simulated busybox's tar packs and unpacks the
// files its shell holds, so a file and a directory tree go into a
// container and come back byte for byte. `rollout history` lists each
// revision with the change-cause it was rolled out with (the controller
// copies the Deployment's annotations onto the new ReplicaSet only, so an
// older revision keeps its own), `--revision` shows that revision's
// template, and `rollout undo` brings an old revision's cause back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ok, removeTempDir, startCluster, tempDir, until, type Cluster } from './helpers/index.ts';

let c: Cluster;
let dir: string;

before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  dir = await tempDir('kubectl-extras');
});
after(async () => {
  await c?.stop();
  if (dir) await removeTempDir(dir);
});

async function files(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[relative(root, path)] = await readFile(path, 'utf8');
  }
  return out;
}

test('kubectl cp: a file and a directory tree into a container and back', async () => {
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: Pod
metadata: {name: box}
spec:
  containers:
  - {name: first, image: busybox, command: [sleep, "360000"]}
  - {name: second, image: busybox, command: [sleep, "360000"]}
`,
    ),
  );
  await until(async () => (await c.jsonpath(['get', 'pod', 'box'], '{.status.phase}')) === 'Running', 'box Running', 30_000);

  const text = 'line one\nzweite Zeile – ünïcode\n\tindented, no newline at the end';
  const local = join(dir, 'note.txt');
  await writeFile(local, text);
  const cpIn = await c.k(['cp', local, 'default/box:/tmp/note.txt', '-c', 'second']);
  assert.equal(cpIn.code, 0, cpIn.stderr);
  // It landed in the container named, not in the first one.
  assert.equal((await c.k(['exec', 'box', '-c', 'second', '--', 'cat', '/tmp/note.txt'])).stdout, text);
  const absent = await c.k(['exec', 'box', '-c', 'first', '--', 'cat', '/tmp/note.txt']);
  assert.notEqual(absent.code, 0);
  assert.match(absent.stderr, /cat: can't open '\/tmp\/note.txt': No such file or directory/);

  const back = join(dir, 'back.txt');
  const cpOut = await c.k(['cp', 'default/box:/tmp/note.txt', back, '-c', 'second']);
  assert.equal(cpOut.code, 0, cpOut.stderr);
  assert.equal(await readFile(back, 'utf8'), text);

  // A tree: nested directories, several files.
  const tree = join(dir, 'tree');
  await mkdir(join(tree, 'sub', 'deeper'), { recursive: true });
  const want = { 'a.txt': 'alpha\n', 'sub/b.txt': 'beta\n', 'sub/deeper/c.conf': 'key=value\n' };
  for (const [path, body] of Object.entries(want)) await writeFile(join(tree, path), body);
  const treeIn = await c.k(['cp', tree, 'box:/tmp/tree', '-c', 'first']);
  assert.equal(treeIn.code, 0, treeIn.stderr);
  const listed = ok(await c.k(['exec', 'box', '-c', 'first', '--', 'find', '/tmp/tree', '-type', 'f']));
  assert.deepEqual(listed.split('\n').filter(Boolean).sort(), ['/tmp/tree/a.txt', '/tmp/tree/sub/b.txt', '/tmp/tree/sub/deeper/c.conf']);
  assert.equal(ok(await c.k(['exec', 'box', '-c', 'first', '--', 'cat', '/tmp/tree/sub/deeper/c.conf'])), 'key=value\n');

  // Changed in the container, then copied out to a new local directory.
  ok(await c.k(['exec', 'box', '-c', 'first', '--', 'sh', '-c', 'echo gamma > /tmp/tree/sub/new.txt']));
  const treeBack = join(dir, 'tree-back');
  const treeOut = await c.k(['cp', 'box:/tmp/tree', treeBack, '-c', 'first']);
  assert.equal(treeOut.code, 0, treeOut.stderr);
  assert.deepEqual(await files(treeBack), { ...want, 'sub/new.txt': 'gamma\n' });

  // A path that is not there: nothing is written locally. (Neither tar's complaint nor its exit status is certain
  // to reach kubectl's output: kubectl stops at the end of the empty archive tar still writes, as against a real
  // cluster, where its stderr copier and exec's status race the tar reader's EOF.)
  await c.k(['cp', 'box:/no/such/file', join(dir, 'x'), '-c', 'first']);
  await assert.rejects(readFile(join(dir, 'x')), { code: 'ENOENT' });
});

const CAUSE = 'kubernetes.io/change-cause';
const deployment = (image: string, cause: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: causes
  annotations: {${CAUSE}: "${cause}"}
spec:
  replicas: 1
  selector: {matchLabels: {app: causes}}
  template:
    metadata: {labels: {app: causes}}
    spec:
      containers: [{name: web, image: "${image}"}]
`;

/** The REVISION / CHANGE-CAUSE rows of `rollout history`. */
async function history(): Promise<string[][]> {
  const out = ok(await c.k(['rollout', 'history', 'deploy/causes']));
  const lines = out.split('\n');
  assert.equal(lines[0], 'deployment.apps/causes ');
  assert.match(lines[1], /^REVISION\s+CHANGE-CAUSE$/);
  return lines
    .slice(2)
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^(\d+)\s+(.*)$/.exec(l);
      assert.ok(m, `not a history row: ${JSON.stringify(l)}`);
      return [m[1], m[2]];
    });
}

async function rollOut(image: string, cause: string): Promise<void> {
  ok(await c.k(['apply', '-f', '-'], deployment(image, cause)));
  ok(await c.k(['rollout', 'status', 'deploy/causes', '--timeout=60s']));
}

test('kubectl rollout history: each revision keeps its own change-cause; --revision shows its template; undo brings one back', async () => {
  await rollOut('nginx:1.25', 'first at nginx 1.25');
  await rollOut('nginx:1.26', 'second at nginx 1.26');
  await rollOut('nginx:1.27', 'third at nginx 1.27');
  assert.deepEqual(await history(), [
    ['1', 'first at nginx 1.25'],
    ['2', 'second at nginx 1.26'],
    ['3', 'third at nginx 1.27'],
  ]);

  const second = ok(await c.k(['rollout', 'history', 'deploy/causes', '--revision=2']));
  assert.match(second, /^deployment\.apps\/causes with revision #2\nPod Template:\n/);
  assert.match(second, /Annotations:\tkubernetes\.io\/change-cause: second at nginx 1\.26\n/);
  assert.match(second, /Image:\tnginx:1\.26\n/);
  const none = await c.k(['rollout', 'history', 'deploy/causes', '--revision=9']);
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, /unable to find the specified revision/);

  // Undo to revision 1: it comes back as revision 4 with its cause, and revision 1 is gone from the list.
  ok(await c.k(['rollout', 'undo', 'deploy/causes', '--to-revision=1']));
  ok(await c.k(['rollout', 'status', 'deploy/causes', '--timeout=60s']));
  assert.deepEqual(await history(), [
    ['2', 'second at nginx 1.26'],
    ['3', 'third at nginx 1.27'],
    ['4', 'first at nginx 1.25'],
  ]);
  assert.equal(
    await c.jsonpath(['get', 'deploy', 'causes'], `{.metadata.annotations.kubernetes\\.io/change-cause}`),
    'first at nginx 1.25',
  );
  assert.equal(await c.jsonpath(['get', 'deploy', 'causes'], '{.spec.template.spec.containers[0].image}'), 'nginx:1.25');
});
