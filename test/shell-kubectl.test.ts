// The simulated busybox shell end to end, through the real kubectl on
// `ksim up --nodes 1`: a loop with $(( )) over exec, a pipe through awk,
// sort and uniq, `kubectl cp` into and out of a Pod (kubectl runs tar in the
// container), and `kubectl exec -i POD -- sh` reading piped commands until
// the end of its input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startCluster, tempDir, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
let dir: string;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  dir = await tempDir('shell');
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: Pod
metadata: {name: bb}
spec:
  containers:
  - name: bb
    image: busybox:1.36
    command: [sh, -c, 'echo started; sleep 3600']
`,
    ),
  );
  ok(await c.k(['wait', '--for=condition=Ready', 'pod/bb', '--timeout=60s']));
});
after(async () => {
  await c?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('busybox shell over kubectl exec', () => {
  test('a while loop with $(( )) arithmetic', async () => {
    const out = ok(await c.k(['exec', 'bb', '--', 'sh', '-c', 'i=0; while [ $i -lt 3 ]; do echo $((i+1)); i=$((i+1)); done']));
    assert.equal(out, '1\n2\n3\n');
  });

  test('a pipe through awk, sort and uniq', async () => {
    const out = ok(
      await c.k(['exec', 'bb', '--', 'sh', '-c', `printf 'b 1\\na 2\\nb 3\\nc 4\\nb 5\\n' | awk '{print $1}' | sort | uniq -c | sort -rn`]),
    );
    assert.equal(out, '      3 b\n      1 c\n      1 a\n');
  });

  test('the container sees itself: ps lists PID 1 as its command, id is root', async () => {
    const out = ok(await c.k(['exec', 'bb', '--', 'sh', '-c', 'ps; id']));
    assert.match(out, /^PID {3}USER {5}TIME {2}COMMAND\n {4}1 root {6}0:00 sh -c echo started; sleep 3600\n/);
    assert.match(out, /^uid=0\(root\) gid=0\(root\) groups=0\(root\),10\(wheel\)$/m);
  });

  test('a missing command inside a shell: sh: X: not found, exit 127', async () => {
    const r = await c.k(['exec', 'bb', '--', 'sh', '-c', 'nosuch-tool']);
    assert.equal(r.code, 127);
    assert.match(r.stderr, /sh: nosuch-tool: not found/);
    assert.match(r.stderr, /command terminated with exit code 127/);
  });

  test('kubectl cp into the Pod (tar -xmf - -C DIR in the container) and out of it (tar cf - PATH)', async () => {
    const local = path.join(dir, 'in.txt');
    await fs.writeFile(local, 'hello from the host\nline 2\n');
    ok(await c.k(['cp', local, 'bb:/tmp/in.txt']));
    assert.equal(ok(await c.k(['exec', 'bb', '--', 'cat', '/tmp/in.txt'])), 'hello from the host\nline 2\n');
    // A directory, both ways.
    await fs.mkdir(path.join(dir, 'conf'));
    await fs.writeFile(path.join(dir, 'conf', 'a.conf'), 'a=1\n');
    await fs.writeFile(path.join(dir, 'conf', 'b.conf'), 'b=2\n');
    ok(await c.k(['cp', path.join(dir, 'conf'), 'bb:/etc/app']));
    assert.equal(ok(await c.k(['exec', 'bb', '--', 'sh', '-c', 'ls /etc/app; cat /etc/app/b.conf'])), 'a.conf\nb.conf\nb=2\n');

    ok(
      await c.k([
        'exec',
        'bb',
        '--',
        'sh',
        '-c',
        'mkdir -p /data/out && echo from the pod > /data/out/result.txt && seq 3 > /data/out/n.txt',
      ]),
    );
    const back = path.join(dir, 'result.txt');
    const r = await c.k(['cp', 'bb:/data/out/result.txt', back]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await fs.readFile(back, 'utf8'), 'from the pod\n');
    const backDir = path.join(dir, 'out');
    assert.equal((await c.k(['cp', 'bb:/data/out', backDir])).code, 0);
    assert.deepEqual((await fs.readdir(backDir)).sort(), ['n.txt', 'result.txt']);
    assert.equal(await fs.readFile(path.join(backDir, 'n.txt'), 'utf8'), '1\n2\n3\n');
  });

  test('kubectl exec -i POD -- sh runs piped commands and ends at the end of its input', async () => {
    const script = 'x=2\necho $((x*21))\nfor i in a b; do\n  echo item $i\ndone\ncat <<EOF\nheredoc $x\nEOF\nfalse\n';
    const r = await c.k(['exec', '-i', 'bb', '--', 'sh'], script);
    assert.equal(r.stdout, '42\nitem a\nitem b\nheredoc 2\n');
    // The last command's status is the shell's.
    assert.equal(r.code, 1);
    assert.match(r.stderr, /command terminated with exit code 1/);
  });
});
