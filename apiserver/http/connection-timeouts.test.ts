import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { applyConnectionTimeouts } from './connection-timeouts.ts';
import { createCertificateAuthority, generateKeyPair, issueCertificate, loadCertificateAuthority } from '../../shared/pki/certificates.ts';

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

test('over TLS, a long answer (a watch) outlives the header timeout', async (t) => {
  const ca = await createCertificateAuthority('test-ca');
  const authority = await loadCertificateAuthority(ca.certPem, ca.keyPem);
  const { keys, keyPem } = await generateKeyPair();
  const now = Date.now();
  const certPem = await issueCertificate(authority, {
    publicKey: keys.publicKey,
    commonName: 'localhost',
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    usages: ['digital signature', 'server auth'],
  });
  // The answer streams for longer than headersMs, as a watch does.
  const server = https.createServer({ cert: certPem, key: keyPem }, (_req, res) => {
    res.writeHead(200);
    const tick = setInterval(() => res.write('.'), 100);
    setTimeout(() => {
      clearInterval(tick);
      res.end();
    }, 1500);
  });
  applyConnectionTimeouts(server, { headersMs: 600, idleMs: 3000 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const started = Date.now();
  const body = await new Promise<string>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, ca: ca.certPem, agent: false }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
        res.on('error', reject);
      })
      .on('error', reject);
  });
  assert.ok(Date.now() - started >= 1400, 'the answer ran its course');
  assert.ok(body.length >= 10, `the stream was cut after ${body.length} chunks`);
});
