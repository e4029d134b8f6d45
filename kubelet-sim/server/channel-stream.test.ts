// The channel protocol stream: stdin frames reach the pipe (with the client
// paused while the pipe is full), v5's close frame ends stdin, and a client
// that stops reading is dropped once MAX_BUFFERED bytes wait for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { createLogger } from '../../shared/log/logger.ts';
import { StdinPipe } from '../runtime/stdin-pipe.ts';
import { ChannelStream, MAX_BUFFERED, STDOUT } from './channel-stream.ts';

async function pair(): Promise<{ server: WebSocket; client: WebSocket; close(): Promise<void> }> {
  const http_ = http.createServer();
  const wss = new WebSocketServer({ server: http_ });
  await new Promise<void>((r) => http_.listen(0, '127.0.0.1', r));
  const serverSide = new Promise<WebSocket>((r) => wss.once('connection', r));
  const client = new WebSocket(`ws://127.0.0.1:${(http_.address() as AddressInfo).port}`, ['v5.channel.k8s.io']);
  await new Promise((r) => client.once('open', r));
  const server = await serverSide;
  return {
    server,
    client,
    close: async () => {
      client.terminate();
      for (const c of wss.clients) c.terminate();
      http_.closeAllConnections();
      await new Promise((r) => http_.close(r));
    },
  };
}

const log = createLogger('test', 'silent');

test('stdin frames go to the pipe and the v5 close frame ends it', async () => {
  const p = await pair();
  const pipe = new StdinPipe();
  let closed = false;
  new ChannelStream(p.server, { stdin: pipe, onStdinClosed: () => (closed = true), onGone: () => {} }, log);
  p.client.send(Buffer.from('\x00hello\n', 'latin1'));
  p.client.send(Buffer.from([255, 0]));
  assert.equal(await pipe.read(), 'hello\n');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(closed, true);
  await p.close();
});

test('a client that stops reading is dropped past the bound instead of buffered', async () => {
  const p = await pair();
  let gone = false;
  const stream = new ChannelStream(p.server, { onGone: () => (gone = true) }, log);
  // ws keeps its socket in a private field: pausing it is a client that stops reading.
  (p.client as unknown as { _socket: Socket })._socket.pause();
  const chunk = 'x'.repeat(64 * 1024);
  let sent = 0;
  while (!gone && sent < 64 * MAX_BUFFERED) {
    stream.send(STDOUT, chunk);
    sent += chunk.length;
    if (sent % (1024 * 1024) === 0) await new Promise((r) => setImmediate(r));
  }
  assert.equal(gone, true);
  assert.ok(sent < 4 * MAX_BUFFERED, `sent ${sent}`);
  assert.equal(stream.open, false);
  await p.close();
});
