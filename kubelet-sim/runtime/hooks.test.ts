// Lifecycle handlers: kubelet's failure messages for exec and httpGet hooks, and containerd's missing-executable error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { SimFs } from './filesystem.ts';
import { runHook, type HookHost } from './hooks.ts';
import { runProcess, type ShellContext } from './shell.ts';

const c: Container = { name: 'web', image: 'busybox', ports: [{ name: 'http', containerPort: 8080 }] };
const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u-1' }, spec: { containers: [c] } };

function host(fs: SimFs, listening: Record<number, number> = {}): HookHost {
  const ctx = (out: (t: string) => void, err: (t: string) => void): ShellContext => ({
    fs,
    env: new Map([['PATH', '/bin']]),
    out,
    err,
    now: () => 0,
    sleep: () => Promise.resolve(),
  });
  return {
    podIP: '10.244.1.5',
    exec: (argv, out, err) => runProcess(argv, ctx(out, err)),
    httpGet: (port) => (typeof port === 'number' ? listening[port] : undefined),
    sleep: () => Promise.resolve(),
  };
}

test('an exec hook that succeeds writes into the container filesystem', async () => {
  const fs = new SimFs();
  assert.equal(await runHook(pod, c, { exec: { command: ['sh', '-c', 'echo hello > /tmp/msg'] } }, host(fs)), undefined);
  assert.equal(fs.read('/tmp/msg'), 'hello\n');
});

test('a failing exec hook: kubelet message with the exit code and output', async () => {
  const got = await runHook(pod, c, { exec: { command: ['sh', '-c', 'echo bad >&2; exit 3'] } }, host(new SimFs()));
  assert.equal(
    got,
    `Exec lifecycle hook ([sh -c echo bad >&2; exit 3]) for Container "web" in Pod "p_default(u-1)" failed - error: command 'sh -c echo bad >&2; exit 3' exited with 3: bad\n, message: "bad\\n"`,
  );
});

test('an exec hook whose executable is missing: containerd exec error', async () => {
  const got = await runHook(pod, c, { exec: { command: ['nosuchcmd'] } }, host(new SimFs()));
  assert.match(
    got ?? '',
    /^Exec lifecycle hook \(\[nosuchcmd\]\) for Container "web" in Pod "p_default\(u-1\)" failed - error: rpc error: code = Unknown desc = failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in \$PATH: unknown, message: ""$/,
  );
});

test('an httpGet hook fails only when refused; any status is an answer', async () => {
  assert.equal(await runHook(pod, c, { httpGet: { path: '/hook', port: 'http' } }, host(new SimFs(), { 8080: 500 })), undefined);
  assert.equal(
    await runHook(pod, c, { httpGet: { path: '/hook', port: 9999 } }, host(new SimFs())),
    'HTTP lifecycle hook (/hook) for Container "web" in Pod "p_default(u-1)" failed - error: Get "http://10.244.1.5:9999/hook": dial tcp 10.244.1.5:9999: connect: connection refused',
  );
});
