// WebSocket upgrades on the apiserver, from raw sockets and a fake kubelet:
// refusals are metav1.Status objects (bad Sec-WebSocket-Key or version, a
// pod that does not exist, pods/portforward), a client that resets a refused
// upgrade does not take the server down, a kubelet that vanishes mid-stream
// (close 1006 on its side) ends the client's stream with a legal close code,
// and a client that stops reading does not make the apiserver buffer the
// kubelet's output without bound. Over https an https kubelet is dialed
// with the apiserver's kubelet client certificate, for logs and streams.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import WebSocket, { WebSocketServer } from 'ws';
import { selfSignedServingCert } from '../kubelet-sim/server/serving-cert.ts';
import { api, openRaw, startApiserver, tlsFor, until, type Apiserver } from './helpers/index.ts';

let server: Apiserver;
let kubelet: http.Server;
let kubeletBehaviour: (ws: WebSocket, url: string) => void = () => {};
let kubeletLogs: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();
const kubeletWss = new WebSocketServer({
  noServer: true,
  handleProtocols: (p) => (p.has('v5.channel.k8s.io') ? 'v5.channel.k8s.io' : false),
});

before(async () => {
  server = await startApiserver();
  kubelet = http.createServer((req, res) => kubeletLogs(req, res));
  kubelet.on('upgrade', (req, socket, head) => kubeletWss.handleUpgrade(req, socket, head, (ws) => kubeletBehaviour(ws, req.url ?? '')));
  await new Promise<void>((r) => kubelet.listen(0, '127.0.0.1', r));
  const c = api(server);
  const port = (kubelet.address() as AddressInfo).port;
  let r = await c.request('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'fake-node', annotations: { 'ksim.dev/kubelet-endpoint': `http://127.0.0.1:${port}` } },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await c.request('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p1' },
    spec: { nodeName: 'fake-node', containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
});
after(async () => {
  for (const ws of kubeletWss.clients) ws.terminate();
  kubelet?.closeAllConnections();
  await new Promise((r) => kubelet?.close(r));
  await server?.stop();
});

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** Sends a raw upgrade request and reads the whole answer (the server closes after a refusal). */
function rawUpgrade(path: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; body: string }> {
  const all = {
    Host: '127.0.0.1',
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': KEY,
    ...headers,
  };
  return new Promise((resolve, reject) => {
    const s = openRaw(server);
    let data = '';
    s.setEncoding('utf8');
    s.on('data', (d) => (data += String(d)));
    s.on('error', reject);
    s.on('end', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1.1 (\d+)/.exec(head)?.[1]),
        contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '',
        body: rest.join('\r\n\r\n'),
      });
    });
    s.write(
      `GET ${path} HTTP/1.1\r\n${Object.entries(all)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    );
  });
}

const readyz = async () => (await api(server).request('GET', '/readyz')).status;
const wsBase = () => server.url.replace(/^http/, 'ws');
/** TLS options and credentials for a WebSocket to the apiserver. */
const wsOptions = () => {
  const { tls, headers } = tlsFor(server);
  return { ...tls, headers };
};

test('a bad Sec-WebSocket-Key or version gets a 400 metav1.Status, not plain text', async () => {
  for (const [path, headers] of [
    ['/api/v1/namespaces/default/configmaps?watch=true', { 'Sec-WebSocket-Key': 'not-a-key' }],
    ['/api/v1/namespaces/default/configmaps?watch=true', { 'Sec-WebSocket-Version': '99' }],
    ['/api/v1/namespaces/default/pods/p1/exec?command=ls&stdout=true', { 'Sec-WebSocket-Key': 'short==' }],
    // Subprotocols must be distinct tokens (found by the fuzz test: ws answered these in plain text).
    ['/api/v1/namespaces/default/configmaps?watch=true', { 'Sec-WebSocket-Protocol': '' }],
    ['/api/v1/namespaces/default/configmaps?watch=true', { 'Sec-WebSocket-Protocol': 'a b' }],
    ['/api/v1/namespaces/default/configmaps?watch=true', { 'Sec-WebSocket-Protocol': 'v4.channel.k8s.io, v4.channel.k8s.io' }],
    ['/api/v1/namespaces/default/pods/p1/exec?command=ls&stdout=true', { 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io,,' }],
  ] as const) {
    const r = await rawUpgrade(path, headers);
    assert.equal(r.status, 400, r.body);
    assert.equal(r.contentType, 'application/json');
    const status = JSON.parse(r.body);
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 400);
    assert.equal(status.reason, 'BadRequest');
  }
});

test('refusals are Statuses: a missing pod is 404, a plain request for a stream is refused', async () => {
  const missing = await rawUpgrade('/api/v1/namespaces/default/pods/nosuch/exec?command=ls');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).message, 'pods "nosuch" not found');
  const missingPf = await rawUpgrade('/api/v1/namespaces/default/pods/nosuch/portforward?ports=80');
  assert.equal(missingPf.status, 404, missingPf.body);
  assert.equal(JSON.parse(missingPf.body).message, 'pods "nosuch" not found');
  // pods/portforward is served (test/port-forward.test.ts); without an upgrade it is kube's
  // "Upgrade request required", as for exec and attach.
  const plain = await api(server).request('GET', '/api/v1/namespaces/default/pods/p1/portforward?ports=80');
  assert.equal(plain.status, 400);
  assert.equal(plain.body.message, 'Upgrade request required');
});

test('a refused upgrade whose client resets at once does not take the apiserver down', async () => {
  for (let i = 0; i < 30; i++) {
    // Over https the TLS session runs on a TCP socket of our own, so that the reset is a real RST under it.
    const tcp = net.connect(server.port, '127.0.0.1');
    tcp.on('error', () => {});
    const options = tlsFor(server).tls;
    const s = options ? tls.connect({ socket: tcp, ...options }) : tcp;
    s.on('error', () => {});
    const up = await new Promise<boolean>((resolve) => {
      s.once(options ? 'secureConnect' : 'connect', () => resolve(true));
      s.once('error', () => resolve(false));
    });
    if (!up) continue;
    s.write(
      `GET /api/v1/namespaces/default/pods/p1/portforward?ports=80 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${KEY}\r\n\r\n`,
    );
    tcp.resetAndDestroy();
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await readyz(), 200);
});

/** Opens an attach session through the apiserver; frames collects what arrives (from the first frame on). */
function attach(frames: string[] = [], pod = 'p1'): Promise<WebSocket> {
  const ws = new WebSocket(
    `${wsBase()}/api/v1/namespaces/default/pods/${pod}/attach?container=c&stdout=true&stderr=true`,
    ['v5.channel.k8s.io'],
    wsOptions(),
  );
  ws.on('message', (d: Buffer) => frames.length < 100 && frames.push(d.toString('latin1')));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

test('a kubelet that vanishes mid-stream (1006 on its side) ends the client with a legal close, and the apiserver stays up', async () => {
  kubeletBehaviour = (ws) => {
    ws.send(Buffer.from('\x01before the crash\n', 'latin1'));
    setTimeout(() => (ws as any)._socket.destroy(), 100);
  };
  const frames: string[] = [];
  const ws = await attach(frames);
  const code = await new Promise<number>((r) => ws.on('close', (c) => r(c)));
  // The reason goes on the error channel and the close is a normal one (what kube's stream translator does).
  assert.equal(code, 1000);
  assert.equal(frames[0], '\x01before the crash\n');
  assert.equal(frames[1][0], '\x03');
  assert.match(frames[1].slice(1), /^.*"status":"Failure"/);
  assert.equal(await readyz(), 200);
});

test('a client that goes away closes the kubelet side', async () => {
  let kubeletClosed: Promise<number> = Promise.resolve(0);
  kubeletBehaviour = (ws) => {
    kubeletClosed = new Promise((r) => ws.on('close', (c) => r(c)));
  };
  const ws = await attach();
  await until(() => kubeletWss.clients.size > 0, 'the kubelet session');
  (ws as any)._socket.destroy();
  const code = await kubeletClosed;
  assert.ok(code === 1011 || code === 1000 || code === 1001, String(code));
  await until(() => kubeletWss.clients.size === 0, 'the kubelet session to close');
});

test("a client that stops reading pauses the kubelet's stream (back-pressure, not buffering)", async () => {
  const chunk = Buffer.alloc(256 * 1024, 'x');
  chunk[0] = 1;
  let sent = 0;
  let stalled = false;
  kubeletBehaviour = (ws) => {
    const pump = () => {
      // Stop once our own socket buffer backs up: the apiserver is no longer reading.
      while (ws.readyState === ws.OPEN && sent < 512 * 1024 * 1024) {
        if (ws.bufferedAmount > 16 * 1024 * 1024) {
          stalled = true;
          return;
        }
        ws.send(chunk);
        sent += chunk.length;
        if (sent % (8 * 1024 * 1024) === 0) return void setImmediate(pump);
      }
    };
    pump();
  };
  const ws = await attach();
  (ws as any)._socket.pause();
  await until(() => stalled || sent >= 512 * 1024 * 1024, 'the kubelet to stall or send everything', 30_000);
  assert.ok(stalled, `the kubelet sent ${sent} bytes without stalling`);
  // The apiserver holds what it read, about what TCP and the high-water mark allow, not the 512 MiB.
  assert.ok(sent < 128 * 1024 * 1024, `sent ${sent}`);
  ws.terminate();
  assert.equal(await readyz(), 200);
});

test('a logs -f client that stops reading pauses the kubelet stream through the apiserver', async () => {
  let sent = 0;
  let started = false;
  const line = Buffer.alloc(64 * 1024, 'y');
  kubeletLogs = (_req, res) => {
    started = true;
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    // As fast as the reader takes it: without back-pressure this reaches the 512 MiB at once.
    const pump = () => {
      while (sent < 512 * 1024 * 1024) {
        sent += line.length;
        if (!res.write(line)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  };
  const s = openRaw(server);
  s.on('error', () => {});
  s.write('GET /api/v1/namespaces/default/pods/p1/log?follow=true HTTP/1.1\r\nHost: x\r\n\r\n');
  s.pause();
  await until(() => started, 'the kubelet to be asked for the log');
  await new Promise((r) => setTimeout(r, 2000));
  const plateau = sent;
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(sent, plateau, 'the kubelet is still being read from for a client that reads nothing');
  assert.ok(sent < 64 * 1024 * 1024, `the apiserver took ${sent} bytes for a client that reads nothing`);
  s.destroy();
  assert.equal(await readyz(), 200);
});

test('a kubelet that vanishes mid logs -f ends the client stream at once', async () => {
  kubeletLogs = (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('first line\n');
    setTimeout(() => req.socket.destroy(), 200);
  };
  const started = Date.now();
  const r = await api(server).request('GET', '/api/v1/namespaces/default/pods/p1/log?follow=true');
  assert.equal(r.status, 200);
  assert.equal(r.body, 'first line\n');
  assert.ok(Date.now() - started < 5000, `ended after ${Date.now() - started} ms`);
  assert.equal(await readyz(), 200);
});

test('an https kubelet is dialed with the apiserver kubelet client certificate, for logs and attach', async (t) => {
  if (!server.secure) return t.skip('plain http apiserver: no kubelet client certificate');
  const serving = await selfSignedServingCert('127.0.0.1');
  const seen: string[] = [];
  // A kubelet that lets in only client certificates of the cluster CA, as kubelet-sim's does (it then asks for a review).
  const secure = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: server.tls!.ca, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      seen.push(`logs ${String((req.socket as TLSSocket).getPeerCertificate().subject.CN)}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('over tls\n');
    },
  );
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => 'v5.channel.k8s.io' });
  secure.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      seen.push(`attach ${String((req.socket as TLSSocket).getPeerCertificate().subject.CN)}`);
      ws.send(Buffer.from('\x01attached over tls\n', 'latin1'));
      ws.close(1000);
    }),
  );
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  t.after(() => {
    secure.closeAllConnections();
    secure.close();
  });
  const c = api(server);
  const port = (secure.address() as AddressInfo).port;
  for (const [path, body] of [
    ['/api/v1/nodes', { metadata: { name: 'tls-node', annotations: { 'ksim.dev/kubelet-endpoint': `https://127.0.0.1:${port}` } } }],
    [
      '/api/v1/namespaces/default/pods',
      { metadata: { name: 'p2' }, spec: { nodeName: 'tls-node', containers: [{ name: 'c', image: 'busybox' }] } },
    ],
  ] as const) {
    const r = await c.request('POST', path, body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const logs = await c.request('GET', '/api/v1/namespaces/default/pods/p2/log');
  assert.deepEqual([logs.status, logs.body], [200, 'over tls\n']);
  const frames: string[] = [];
  const ws = await attach(frames, 'p2');
  await new Promise((r) => ws.on('close', r));
  assert.deepEqual(frames, ['\x01attached over tls\n']);
  assert.deepEqual(seen, ['logs kube-apiserver-kubelet-client', 'attach kube-apiserver-kubelet-client']);
});
