// Self-test of the end-to-end helpers that need no apiserver: free ports, the
// kubectl/helm extraction, kubeconfig writing, and the HTTP/watch client
// against a small in-process server.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createCertificateAuthority,
  generateKeyPair,
  issueCertificate,
  loadCertificateAuthority,
  type KeyUsageName,
} from '../../shared/pki/certificates.ts';
import {
  api,
  connectRaw,
  freePort,
  helm,
  homeFor,
  kubectl,
  repoRoot,
  tempDir,
  WatchHttpError,
  writeKubeconfig,
  type ApiTarget,
} from './index.ts';

const run = promisify(execFile);

describe('freePort', () => {
  test('returns a port that can be listened on', async () => {
    const port = await freePort();
    assert.ok(port > 0 && port < 65536, `port ${port}`);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('setup-kubectl', () => {
  test('extracts kubectl v1.35 and helm (idempotently)', { timeout: 60_000 }, async () => {
    const { stdout } = await run(process.execPath, [join(repoRoot, 'scripts/setup-kubectl.mjs')]);
    assert.match(stdout, /kubectl/);
    assert.match(stdout, /helm/);
    const kubeconfig = await writeKubeconfig(join(await tempDir('selftest'), 'kubeconfig'), 'http://127.0.0.1:1');
    const k = await kubectl(['version', '--client'], { kubeconfig });
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /v1\.35/);
    const h = await helm(['version', '--short'], { kubeconfig });
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /^v\d+\./);
  });
});

describe('writeKubeconfig', () => {
  test('kubectl reads it back', async () => {
    const dir = await tempDir('selftest');
    const kubeconfig = await writeKubeconfig(join(dir, 'kubeconfig'), 'http://127.0.0.1:6443');
    const { code, stdout, stderr } = await kubectl(['config', 'view', '-o', 'json'], { kubeconfig });
    assert.equal(code, 0, stderr);
    const config = JSON.parse(stdout);
    assert.equal(config['current-context'], 'ksim');
    assert.deepEqual(config.contexts, [{ name: 'ksim', context: { cluster: 'ksim', user: 'admin' } }]);
    assert.equal(config.clusters[0].cluster.server, 'http://127.0.0.1:6443');
    assert.equal(config.users[0].name, 'admin');
  });

  test('carries a CA, client certificate and token', async () => {
    const dir = await tempDir('selftest');
    const kubeconfig = await writeKubeconfig(join(dir, 'kubeconfig'), 'https://127.0.0.1:6443', {
      caData: 'CA PEM',
      certData: 'CERT PEM',
      keyData: 'KEY PEM',
      token: 'secret-token',
      namespace: 'team-a',
    });
    const { code, stdout, stderr } = await kubectl(['config', 'view', '--raw', '-o', 'json'], { kubeconfig });
    assert.equal(code, 0, stderr);
    const config = JSON.parse(stdout);
    const decode = (s: string) => Buffer.from(s, 'base64').toString();
    assert.equal(decode(config.clusters[0].cluster['certificate-authority-data']), 'CA PEM');
    assert.equal(decode(config.users[0].user['client-certificate-data']), 'CERT PEM');
    assert.equal(decode(config.users[0].user['client-key-data']), 'KEY PEM');
    assert.equal(config.users[0].user.token, 'secret-token');
    assert.equal(config.contexts[0].context.namespace, 'team-a');
    assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
  });

  test('kubectl gets a private HOME per kubeconfig', async () => {
    const dir = await tempDir('selftest');
    const kubeconfig = await writeKubeconfig(join(dir, 'kubeconfig'), 'http://127.0.0.1:6443');
    const { stdout } = await kubectl(['config', 'view', '-o', 'json'], { kubeconfig, env: { KUBECONFIG: '/nonexistent' } });
    assert.equal(JSON.parse(stdout)['current-context'], 'ksim');
    const home = await homeFor(kubeconfig);
    assert.notEqual(home, process.env.HOME);
    assert.equal(await homeFor(kubeconfig), home);
    await access(home);
  });
});

describe('api client', () => {
  // A stand-in server: JSON, text, and a watch that streams split lines.
  const server = createServer((req, res) => {
    if (req.url === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (req.url?.startsWith('/echo')) {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, type: req.headers['content-type'], body }));
      });
    } else if (req.url === '/gone?watch=true') {
      res.writeHead(410, { 'content-type': 'application/json' }).end('{"kind":"Status","code":410}');
    } else if (req.url === '/pods?watch=true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"n":1}}\n{"type":"MOD');
      setTimeout(() => res.write('IFIED","object":{"n":2}}\n'), 20);
      setTimeout(() => res.end('{"type":"DELETED","object":{"n":3}}\n'), 40);
    } else {
      res.writeHead(404).end();
    }
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const base = async () => {
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    return api(`http://127.0.0.1:${address.port}`);
  };

  test('request parses JSON and passes text through', async () => {
    const c = await base();
    const json = await c.request('POST', '/echo?x=1', { a: 1 });
    assert.equal(json.status, 201);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.deepEqual(json.body, { method: 'POST', url: '/echo?x=1', type: 'application/json', body: '{"a":1}' });
    const patch = await c.request('PATCH', '/echo', { a: 2 }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patch.body.type, 'application/merge-patch+json');
    const text = await c.request('GET', '/text');
    assert.equal(text.body, 'ok');
  });

  test('watch yields NDJSON events split across chunks', async () => {
    const c = await base();
    const events = [];
    for await (const ev of c.watch('/pods')) events.push(ev);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.n]),
      [
        ['ADDED', 1],
        ['MODIFIED', 2],
        ['DELETED', 3],
      ],
    );
  });

  test('watch next() and close()', async () => {
    const c = await base();
    const w = c.watch('/pods');
    assert.equal((await w.ready).status, 200);
    assert.equal((await w.next())?.type, 'ADDED');
    w.close();
    assert.equal(await w.next(), undefined);
  });

  test('watch reports a non-200 answer', async () => {
    const c = await base();
    const w = c.watch('/gone');
    await assert.rejects(w.next(), (err: unknown) => err instanceof WatchHttpError && err.status === 410);
  });
});

describe('api client over https', () => {
  // A CA, a serving certificate for 127.0.0.1 and a client certificate; the server says who it saw.
  const pki = (async () => {
    const now = new Date();
    const span = { notBefore: new Date(now.getTime() - 60_000), notAfter: new Date(now.getTime() + 3_600_000) };
    const caPair = await createCertificateAuthority('helpers-test-ca', { now, days: 1 });
    const ca = await loadCertificateAuthority(caPair.certPem, caPair.keyPem);
    const leaf = async (commonName: string, usages: KeyUsageName[], ipAddresses?: string[]) => {
      const { keys, keyPem } = await generateKeyPair();
      return { certPem: await issueCertificate(ca, { publicKey: keys.publicKey, commonName, ipAddresses, usages, ...span }), keyPem };
    };
    return {
      ca: caPair.certPem,
      server: await leaf('server', ['digital signature', 'server auth'], ['127.0.0.1']),
      client: await leaf('kubernetes-admin', ['digital signature', 'client auth']),
    };
  })();
  let server: ReturnType<typeof createHttpsServer> | undefined;
  after(() => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined))));

  const target = async (): Promise<ApiTarget> => {
    const p = await pki;
    if (!server) {
      server = createHttpsServer(
        { cert: p.server.certPem, key: p.server.keyPem, ca: p.ca, requestCert: true, rejectUnauthorized: false },
        (req, res) => {
          const socket = req.socket as TLSSocket;
          const peer = socket.getPeerCertificate();
          const who = socket.authorized ? peer.subject.CN : 'anonymous';
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ who, authorization: req.headers.authorization ?? null }));
        },
      );
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    }
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    return {
      url: `https://127.0.0.1:${address.port}`,
      tls: { ca: Buffer.from(p.ca), cert: Buffer.from(p.client.certPem), key: Buffer.from(p.client.keyPem) },
    };
  };

  test('verifies the server with the CA and shows the client certificate', async () => {
    const t = await target();
    const c = api(t);
    const res = await c.request('GET', '/whoami');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { who: 'kubernetes-admin', authorization: null });
    // Again on the kept-alive connection.
    assert.equal((await c.request('GET', '/whoami')).body.who, 'kubernetes-admin');
    c.close();
  });

  test('anonymous shows no certificate; a token goes as a bearer header without one', async () => {
    const t = await target();
    assert.deepEqual((await api(t, { credentials: 'anonymous' }).request('GET', '/')).body, { who: 'anonymous', authorization: null });
    assert.deepEqual((await api(t, { credentials: { token: 'abc' } }).request('GET', '/')).body, {
      who: 'anonymous',
      authorization: 'Bearer abc',
    });
  });

  test('refuses a server its CA did not sign', async () => {
    const t = await target();
    const other = await createCertificateAuthority('another-ca', { days: 1 });
    await assert.rejects(
      api({ ...t, tls: { ...t.tls!, ca: Buffer.from(other.certPem) } }).request('GET', '/'),
      /self-signed|unable to verify|certificate/i,
    );
  });

  test('connectRaw gives a TLS socket that carries hand-written HTTP', async () => {
    const t = await target();
    const socket = await connectRaw(t);
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await closed;
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text, /"who":"kubernetes-admin"/);
  });
});
