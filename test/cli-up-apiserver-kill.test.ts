// kill -9 of the apiserver under `ksim up` during a stream of kubectl
// creates: none that kubectl reported created is lost, and every component
// reconnects by itself (a scale converges afterwards).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, ok, startCluster, until, type Cluster } from './helpers/index.ts';
import type { SupervisorStatus } from '../shared/chaos/protocol.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `ksim chaos ARGS` on cluster k that must succeed; its stdout. */
async function chaos(k: Cluster, ...args: string[]): Promise<string> {
  const r = await k.chaos(args);
  assert.equal(r.code, 0, `ksim chaos ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

test('kill -9 of the apiserver during a stream of creates loses none kubectl reported created; every component reconnects', async () => {
  const k = await startCluster({ nodes: 1, speed: 20 });
  try {
    ok(await k.k(['create', 'deployment', 'scaled', '--image=nginx', '--replicas=1']));
    const created: string[] = [];
    const failed: string[] = [];
    let i = 0;
    let streaming = true;
    // Creates one after another until told to stop: the kill and the restart happen in the middle of it, counted in
    // creates rather than seconds, since a kubectl run takes from 0.2 s to seconds on a loaded machine.
    const stream = (async () => {
      while (streaming) {
        const name = `stream-${i++}`;
        const r = await k.k(['create', 'configmap', name, '--from-literal=k=v', '--request-timeout=5s']);
        (r.code === 0 ? created : failed).push(name);
      }
    })();
    await until(() => created.length >= 2, 'two creates before the kill', 30_000);
    const pid = k.pidOf('apiserver');
    assert.match(await chaos(k, 'kill', 'apiserver'), new RegExp(`killed apiserver \\(pid ${pid}\\)`));
    const beforeRestart = created.length;
    await sleep(300);
    await chaos(k, 'start', 'apiserver');
    await until(() => created.length >= beforeRestart + 3, 'three creates after the restart', 60_000);
    streaming = false;
    await stream;
    assert.ok(created.length > 3, `kubectl created ${created.length} ConfigMaps`);
    const stored = new Set(
      ok(await k.k(['get', 'configmaps', '-o', 'name']))
        .split('\n')
        .map((s) => s.replace('configmap/', '')),
    );
    const lost = created.filter((n) => !stored.has(n));
    assert.deepEqual(lost, [], `created but gone after the restart (failed during it: ${failed.join(', ')})`);
    // The components reconnect by themselves: a scale converges, Pods are bound and run.
    ok(await k.k(['scale', 'deployment', 'scaled', '--replicas=5']));
    await eventually(
      '5 running replicas after the apiserver restart',
      async () => ok(await k.k(['get', 'deployment', 'scaled', '-o', 'jsonpath={.status.readyReplicas}'])) === '5',
      40_000,
    );
    const { components } = (await k.control('GET', '/status')).body as SupervisorStatus;
    for (const s of components) assert.equal(s.state, 'running', s.name);
    assert.equal(components[0].restarts, 1);
  } finally {
    await k.stop();
  }
});
