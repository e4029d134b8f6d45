// step-client against two stand-in gates (a controller-manager leader and a
// scheduler, plus a follower that runs nothing): each controller's action goes
// to the component that runs it, `all` to every one, `show` merges them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writeClusterState } from './cluster-state.ts';
import { stepAction, stepEndpoints } from './step-client.ts';

const calls: string[] = [];
async function gate(name: string, controllers: string[]): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    calls.push(`${name} ${req.method} ${req.url}`);
    const snapshot = controllers.map((controller) => ({ controller, paused: false, waiting: [], recent: [] }));
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.startsWith('/debug/reconcile/step')) res.end(JSON.stringify({ item: { id: 1, controller: controllers[0] } }));
    else res.end(JSON.stringify({ controllers: snapshot }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const cm = await gate('cm', ['deployment', 'replicaset']);
const follower = await gate('cm-1', []);
const sched = await gate('scheduler', ['scheduler']);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ksim-step-client-'));
const component = (name: string, endpoint: string) => ({ name, pid: 1, state: 'running' as const, endpoint, log: '' });
writeClusterState(dir, {
  supervisorPid: 1,
  server: 'https://127.0.0.1:1',
  components: [
    component('apiserver', 'http://127.0.0.1:1'),
    component('controller-manager-1', follower.url),
    component('controller-manager', cm.url),
    component('scheduler', sched.url),
  ],
});
after(() => {
  for (const g of [cm, follower, sched]) g.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the leaders are found; each action goes to the component that runs the controller', async () => {
  const endpoints = await stepEndpoints(dir);
  assert.deepEqual(endpoints.map((e) => e.component).sort(), ['controller-manager', 'scheduler']);
  const shown = await stepAction(endpoints, 'show');
  assert.deepEqual(shown.body.controllers?.map((c) => c.controller).sort(), ['deployment', 'replicaset', 'scheduler']);
  calls.length = 0;
  assert.equal((await stepAction(endpoints, 'pause', 'scheduler')).status, 200);
  assert.equal((await stepAction(endpoints, 'next', 'replicaset')).body.item?.id, 1);
  assert.deepEqual(calls, [
    'scheduler POST /debug/reconcile/pause?controller=scheduler',
    'cm POST /debug/reconcile/step?controller=replicaset',
  ]);
  calls.length = 0;
  await stepAction(endpoints, 'resume', 'all');
  assert.deepEqual(calls.sort(), [
    'cm POST /debug/reconcile/resume?controller=all',
    'scheduler POST /debug/reconcile/resume?controller=all',
  ]);
});

test('an unknown controller is a 404 naming the known ones; a step of all is refused', async () => {
  const endpoints = await stepEndpoints(dir);
  const r = await stepAction(endpoints, 'pause', 'cronjob');
  assert.equal(r.status, 404);
  assert.match(r.body.error ?? '', /no component runs a controller "cronjob" \(deployment, replicaset, scheduler\)/);
  assert.equal((await stepAction(endpoints, 'next', 'all')).status, 400);
});
