// The kubelet API over TLS against real certificates: no certificate and a
// certificate from another CA are 401, a SubjectAccessReview that denies is
// 403 with kubelet's words, one that allows reaches the handler; answers are
// cached for their TTLs; WebSocket upgrades pass the same checks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import WebSocket from 'ws';
import { FakeClock } from '../../shared/clock/clock.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createCertificateAuthority, generateKeyPair, issueCertificate, loadCertificateAuthority } from '../../shared/pki/certificates.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PodManager } from '../pod-manager.ts';
import { requestAttributes, SarAuthorizer, type KubeletCaller, type KubeletRequestAttributes } from './kubelet-auth.ts';
import { startKubeletApiServer, type KubeletServer } from './kubelet-server.ts';
import { selfSignedServingCert } from './serving-cert.ts';

interface Creds {
  cert: string;
  key: string;
}

async function clientCert(caName: string, cn: string, orgs: string[]): Promise<{ caPem: string; creds: Creds }> {
  const ca = await createCertificateAuthority(caName);
  const authority = await loadCertificateAuthority(ca.certPem, ca.keyPem);
  const leaf = await generateKeyPair();
  const now = Date.now();
  const cert = await issueCertificate(authority, {
    publicKey: leaf.keys.publicKey,
    commonName: cn,
    organizations: orgs,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    usages: ['digital signature', 'client auth'],
  });
  return { caPem: ca.certPem, creds: { cert, key: leaf.keyPem } };
}

const clock = new FakeClock(Date.now());
const reviews: { caller: KubeletCaller; attrs: KubeletRequestAttributes }[] = [];
let allow = (caller: KubeletCaller) => caller.name === 'kube-apiserver-kubelet-client';
let server: KubeletServer;
let apiserverCreds: Creds;
let forgedCreds: Creds;

before(async () => {
  const cluster = await clientCert('kubernetes', 'kube-apiserver-kubelet-client', ['kubeadm:cluster-admins']);
  apiserverCreds = cluster.creds;
  // The same subject, from a CA of the same name that the kubelet does not trust.
  forgedCreds = (await clientCert('kubernetes', 'kube-apiserver-kubelet-client', ['kubeadm:cluster-admins'])).creds;
  const serving = await selfSignedServingCert('127.0.0.1');
  const authorizer = new SarAuthorizer({
    clock,
    review: (caller, attrs) => {
      reviews.push({ caller, attrs });
      return Promise.resolve({ allowed: allow(caller) });
    },
  });
  const fleet = { nodes: new Map([['node-a', {}]]) } as unknown as NodeFleet;
  const pods = { worker: () => undefined } as unknown as PodManager;
  server = await startKubeletApiServer({ port: 0, fleet, pods, clock, log: createLogger('test'), healthPort: 0 }, 0, {
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    clientCaPem: cluster.caPem,
    authorizer,
  });
});
after(() => server?.close());

function get(path: string, creds?: Creds, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `https://127.0.0.1:${server.port}${path}`,
      { method, rejectUnauthorized: false, cert: creds?.cert, key: creds?.key, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      },
    );
    req.on('error', reject).end();
  });
}

test('the attributes of kubelet requests, as pkg/kubelet/server/auth.go builds them', () => {
  assert.deepEqual(requestAttributes('GET', '/containerLogs/ns/p/c', 'n1'), {
    verb: 'get',
    subresource: 'proxy',
    node: 'n1',
    path: '/containerLogs/ns/p/c',
  });
  assert.equal(requestAttributes('POST', '/run/ns/p/c', 'n1').verb, 'create');
  assert.equal(requestAttributes('GET', '/exec/ns/p/c', 'n1').subresource, 'proxy');
  assert.equal(requestAttributes('GET', '/stats/summary', 'n1').subresource, 'stats');
  assert.equal(requestAttributes('GET', '/metrics/cadvisor', 'n1').subresource, 'metrics');
  assert.equal(requestAttributes('GET', '/logs/syslog', 'n1').subresource, 'log');
  assert.equal(requestAttributes('GET', '/logsx', 'n1').subresource, 'proxy');
});

test('no client certificate, or one from another CA, is 401 Unauthorized and asks nobody', async () => {
  const before = reviews.length;
  assert.deepEqual(await get('/containerLogs/default/p/c'), { status: 401, type: 'text/plain; charset=utf-8', body: 'Unauthorized\n' });
  assert.deepEqual(await get('/containerLogs/default/p/c', forgedCreds), {
    status: 401,
    type: 'text/plain; charset=utf-8',
    body: 'Unauthorized\n',
  });
  assert.equal(reviews.length, before);
});

test('a verified caller is reviewed as nodes/proxy of the node; allowed reaches the handler, denied is 403', async () => {
  reviews.length = 0;
  const allowed = await get('/containerLogs/default/p/c', apiserverCreds);
  assert.equal(allowed.status, 404, allowed.body);
  assert.deepEqual(reviews, [
    {
      caller: { name: 'kube-apiserver-kubelet-client', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
      attrs: { verb: 'get', subresource: 'proxy', node: 'node-a', path: '/containerLogs/default/p/c' },
    },
  ]);
  allow = () => false;
  const denied = await get('/run/default/p/c?cmd=id', apiserverCreds, 'POST');
  assert.deepEqual(denied, {
    status: 403,
    type: 'text/plain; charset=utf-8',
    body: 'Forbidden (user=kube-apiserver-kubelet-client, verb=create, resource=nodes, subresource=proxy)\n',
  });
});

test('answers are cached: allowed for 5 minutes, denied for 30 seconds', async () => {
  // The review names no path: the earlier answers for node-a's nodes/proxy are cached too. Let them expire.
  await clock.step(600_000);
  reviews.length = 0;
  allow = () => true;
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 404);
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 404);
  assert.equal(reviews.length, 1, 'the second request is answered from the cache');
  allow = () => false;
  await clock.step(299_000);
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 404, 'still cached');
  await clock.step(2_000);
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 403, 'asked again after 5 minutes');
  allow = () => true;
  await clock.step(29_000);
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 403, 'the denial is cached');
  await clock.step(2_000);
  assert.equal((await get('/containerLogs/default/q/c', apiserverCreds)).status, 404, 'asked again after 30 seconds');
  assert.equal(reviews.length, 3);
});

test('a WebSocket exec passes the same checks before the upgrade', async () => {
  const refusal = (creds?: Creds) =>
    new Promise<string>((resolve) => {
      const ws = new WebSocket(`wss://127.0.0.1:${server.port}/exec/default/p/c?command=id&stdout=true`, ['v5.channel.k8s.io'], {
        rejectUnauthorized: false,
        cert: creds?.cert,
        key: creds?.key,
      });
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => {
        ws.close();
        resolve('open');
      });
      ws.on('error', (err) => resolve(err.message));
    });
  assert.equal(await refusal(), '401');
  assert.equal(await refusal(forgedCreds), '401');
  allow = () => false;
  await clock.step(600_000);
  assert.equal(await refusal(apiserverCreds), '403');
  allow = () => true;
  await clock.step(600_000);
  assert.equal(await refusal(apiserverCreds), 'open');
});
