import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { applyConnectionTimeouts } from './connection-timeouts.ts';

/** Opens a connection, lets `act` use it, and resolves with how long the server kept it. */
function keptFor(port: number, act: (s: net.Socket) => void): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const s = net.connect(port, '127.0.0.1', () => act(s));
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => resolve(Date.now() - started));
  });
}

test('idle, slowloris and kept-alive connections are closed on time', async (t) => {
  const server = http.createServer({ connectionsCheckingInterval: 100 }, (_req, res) => res.end('ok'));
  applyConnectionTimeouts(server, { headersMs: 600, idleMs: 1500 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  let drip: NodeJS.Timeout | undefined;
  const [idle, slowloris, keptAlive] = await Promise.all([
    keptFor(port, () => {}),
    keptFor(port, (s) => {
      s.write('GET / HTTP/1.1\r\n');
      drip = setInterval(() => s.write('X-Drip: 1\r\n'), 100);
    }),
    keptFor(port, (s) => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')),
  ]);
  clearInterval(drip);
  assert.ok(idle >= 550 && idle < 1400, `idle connection kept ${idle} ms`);
  assert.ok(slowloris >= 550 && slowloris < 1400, `slowloris connection kept ${slowloris} ms`);
  assert.ok(keptAlive >= 1400 && keptAlive < 3000, `kept-alive connection kept ${keptAlive} ms`);
});
