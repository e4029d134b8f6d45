// The control client against a small in-process stand-in of the supervisor's
// endpoint: the bearer token, JSON both ways, and the one-line reasons for
// no cluster, a dead supervisor, an endpoint that does not answer and the
// server's own {message}.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ControlError, controlRequest } from './client.ts';

let dir: string;
let server: http.Server;
let url: string;
const token = 'secret-token';

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ksim-control-'));
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'unauthorized' });
      if (req.url === '/faults' && req.method === 'GET') return send(200, [{ id: 'f-1' }]);
      if (req.url === '/chaos' && req.method === 'POST') {
        const body = JSON.parse(text);
        if (body.target === 'etcd') return send(400, { message: 'target: unknown component "etcd"\nsecond line' });
        return send(200, { message: `did ${body.action}`, affected: [], contentType: req.headers['content-type'] });
      }
      if (req.url === '/broken') return send(500, 'not an object');
      send(404, { message: `no route ${req.url}` });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const writeControl = (c: object) => fs.writeFileSync(path.join(dir, 'control.json'), JSON.stringify(c), { mode: 0o600 });
const rejects = (p: Promise<unknown>, re: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof ControlError && re.test(e.message) && !e.message.includes('\n'));

test('no control.json: no ksim is running there', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ksim-empty-'));
  await rejects(controlRequest(empty, 'GET', '/status'), new RegExp(`^no ksim is running in ${empty} \\(no control\\.json\\)$`));
  await rejects(controlRequest(path.join(empty, 'missing'), 'GET', '/status'), /no ksim is running in .*missing \(no control\.json\)/);
  fs.rmSync(empty, { recursive: true });
});

test('a control.json whose supervisor is dead is stale', async () => {
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  writeControl({ url, token, supervisorPid: dead });
  await rejects(controlRequest(dir, 'GET', '/faults'), new RegExp(`its supervisor, pid ${dead}, is gone; control\\.json is stale`));
  fs.writeFileSync(path.join(dir, 'control.json'), '{not json');
  await rejects(controlRequest(dir, 'GET', '/faults'), /control\.json is not JSON/);
  writeControl({ url });
  await rejects(controlRequest(dir, 'GET', '/faults'), /lacks url, token or supervisorPid/);
});

test('requests carry the token and JSON; answers are parsed', async () => {
  writeControl({ url, token, supervisorPid: process.pid });
  assert.deepEqual(await controlRequest(dir, 'GET', '/faults'), [{ id: 'f-1' }]);
  assert.deepEqual(await controlRequest(dir, 'POST', '/chaos', { action: 'kill', target: 'scheduler' }), {
    message: 'did kill',
    affected: [],
    contentType: 'application/json',
  });
});

test("the server's {message} is the error, on one line, with the status", async () => {
  writeControl({ url, token, supervisorPid: process.pid });
  await assert.rejects(controlRequest(dir, 'POST', '/chaos', { action: 'kill', target: 'etcd' }), (e: unknown) => {
    assert.ok(e instanceof ControlError);
    assert.equal(e.message, 'target: unknown component "etcd"');
    assert.equal(e.status, 400);
    return true;
  });
  await rejects(controlRequest(dir, 'GET', '/broken'), /^GET \/broken: HTTP 500 "not an object"$/);
  writeControl({ url, token: 'wrong', supervisorPid: process.pid });
  await rejects(controlRequest(dir, 'GET', '/faults'), /^unauthorized$/);
});

test('an endpoint that does not answer', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  writeControl({ url: `http://127.0.0.1:${port}`, token, supervisorPid: process.pid });
  await rejects(
    controlRequest(dir, 'GET', '/faults'),
    new RegExp(`cannot reach the ksim supervisor at http://127.0.0.1:${port}: ECONNREFUSED`),
  );
});
