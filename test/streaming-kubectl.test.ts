// Streaming sessions with the real kubectl against `ksim up`: exec keeps
// stderr apart and reports the exit code, attach shows a running container's
// output (stdout and stderr apart) and feeds its stdin, `kubectl run -i` and
// `run -it` (through a pty from util-linux `script`) give the container's
// output and an interactive simulated shell, and a session broken from
// either end (kubectl killed; kubelet-sim SIGKILLed mid-exec and mid
// `logs -f`) ends cleanly on the other side with the apiserver still serving.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { homeFor, kubectlBin, ok, spawnTracked, startCluster, tlsFor, until, type Cluster, type TrackedProcess } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
});
after(() => c?.stop());

/** A long-running kubectl (attach, logs -f, run -it) with its output collected as it comes. */
async function spawnKubectl(
  args: string[],
  viaPty = false,
): Promise<TrackedProcess & { out: () => string; err: () => string; write(s: string): void }> {
  const env = { ...process.env, HOME: await homeFor(c.kubeconfig), KUBECONFIG: resolve(c.kubeconfig), TERM: 'xterm' };
  const argv = [kubectlBin, '--kubeconfig', resolve(c.kubeconfig), ...args];
  // `script` gives kubectl a terminal (it needs one for --tty); its own stdin is our pipe.
  const p = viaPty
    ? await spawnTracked('script', ['-qfec', argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : await spawnTracked(argv[0], argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  p.child.stdin!.on('error', () => {});
  return Object.assign(p, { out: () => out, err: () => err, write: (s: string) => void p.child.stdin!.write(s) });
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} did not happen within ${ms} ms`)), ms))]);
const phase = async (pod: string) => (await c.k(['get', 'pod', pod, '-o', 'jsonpath={.status.phase}'])).stdout;

async function podRunning(name: string, spec: string): Promise<void> {
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n${spec}\n`,
    ),
  );
  await until(async () => (await phase(name)) === 'Running', `${name} Running`, 30_000);
}

test('kubectl exec: stderr on kubectl stderr, stdout on stdout, the exit code reaches kubectl', async () => {
  await podRunning('sleeper', '  containers: [{name: main, image: busybox, command: [sleep, "36000"]}]');
  const r = await c.k(['exec', 'sleeper', '--', 'sh', '-c', 'echo out; echo err >&2; ls /nope; exit 3']);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.stdout, 'out\n');
  assert.match(r.stderr, /^err\nls: \/nope: No such file or directory\ncommand terminated with exit code 3\n$/);
  const both = await c.k(['exec', 'sleeper', '--', 'sh', '-c', 'echo a 2>&1; nosuch 2>/dev/null; echo b 1>&2']);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stdout, 'a\n');
  assert.equal(both.stderr, 'b\n');
  const piped = await c.k(['exec', '-i', 'sleeper', '--', 'sh', '-c', 'cat; echo done'], 'line 1\nline 2\n');
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, 'line 1\nline 2\ndone\n');
});

test('kubectl attach shows the running container output from now on, stdout and stderr apart', async () => {
  await podRunning(
    'ticker',
    `  containers: [{name: main, image: busybox, command: [sh, -c, 'sleep 20; for i in 1 2 3; do echo tick $i; echo warn $i >&2; sleep 10; done']}]`,
  );
  const a = await spawnKubectl(['attach', 'ticker']);
  const st = await within(a.exited, 30_000, 'attach to end with the container');
  assert.equal(st.code, 0, a.err());
  assert.equal(a.out(), 'tick 1\ntick 2\ntick 3\n');
  assert.match(a.err(), /warn 1\nwarn 2\nwarn 3\n/);
  assert.equal(await phase('ticker'), 'Succeeded');
});

test('kubectl attach -i feeds the container stdin', async () => {
  await podRunning('reader', '  containers: [{name: main, image: busybox, command: [sh], stdin: true}]');
  const a = await spawnKubectl(['attach', '-i', 'reader']);
  a.write('echo first line\n');
  a.write('echo from-stdin; exit 4\n');
  await within(a.exited, 30_000, 'attach -i to end');
  assert.match(a.out(), /from-stdin\n/);
  await until(async () => (await phase('reader')) === 'Failed', 'reader Failed with exit 4');
  assert.equal(
    (await c.k(['get', 'pod', 'reader', '-o', 'jsonpath={.status.containerStatuses[0].state.terminated.exitCode}'])).stdout,
    '4',
  );
});

test('kubectl run -i --rm prints the output and returns', async () => {
  const r = await c.k(['run', '-i', 'once', '--image=busybox', '--restart=Never', '--rm', '--', 'sh', '-c', 'echo hello']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^hello\n/);
  const piped = await c.k(['run', '-i', 'piped', '--image=busybox', '--restart=Never', '--rm', '--', 'sh'], 'echo from the pipe\n');
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /from the pipe\n/);
});

test('kubectl run -it gives an interactive shell whose exit ends the container', async () => {
  const r = await spawnKubectl(['run', '-it', 'shell', '--image=busybox', '--restart=Never', '--', 'sh'], true);
  await until(
    () => r.out().includes("If you don't see a command prompt, try pressing enter.") || !r.running(),
    'the attach banner',
    30_000,
  );
  r.write('\r');
  await until(() => / # $/.test(r.out()), 'a prompt', 10_000);
  r.write('X=tty; echo hello-$X\r');
  await until(() => r.out().includes('hello-tty\r\n'), 'the command output', 10_000);
  r.write('exit\r');
  const st = await within(r.exited, 30_000, 'kubectl run -it to end after exit');
  assert.equal(st.code, 0, r.out());
  assert.match(r.out(), /echo hello-\$X\r\nhello-tty\r\n/);
  await until(async () => (await phase('shell')) === 'Succeeded', 'the Pod to complete');
});

test('kubectl exec -it gives an interactive shell on a terminal; its exit code reaches kubectl', async () => {
  const r = await spawnKubectl(['exec', '-it', 'sleeper', '--', 'sh'], true);
  await until(() => / # $/.test(r.out()) || !r.running(), 'a prompt', 20_000);
  r.write('echo on-a-tty >&2\r');
  await until(() => r.out().includes('on-a-tty\r\n/ # '), 'the output and the next prompt', 10_000);
  r.write('exit 3\r');
  const st = await within(r.exited, 20_000, 'kubectl exec -it to end');
  assert.equal(st.code, 3, r.out());
  assert.match(r.out(), /command terminated with exit code 3/);
});

test('kubectl killed mid-exec: the kubelet ends the process', async () => {
  const e = await spawnKubectl(['exec', 'sleeper', '--', 'sh', '-c', 'while true; do echo x >> /tmp/count; sleep 2; done']);
  await until(async () => (await c.k(['exec', 'sleeper', '--', 'cat', '/tmp/count'])).stdout.length >= 4, 'the loop to run');
  await e.kill9();
  await new Promise((r) => setTimeout(r, 1000));
  const before = (await c.k(['exec', 'sleeper', '--', 'cat', '/tmp/count'])).stdout;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await c.k(['exec', 'sleeper', '--', 'cat', '/tmp/count'])).stdout, before, 'the loop still runs after its client left');
});

test('an exec session ends when its container stops (the Pod is deleted)', async () => {
  await podRunning('doomed', '  containers: [{name: main, image: busybox, command: [sleep, "36000"]}]');
  const e = await spawnKubectl(['exec', 'doomed', '--', 'sleep', '3600']);
  await new Promise((r) => setTimeout(r, 1000));
  ok(await c.k(['delete', 'pod', 'doomed', '--wait=false']));
  const st = await within(e.exited, 20_000, 'the exec to end with its container');
  assert.equal(st.code, 137, e.err());
  assert.match(e.err(), /command terminated with exit code 137/);
});

test('an exec with no command (what attach used to reach) is refused with a Status; kubelet-sim stays up', async () => {
  const ws = new WebSocket(
    `${c.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/pods/sleeper/exec?stdout=true&stderr=true`,
    ['v5.channel.k8s.io'],
    tlsFor(c).tls,
  );
  const frames: Buffer[] = [];
  ws.on('message', (d: Buffer) => frames.push(d));
  const code = await new Promise<number>((r, rej) => {
    ws.on('close', (cc) => r(cc));
    ws.on('error', rej);
  });
  assert.equal(code, 1000);
  const status = JSON.parse(
    frames
      .find((f) => f[0] === 3)!
      .subarray(1)
      .toString(),
  );
  assert.equal(status.status, 'Failure');
  assert.match(status.message, /you must specify at least one command for the container/);
  const r = await c.k(['exec', 'sleeper', '--', 'echo', 'still here']);
  assert.equal(r.stdout, 'still here\n', r.stderr);
});

test('kubelet-sim SIGKILLed mid-exec and mid logs -f: kubectl ends promptly, the apiserver stays up', async () => {
  await podRunning('talker', `  containers: [{name: main, image: busybox, command: [sh, -c, 'while true; do echo talk; sleep 5; done']}]`);
  const exec = await spawnKubectl(['exec', 'sleeper', '--', 'sleep', '3600']);
  const logs = await spawnKubectl(['logs', '-f', 'talker']);
  await until(() => logs.out().includes('talk\n'), 'logs -f to stream');
  await new Promise((r) => setTimeout(r, 500));
  const started = Date.now();
  process.kill(c.pidOf('kubelet-sim'), 'SIGKILL');
  const [es, ls] = await within(Promise.all([exec.exited, logs.exited]), 15_000, 'kubectl exec and logs -f to end');
  assert.ok(Date.now() - started < 15_000);
  assert.notEqual(es.code, 0, 'exec ended by a lost kubelet is a failure');
  assert.match(exec.err(), /error: Internal error occurred: the connection to the kubelet was lost/);
  assert.equal(ls.signal, null);
  ok(await c.k(['get', 'namespaces']));
});
