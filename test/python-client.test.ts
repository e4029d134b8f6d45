// The official Python client (Debian's python3-kubernetes, run with
// /usr/bin/python3) against `ksim up`: a watch (it sends watch=True), a
// followed log read as a stream, and exec with stdin written and stdout,
// stderr and the exit code read back (v4.channel.k8s.io); booleans as
// Python spells them (True/False: watch=False lists, a timed watch ends);
// typed create/patch/dry-run/delete and a 404 ApiException. Each case is a
// small script in a temp dir using the cluster's kubeconfig; portforward
// sends an HTTP request to nginx in a Pod through pf.socket().
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, spawnTracked, startCluster, tempDir, until, type Cluster } from './helpers/index.ts';

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
const skip =
  probe.status === 0
    ? false
    : `${PYTHON} cannot import kubernetes (install python3-kubernetes): ${probe.error?.message ?? probe.stderr.trim()}`;

let c: Cluster;
let dir: string;
before(async () => {
  if (skip) return;
  c = await startCluster({ nodes: 1, speed: 10 });
  dir = await tempDir('python-client');
});
after(() => c?.stop());

/** Runs a script (after a prelude that loads the kubeconfig as `v1`) and returns its output. */
async function python(name: string, body: string, timeoutMs = 60_000): Promise<{ code: number | null; out: string; err: string }> {
  const file = join(dir, `${name}.py`);
  const prelude = `import sys, time, threading\nfrom kubernetes import client, config, watch\nfrom kubernetes.stream import stream\nconfig.load_kube_config(config_file=${JSON.stringify(c.kubeconfig)})\nv1 = client.CoreV1Api()\n`;
  await writeFile(file, prelude + body);
  const p = await spawnTracked(PYTHON, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const timer = setTimeout(() => p.signal('SIGKILL'), timeoutMs);
  const st = await p.exited;
  clearTimeout(timer);
  return { code: st.code, out, err };
}

test('watch: existing objects as ADDED, then a change as it happens', { skip }, async () => {
  ok(await c.k(['create', 'configmap', 'py-first']));
  const r = await python(
    'watch',
    `
w = watch.Watch()
seen = []
def later():
    time.sleep(1)
    v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-second')))
for ev in w.stream(v1.list_namespaced_config_map, 'default', timeout_seconds=20):
    name = ev['object'].metadata.name
    if name.startswith('py-'):
        print(ev['type'], name, flush=True)
        if name == 'py-first':
            threading.Thread(target=later).start()
        if name == 'py-second':
            w.stop()
`,
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'ADDED py-first\nADDED py-second\n');
});

test('read_namespaced_pod_log(follow=True, _preload_content=False) streams lines as they are written', { skip }, async () => {
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: Pod\nmetadata: {name: counter}\nspec:\n  containers: [{name: main, image: busybox, command: [sh, -c, 'for i in 1 2 3 4 5 6 7 8 9; do echo line $i; sleep 10; done; sleep 3600']}]\n`,
    ),
  );
  await until(
    async () => (await c.k(['get', 'pod', 'counter', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running',
    'counter Running',
    30_000,
  );
  const r = await python(
    'follow',
    `
resp = v1.read_namespaced_pod_log('counter', 'default', follow=True, _preload_content=False)
start = time.time()
buf = b''
for chunk in resp.stream(amt=64):
    buf += chunk
    if b'line 9\\n' in buf:
        break
resp.release_conn()
print(buf.decode().strip().split('\\n'), time.time() - start >= 2.0)
`,
  );
  assert.equal(r.code, 0, r.err);
  // Nine lines, the later ones written while the stream was open (lines are 1 s apart at --speed 10).
  assert.equal(r.out, `[${[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `'line ${i}'`).join(', ')}] True\n`);
});

test(
  'stream(connect_get_namespaced_pod_exec, stdin=True): stdin written, stdout, stderr and the exit code read back',
  { skip },
  async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: v1\nkind: Pod\nmetadata: {name: pyexec}\nspec:\n  containers: [{name: main, image: busybox, command: [sleep, "36000"]}]\n`,
      ),
    );
    await until(
      async () => (await c.k(['get', 'pod', 'pyexec', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running',
      'pyexec Running',
      30_000,
    );
    const r = await python(
      'exec',
      `
resp = stream(v1.connect_get_namespaced_pod_exec, 'pyexec', 'default', command=['sh'], stdin=True, stdout=True, stderr=True, tty=False, _preload_content=False)
resp.write_stdin('echo from-python\\n')
out = ''
deadline = time.time() + 10
while 'from-python' not in out and time.time() < deadline:
    resp.update(timeout=1)
    out += resp.read_stdout() or ''
resp.write_stdin('echo to-stderr >&2\\n')
err = ''
deadline = time.time() + 10
while 'to-stderr' not in err and time.time() < deadline:
    resp.update(timeout=1)
    err += resp.read_stderr() or ''
resp.write_stdin('exit 5\\n')
resp.run_forever(timeout=10)
print(repr(out), repr(err), resp.returncode)
`,
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "'from-python\\n' 'to-stderr\\n' 5\n");
  },
);

test('booleans as Python sends them (True/False): watch=False lists, a watch with timeout_seconds ends on its own', { skip }, async () => {
  const r = await python(
    'booleans',
    `
l = v1.list_namespaced_config_map('default', watch=False, allow_watch_bookmarks=False)
print(type(l).__name__, flush=True)
def later():
    time.sleep(0.5)
    v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-timed')))
threading.Thread(target=later).start()
start = time.time()
seen = []
for ev in watch.Watch().stream(v1.list_namespaced_config_map, 'default', resource_version=l.metadata.resource_version, timeout_seconds=3, allow_watch_bookmarks=True):
    seen.append(ev['type'] + ' ' + ev['object'].metadata.name)
elapsed = time.time() - start
print(seen, 2.5 < elapsed < 10, flush=True)
`,
  );
  assert.equal(r.code, 0, r.err);
  // Only the change after the list's resourceVersion, and the stream ended when the server closed it after 3 s.
  assert.equal(r.out, "V1ConfigMapList\n['ADDED py-timed'] True\n");
});

test(
  'typed calls: create, merge patch, dry-run create (dry_run=All stores nothing), delete; a missing object is ApiException 404',
  { skip },
  async () => {
    const r = await python(
      'typed',
      `
from kubernetes.client.rest import ApiException
cm = v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-typed'), data={'a': '1'}))
p = v1.patch_namespaced_config_map('py-typed', 'default', {'data': {'b': '2'}})
print(sorted(p.data.items()), p.metadata.resource_version != cm.metadata.resource_version)
d = v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-dry')), dry_run='All')
print(d.metadata.name)
try:
    v1.read_namespaced_config_map('py-dry', 'default')
except ApiException as e:
    print(e.status, e.reason)
st = v1.delete_namespaced_config_map('py-typed', 'default', grace_period_seconds=0)
print(st.status)
try:
    v1.read_namespaced_config_map('py-typed', 'default')
except ApiException as e:
    import json
    body = json.loads(e.body)
    print(e.status, body['reason'], body['message'])
`,
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `[('a', '1'), ('b', '2')] True\npy-dry\n404 Not Found\nSuccess\n404 NotFound configmaps "py-typed" not found\n`);
  },
);

// portforward() speaks the WebSocket channel protocol (v4.channel.k8s.io), which kube-apiserver passes to the kubelet.
test('portforward: an HTTP request through pf.socket(80) reaches nginx in the Pod', { skip }, async () => {
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: Pod\nmetadata: {name: pyweb}\nspec:\n  containers: [{name: main, image: "nginx:1.27", ports: [{containerPort: 80}]}]\n`,
    ),
  );
  await until(
    async () => (await c.k(['get', 'pod', 'pyweb', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running',
    'pyweb Running',
    30_000,
  );
  const r = await python(
    'portforward',
    `
from kubernetes.stream import portforward
pf = portforward(v1.connect_get_namespaced_pod_portforward, 'pyweb', 'default', ports='80')
sock = pf.socket(80)
sock.setblocking(True)
sock.sendall(b'GET / HTTP/1.1\\r\\nHost: pyweb\\r\\nConnection: close\\r\\n\\r\\n')
data = b''
while True:
    chunk = sock.recv(4096)
    if not chunk:
        break
    data += chunk
sock.close()
print(data.split(b'\\r\\n')[0].decode(), b'<title>Welcome to nginx!</title>' in data, pf.error(80))
`,
    30_000,
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'HTTP/1.1 200 OK True None\n');
});
