import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { StatusError } from '../../shared/api/errors.ts';
import { sendError } from './respond.ts';

test('a Status with retryAfterSeconds is sent with a Retry-After header, as kube does', async (t) => {
  const errors = [new StatusError(500, 'ServerTimeout', 'try again', { retryAfterSeconds: 2 }), new StatusError(404, 'NotFound', 'gone')];
  const server = http.createServer((_req, res) => void sendError(res, errors.shift(), pino({ level: 'silent' })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const first = await fetch(url);
  assert.equal(first.status, 500);
  assert.equal(first.headers.get('retry-after'), '2');
  assert.equal((await first.json()).details.retryAfterSeconds, 2);
  const second = await fetch(url);
  assert.equal(second.status, 404);
  assert.equal(second.headers.get('retry-after'), null);
  await second.arrayBuffer();
});
