// The client's own HTTP/1.1 connection pool against small local servers:
// every way an answer can be framed, kept-alive connections the server
// closes, the connection limit, timeouts, TLS, and typed Status errors; the
// write cause header.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError } from '../api/errors.ts';
import { findResource } from '../api/resources.ts';
import { CAUSE_HEADER, decodeCause } from '../api/write-cause.ts';
import { KubeClient, withCause } from './kube-client.ts';

const configmaps = findResource('', 'v1', 'configmaps')!;
const closers: (() => void)[] = [];
after(() => closers.forEach((c) => c()));

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

function client(server: string, opts: ConstructorParameters<typeof KubeClient>[1] = {}, scheme = 'http'): KubeClient {
  const c = new KubeClient({ server: `${scheme}://${server}` }, opts);
  closers.push(() => c.close());
  return c;
}

test('answers framed by Content-Length, chunked encoding and 204; bodies and queries as sent', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? ''} ${body}`);
      if (req.url!.startsWith('/chunked')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"a":');
        setTimeout(() => res.end('"é"}'), 10);
      } else if (req.url!.startsWith('/api/v1/namespaces/x/configmaps/gone')) {
        res.writeHead(204).end();
      } else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
    });
  });
  const c = client(await listen(server));
  assert.deepEqual(await c.request('GET', '/chunked'), { a: 'é' });
  assert.deepEqual(await c.create(configmaps, 'x', { metadata: { name: 'ü' } }), { echo: { metadata: { name: 'ü' } } });
  assert.deepEqual(await c.patch(configmaps, 'x', 'a b', 'merge', { data: { k: 'v' } }), { echo: { data: { k: 'v' } } });
  assert.equal(await c.delete(configmaps, 'x', 'gone'), undefined);
  await c.list(configmaps, { namespace: 'x', labelSelector: 'app in (a, b),tier!=db', limit: 5, continue: '' });
  // A list's text as it came, unparsed.
  assert.equal(await c.listText(configmaps, { namespace: 'x' }), '{"echo":null}');
  assert.deepEqual(seen, [
    'GET /chunked  ',
    'POST /api/v1/namespaces/x/configmaps application/json {"metadata":{"name":"ü"}}',
    'PATCH /api/v1/namespaces/x/configmaps/a%20b application/merge-patch+json {"data":{"k":"v"}}',
    'DELETE /api/v1/namespaces/x/configmaps/gone  ',
    'GET /api/v1/namespaces/x/configmaps?labelSelector=app%20in%20(a%2C%20b)%2Ctier!%3Ddb&limit=5  ',
    'GET /api/v1/namespaces/x/configmaps  ',
  ]);
});

test('non-2xx answers become StatusErrors, with the server message or the status code', async () => {
  const server = http.createServer((req, res) => {
    if (req.url === '/plain') return void res.writeHead(502).end('bad gateway');
    res.writeHead(409, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'AlreadyExists',
        message: 'configmaps "a" already exists',
        code: 409,
      }),
    );
  });
  const c = client(await listen(server));
  await assert.rejects(
    c.create(configmaps, 'x', {}),
    (e: unknown) => e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists' && /already exists/.test(e.message),
  );
  await assert.rejects(
    c.request('GET', '/plain'),
    (e: unknown) => e instanceof StatusError && e.code === 502 && /bad gateway/.test(e.message),
  );
});

test('a watch refused with a body that is not a Status object still rejects with a StatusError', async () => {
  // `null` used to reach StatusError.fromStatus as it was and throw a TypeError out of the response handler.
  const server = http.createServer((req, res) => {
    res
      .writeHead(req.url!.includes('labelSelector') ? 503 : 403, { 'Content-Type': 'application/json' })
      .end(req.url!.includes('labelSelector') ? 'null' : '[1]');
  });
  const c = client(await listen(server));
  for (const labelSelector of ['a=b', undefined]) {
    const w = c.watch(configmaps, { namespace: 'x', labelSelector }, () => {});
    await assert.rejects(w.done, (e: unknown) => e instanceof StatusError && e.code === (labelSelector ? 503 : 403));
  }
});

test('an answer that ends with the connection, and one with Connection: close, close it', async () => {
  let connections = 0;
  const server = net.createServer((sock) => {
    connections++;
    sock.once('data', () => {
      sock.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"until":"close"}');
    });
  });
  const c = client(await listen(server));
  assert.deepEqual(await c.request('GET', '/a'), { until: 'close' });
  assert.deepEqual(await c.request('GET', '/b'), { until: 'close' });
  assert.equal(connections, 2);
});

test('a GET the server drops on a kept-alive connection goes again on a new one; a POST fails', async () => {
  let connections = 0;
  const server = net.createServer((sock) => {
    connections++;
    let served = 0;
    sock.on('data', () => {
      // Answers the first request of each connection, then drops the connection at the next.
      if (served++ === 0) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
      else sock.destroy();
    });
  });
  const c = client(await listen(server));
  await c.request('GET', '/1');
  await c.request('GET', '/2');
  assert.equal(connections, 2);
  await assert.rejects(c.request('POST', '/3', { body: {} }), /socket hang up/);
  await c.request('GET', '/4');
});

test('at most maxConnections connections; the others wait their turn', async () => {
  let open = 0;
  let most = 0;
  const server = http.createServer((_req, res) => void setTimeout(() => res.end('{}'), 5));
  server.on('connection', (s) => {
    most = Math.max(most, ++open);
    s.on('close', () => open--);
  });
  const c = client(await listen(server), { maxConnections: 2 });
  await Promise.all(Array.from({ length: 20 }, (_, i) => c.request('GET', `/${i}`)));
  assert.equal(most, 2);
});

test('a request without an answer times out; a closed server refuses', async () => {
  const server = net.createServer(() => {});
  const addr = await listen(server);
  const c = client(addr, { timeoutMs: 500 });
  await assert.rejects(c.request('GET', '/never'), /request timed out: GET \/never/);
  const gone = net.createServer();
  const port = (await listen(gone)).split(':')[1];
  gone.close();
  await assert.rejects(client(`127.0.0.1:${port}`).request('GET', '/'), /ECONNREFUSED/);
});

test('https with a CA from the kubeconfig', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ksim-client-tls-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return; // no openssl: nothing to sign a certificate with
  }
  const cert = readFileSync(join(dir, 'cert.pem'));
  const server = https.createServer({ cert, key: readFileSync(join(dir, 'key.pem')) }, (_req, res) => void res.end('{"secure":true}'));
  const port = (await listen(server)).split(':')[1];
  const c = new KubeClient({ server: `https://localhost:${port}`, ca: cert });
  closers.push(() => c.close());
  assert.deepEqual(await c.request('GET', '/'), { secure: true });
  const untrusting = new KubeClient({ server: `https://127.0.0.1:${port}` });
  closers.push(() => untrusting.close());
  await assert.rejects(untrusting.request('GET', '/'), /self.signed|certificate/i);
});

test('as(): a view sends kube impersonation headers over the parent pool; bad values are refused', async () => {
  const seen: { user?: string; groups?: string; uid?: string; extra?: string; socket: number }[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const h = req.headersDistinct;
    seen.push({
      user: h['impersonate-user']?.join('|'),
      groups: h['impersonate-group']?.join('|'),
      uid: h['impersonate-uid']?.join('|'),
      extra: h['impersonate-extra-scopes%2fa%20b']?.join('|'),
      socket: (req.socket as net.Socket & { n?: number }).n ?? -1,
    });
    if (req.url!.includes('watch=true')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'w' } } })}\n`);
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  server.on('connection', (s: net.Socket & { n?: number }) => (s.n = connections++));
  const parent = client(await listen(server), { maxConnections: 1 });
  const node = parent.as({ username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
  const other = parent.as({ username: 'alice', uid: 'u-1', extra: { 'scopes/a b': ['x', 'y'] } });
  await parent.get(configmaps, 'x', 'a');
  await node.get(configmaps, 'x', 'a');
  await other.get(configmaps, 'x', 'a');
  node.close(); // a view's close leaves the parent's connections alone
  await parent.get(configmaps, 'x', 'a');
  const events: string[] = [];
  await node.watch(configmaps, {}, (ev) => events.push((ev.object.metadata as { name?: string } | undefined)?.name ?? '')).done;
  assert.deepEqual(events, ['w']);
  assert.deepEqual(
    seen.slice(0, 4).map(({ socket: _s, ...h }) => h),
    [
      { user: undefined, groups: undefined, uid: undefined, extra: undefined },
      { user: 'system:node:n1', groups: 'system:nodes|system:authenticated', uid: undefined, extra: undefined },
      { user: 'alice', groups: undefined, uid: 'u-1', extra: 'x|y' },
      { user: undefined, groups: undefined, uid: undefined, extra: undefined },
    ],
  );
  // One pooled connection served the parent and both views; the watch had its own.
  assert.deepEqual(
    seen.slice(0, 4).map((s) => s.socket),
    [0, 0, 0, 0],
  );
  assert.equal(seen[4].user, 'system:node:n1');
  assert.equal(seen[4].groups, 'system:nodes|system:authenticated');
  for (const bad of [
    { username: '' },
    { username: 'a\r\nX-Evil: 1' },
    { username: ' padded' },
    { username: 'ok', groups: ['g\n'] },
    { username: 'ok', groups: ['ünïcode'] },
    { username: 'ok', extra: { k: ['v\r'] } },
  ])
    assert.throws(() => parent.as(bad), /impersonation: .* cannot be sent as a header value/);
});

test('setToken: later requests and watches carry the new bearer token, over the same connections', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.url?.includes('watch') ? 'watch' : 'get'} ${req.headers.authorization}`);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url?.includes('watch') ? '' : '{"kind":"ConfigMap","metadata":{"name":"a"}}');
  });
  const addr = await listen(server);
  const c = new KubeClient({ server: `http://${addr}`, token: 'first' });
  closers.push(() => c.close());
  await c.get(configmaps, 'default', 'a');
  c.setToken('second');
  await c.get(configmaps, 'default', 'a');
  await c.watch(configmaps, { namespace: 'default' }, () => undefined).done;
  assert.deepEqual(seen, ['get Bearer first', 'get Bearer second', 'watch Bearer second']);
});

test('writes made within a cause carry X-Ksim-Cause; GETs, watches and writes outside one do not', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const cause = req.headers[CAUSE_HEADER] as string | undefined;
      seen.push(`${req.method} ${cause === undefined ? '-' : JSON.stringify(decodeCause(cause))}`);
      if (req.url!.includes('watch=true')) return void res.writeHead(200).end();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  const c = client(await listen(server));
  const view = c.as({ username: 'system:node:n1' });
  await c.create(configmaps, 'x', { metadata: { name: 'a' } });
  await withCause({ controller: 'deployment', key: 'x/web', triggers: ['41', '42'] }, async () => {
    await c.get(configmaps, 'x', 'a');
    await c.list(configmaps, { namespace: 'x' });
    await c.watch(configmaps, { namespace: 'x' }, () => undefined).done;
    await c.create(configmaps, 'x', { metadata: { name: 'a' } });
    await new Promise((r) => setTimeout(r, 1));
    await c.update(configmaps, { metadata: { namespace: 'x', name: 'a' } });
    await withCause({ controller: 'kubelet', key: 'x/p', detail: 'Running (Ready) – é' }, () =>
      view.patch(configmaps, 'x', 'a', 'merge', {}, 'status'),
    );
    await c.delete(configmaps, 'x', 'a');
  });
  await c.patch(configmaps, 'x', 'a', 'merge', {});
  const dep = JSON.stringify({ controller: 'deployment', key: 'x/web', triggers: ['41', '42'] });
  assert.deepEqual(seen, [
    'POST -',
    'GET -',
    'GET -',
    'GET -',
    `POST ${dep}`,
    `PUT ${dep}`,
    `PATCH ${JSON.stringify({ controller: 'kubelet', key: 'x/p', detail: 'Running (Ready) – é' })}`,
    `DELETE ${dep}`,
    'PATCH -',
  ]);
});
