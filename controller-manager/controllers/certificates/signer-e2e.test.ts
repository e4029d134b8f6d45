// The classic "create a user with openssl and a CSR" lab against a real
// apiserver, with the real kubectl and openssl and the csrsigning controller
// run in-process as the controller-manager runs it: an RSA key and request
// from openssl, `kubectl certificate approve`, the certificate the signer
// issues verifies against the cluster CA; a request the signer refuses is
// Failed with kube's reason and message, and nothing is issued.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { KubeClient } from '../../../shared/client/kube-client.ts';
import { realClock } from '../../../shared/clock/clock.ts';
import { runController, type RunningController } from '../../../shared/controller/run-controller.ts';
import { EventRecorder } from '../../../shared/events/event-recorder.ts';
import { InformerFactory } from '../../../shared/informer/factory.ts';
import { createMetricsRegistry } from '../../../shared/metrics/registry.ts';
import { pkiPaths } from '../../../shared/pki/paths.ts';
import { kubectl, ok, startApiserver, tempDir, until, type Apiserver } from '../../../test/helpers/index.ts';
import { csrSigningController } from './controller.ts';

const run = promisify(execFile);

let server: Apiserver;
let client: KubeClient;
let factory: InformerFactory;
let signer: RunningController;
let dir: string;
let kubeconfig: string;

before(async () => {
  server = await startApiserver();
  dir = await tempDir('csr-signer');
  kubeconfig = server.kubeconfig;
  client = new KubeClient(server.clientConfig);
  // The cluster CA signs, as `ksim up` configures the controller-manager (kubeadm's way).
  const ca = pkiPaths(server.dataDir, 'ca');
  await copyFile(ca.certPath, join(dir, 'ca.crt'));
  const log = pino({ level: 'warn' });
  const registry = createMetricsRegistry('controller-manager');
  factory = new InformerFactory(client, { log, clock: realClock });
  const parts = csrSigningController({
    client,
    informers: factory,
    clock: realClock,
    log,
    registry,
    events: new EventRecorder(client, { component: 'certificate-controller', log }),
    speed: 1,
    csrSigning: { certFile: ca.certPath, keyFile: ca.keyPath },
  });
  factory.start();
  signer = await runController({ ...parts, workers: 1, log, registry });
});

after(async () => {
  factory?.stop();
  await signer?.stop();
  client?.close();
  await server?.stop();
});

// `create --validate=false`: kubectl's client-side schema check is not what is tested here.
const k = (args: string[], input?: string) => kubectl(args, { kubeconfig, input });

async function openssl(...args: string[]): Promise<string> {
  return (await run('openssl', args, { cwd: dir })).stdout;
}

const csrYaml = (name: string, request: string, usages: string[]) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${Buffer.from(request).toString('base64')}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [${usages.join(', ')}]
`;

const conditionOf = async (name: string) =>
  ok(await k(['get', 'csr', name, '--no-headers']))
    .trim()
    .split(/\s+/)
    .pop();

test('openssl key and request, kubectl approve: the signer issues a certificate that verifies against the CA', async () => {
  await openssl('genrsa', '-out', 'alice.key', '2048');
  await openssl('req', '-new', '-key', 'alice.key', '-subj', '/CN=alice/O=devs', '-out', 'alice.csr');
  ok(await k(['create', '--validate=false', '-f', '-'], csrYaml('alice', await readFile(join(dir, 'alice.csr'), 'utf8'), ['client auth'])));
  assert.equal(await conditionOf('alice'), 'Pending');
  ok(await k(['certificate', 'approve', 'alice']));

  const b64 = await until(
    async () => ok(await k(['get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}'])).trim() || undefined,
    'the certificate',
  );
  const pem = Buffer.from(b64, 'base64').toString();
  await writeFile(join(dir, 'alice.crt'), pem);
  assert.equal((await openssl('verify', '-CAfile', 'ca.crt', 'alice.crt')).trim(), 'alice.crt: OK');
  const text = await openssl(
    'x509',
    '-in',
    'alice.crt',
    '-noout',
    '-subject',
    '-issuer',
    '-startdate',
    '-enddate',
    '-ext',
    'extendedKeyUsage,basicConstraints',
  );
  assert.match(text, /^subject=O\s*=\s*devs, CN\s*=\s*alice$/m);
  assert.match(text, /^issuer=CN\s*=\s*kubernetes$/m);
  assert.match(text, /TLS Web Client Authentication/);
  assert.match(text, /CA:FALSE/);
  const start = Date.parse(/notBefore=(.*)/.exec(text)![1]);
  const end = Date.parse(/notAfter=(.*)/.exec(text)![1]);
  assert.equal(end - start, 24 * 3600 * 1000, '24h asked: valid from 5 minutes ago for 24h');
  assert.ok(Math.abs(start - (Date.now() - 5 * 60 * 1000)) < 60 * 1000, 'backdated 5 minutes');
  // The certificate is the one for the key openssl made.
  const certKey = await openssl('x509', '-in', 'alice.crt', '-noout', '-pubkey');
  const ownKey = await openssl('rsa', '-in', 'alice.key', '-pubout');
  assert.equal(certKey, ownKey);
  assert.equal(await conditionOf('alice'), 'Approved,Issued');

  // The apiserver takes it: alice is who she says, in her group.
  const whoami = ok(
    await k(['auth', 'whoami', '--client-certificate', join(dir, 'alice.crt'), '--client-key', join(dir, 'alice.key'), '-o', 'json']),
  );
  const { status } = JSON.parse(whoami);
  assert.equal(status.userInfo.username, 'alice');
  assert.deepEqual(status.userInfo.groups, ['devs', 'system:authenticated']);
});

test('a request for server auth from the client signer is Failed, with nothing issued', async () => {
  await openssl('req', '-new', '-key', 'alice.key', '-subj', '/CN=mallory', '-out', 'mallory.csr');
  ok(
    await k(
      ['create', '--validate=false', '-f', '-'],
      csrYaml('mallory', await readFile(join(dir, 'mallory.csr'), 'utf8'), ['client auth', 'server auth']),
    ),
  );
  ok(await k(['certificate', 'approve', 'mallory']));
  await until(async () => ((await conditionOf('mallory')) === 'Approved,Failed' ? true : undefined), 'the Failed condition');
  const csr = JSON.parse(ok(await k(['get', 'csr', 'mallory', '-o', 'json'])));
  const failed = csr.status.conditions.find((c: { type: string }) => c.type === 'Failed');
  assert.equal(failed.status, 'True');
  assert.equal(failed.reason, 'SignerValidationFailure');
  assert.equal(failed.message, 'invalid usage for client certificate: server auth');
  assert.equal(csr.status.certificate, undefined);
});

test('a pending request is not signed', async () => {
  await openssl('req', '-new', '-key', 'alice.key', '-subj', '/CN=bob', '-out', 'bob.csr');
  ok(await k(['create', '--validate=false', '-f', '-'], csrYaml('bob', await readFile(join(dir, 'bob.csr'), 'utf8'), ['client auth'])));
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await conditionOf('bob'), 'Pending');
});
