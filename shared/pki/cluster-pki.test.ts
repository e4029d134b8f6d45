// DIR/pki: made once, then only read; modes; the serving certificate
// reissued for a new SAN; a set left half-made by a crash is completed; a
// mismatched key is an error naming its file; and the kubeconfigs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describeCertificate, generateKeyPair } from './certificates.ts';
import { ensureClusterPki, type ClusterPki } from './cluster-pki.ts';
import { writeClusterKubeconfigs } from './kubeconfigs.ts';

const FILES = [
  'ca',
  'apiserver',
  'apiserver-kubelet-client',
  'admin',
  'controller-manager',
  'scheduler',
  'kubelet-sim',
  'kubelet-sim-serving',
  'ui',
];
const opts = { serviceIPs: ['10.96.0.1'] };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ksim-cluster-pki-'));
  try {
    await fn(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;

function assertSignedByCa(pki: ClusterPki): void {
  const ca = new crypto.X509Certificate(pki.ca.certPem);
  for (const name of [
    'apiserver',
    'apiserverKubeletClient',
    'admin',
    'controllerManager',
    'scheduler',
    'kubeletSim',
    'kubeletSimServing',
  ] as const) {
    const leaf = new crypto.X509Certificate(pki[name].certPem);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), name);
  }
}

test('the first call makes the whole set (0600 keys, 0700 dir) quickly; the second only reads it', async () => {
  await withDir(async (dir) => {
    let t = performance.now();
    const first = await ensureClusterPki(dir, opts);
    const firstMs = performance.now() - t;
    assert.equal(first.written.length, FILES.length * 2);
    assert.equal(await mode(first.dir), 0o700);
    for (const f of FILES) {
      assert.equal(await mode(path.join(dir, 'pki', `${f}.key`)), 0o600, f);
      assert.equal(await mode(path.join(dir, 'pki', `${f}.crt`)), 0o644, f);
    }
    assertSignedByCa(first);

    const subjects = Object.fromEntries(
      (
        [
          'ca',
          'apiserver',
          'apiserverKubeletClient',
          'admin',
          'controllerManager',
          'scheduler',
          'kubeletSim',
          'kubeletSimServing',
          'ui',
        ] as const
      ).map((n) => {
        const d = describeCertificate(first[n].certPem);
        return [n, [d.commonName, ...d.organizations].join('/')];
      }),
    );
    assert.deepEqual(subjects, {
      ca: 'kubernetes',
      apiserver: 'kube-apiserver',
      apiserverKubeletClient: 'kube-apiserver-kubelet-client/kubeadm:cluster-admins',
      admin: 'kubernetes-admin/kubeadm:cluster-admins',
      controllerManager: 'system:kube-controller-manager',
      scheduler: 'system:kube-scheduler',
      kubeletSim: 'system:ksim:kubelet-sim',
      kubeletSimServing: 'kubelet-sim',
      ui: 'system:ksim:ui',
    });
    // The kubelet API's serving certificate: this host's names, for server auth.
    const kubeletServing = describeCertificate(first.kubeletSimServing.certPem);
    assert.ok(kubeletServing.dnsNames.includes('localhost'));
    assert.deepEqual(kubeletServing.ipAddresses.sort(), ['127.0.0.1', '::1']);
    assert.deepEqual(kubeletServing.extKeyUsages, ['1.3.6.1.5.5.7.3.1']);
    const serving = describeCertificate(first.apiserver.certPem);
    for (const n of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'])
      assert.ok(serving.dnsNames.includes(n), n);
    assert.deepEqual(serving.ipAddresses.sort(), ['10.96.0.1', '127.0.0.1', '::1']);
    assert.deepEqual(serving.extKeyUsages, ['1.3.6.1.5.5.7.3.1']);
    assert.deepEqual(describeCertificate(first.admin.certPem).extKeyUsages, ['1.3.6.1.5.5.7.3.2']);
    const days = (serving.notAfter.getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 364 && days < 366, String(days));

    t = performance.now();
    const second = await ensureClusterPki(dir, opts);
    const secondMs = performance.now() - t;
    assert.deepEqual(second.written, []);
    assert.equal(second.ca.certPem, first.ca.certPem);
    assert.equal(second.admin.keyPem, first.admin.keyPem);
    assert.equal(second.apiserver.certPem, first.apiserver.certPem);
    process.stdout.write(`# ensureClusterPki: first call ${firstMs.toFixed(0)} ms, second ${secondMs.toFixed(0)} ms\n`);
    assert.ok(firstMs < 1000, `first call took ${firstMs} ms`);
  });
});

test('a new service IP or advertise address reissues only the serving certificates, with the same keys', async () => {
  await withDir(async (dir) => {
    const first = await ensureClusterPki(dir, opts);
    const fewer = await ensureClusterPki(dir, { serviceIPs: [] });
    assert.deepEqual(fewer.written, [], 'a cert covering more than asked is kept');
    const more = await ensureClusterPki(dir, {
      serviceIPs: ['10.96.0.1'],
      advertiseAddresses: ['192.168.7.9', 'ksim.example', 'fd00::0:1'],
    });
    assert.deepEqual(more.written.sort(), [path.join(dir, 'pki', 'apiserver.crt'), path.join(dir, 'pki', 'kubelet-sim-serving.crt')]);
    assert.equal(more.apiserver.keyPem, first.apiserver.keyPem);
    const d = describeCertificate(more.apiserver.certPem);
    assert.ok(d.ipAddresses.includes('192.168.7.9') && d.ipAddresses.includes('fd00::1'), String(d.ipAddresses));
    assert.ok(d.dnsNames.includes('ksim.example'));
    assert.deepEqual((await ensureClusterPki(dir, { ...opts, advertiseAddresses: ['fd00:0::1'] })).written, []);

    // Two years on, the one-year leaves have expired and are reissued (same keys); the CA is kept.
    const later = await ensureClusterPki(dir, { ...opts, now: new Date(Date.now() + 2 * 365 * 86_400_000) });
    assert.equal(later.written.length, 8);
    assert.equal(later.ca.certPem, first.ca.certPem);
    assert.equal(later.admin.keyPem, first.admin.keyPem);
    assert.ok(describeCertificate(later.admin.certPem).notAfter.getTime() > Date.now() + 2.9 * 365 * 86_400_000);
  });
});

test('a set a crash left half-made is completed; a key without its certificate keeps the key', async () => {
  await withDir(async (dir) => {
    const first = await ensureClusterPki(dir, opts);
    const pki = path.join(dir, 'pki');
    // Killed after writing a key, before its certificate.
    await fs.rm(path.join(pki, 'admin.crt'));
    // Killed before the rename: a temp file of a process that is gone.
    await fs.writeFile(path.join(pki, 'scheduler.crt.999999999.tmp'), '-----BEGIN CERT');
    // A certificate whose key is gone.
    await fs.rm(path.join(pki, 'scheduler.key'));
    const again = await ensureClusterPki(dir, opts);
    assert.deepEqual(again.written.sort(), [path.join(pki, 'admin.crt'), path.join(pki, 'scheduler.crt'), path.join(pki, 'scheduler.key')]);
    assert.equal(again.admin.keyPem, first.admin.keyPem);
    assert.notEqual(again.scheduler.keyPem, first.scheduler.keyPem);
    assert.deepEqual(
      (await fs.readdir(pki)).filter((f) => f.endsWith('.tmp')),
      [],
    );
    assertSignedByCa(again);

    // The CA's certificate lost (its key kept): re-signed with that key and name, so every leaf still chains to it.
    await fs.rm(path.join(pki, 'ca.crt'));
    const resigned = await ensureClusterPki(dir, opts);
    assert.equal(resigned.ca.keyPem, first.ca.keyPem);
    assert.deepEqual(resigned.written, [path.join(pki, 'ca.crt')]);
    assertSignedByCa(resigned);

    // The whole CA gone: a new one, and every leaf reissued to it with its own key kept.
    await fs.rm(path.join(pki, 'ca.crt'));
    await fs.rm(path.join(pki, 'ca.key'));
    const newCa = await ensureClusterPki(dir, opts);
    assert.notEqual(newCa.ca.keyPem, first.ca.keyPem);
    assert.equal(newCa.written.length, 2 + 8);
    assert.equal(newCa.admin.keyPem, first.admin.keyPem);
    assertSignedByCa(newCa);
  });
});

test('a key that is not its certificate’s, a missing CA key, or a torn file is an error naming the file', async () => {
  await withDir(async (dir) => {
    await ensureClusterPki(dir, opts);
    const pki = path.join(dir, 'pki');
    const adminKey = path.join(pki, 'admin.key');
    const good = await fs.readFile(adminKey, 'utf8');
    await fs.writeFile(adminKey, (await generateKeyPair()).keyPem);
    await assert.rejects(ensureClusterPki(dir, opts), { message: `${adminKey} is not the private key of ${path.join(pki, 'admin.crt')}` });
    await fs.writeFile(adminKey, good.slice(0, 40));
    await assert.rejects(ensureClusterPki(dir, opts), { message: `${adminKey} is not a PEM private key` });
    await fs.writeFile(adminKey, good);

    const cert = path.join(pki, 'controller-manager.crt');
    await fs.writeFile(cert, (await fs.readFile(cert, 'utf8')).slice(0, 100));
    await assert.rejects(ensureClusterPki(dir, opts), { message: `${cert} is not a PEM certificate` });
    await fs.rm(cert);

    await fs.rm(path.join(pki, 'ca.key'));
    await assert.rejects(ensureClusterPki(dir, opts), /ca\.key is missing: the CA .*ca\.crt cannot sign without it/);
  });
});

test('loosened key modes are tightened back to 0600', async () => {
  await withDir(async (dir) => {
    await ensureClusterPki(dir, opts);
    await fs.chmod(path.join(dir, 'pki', 'ca.key'), 0o644);
    await fs.chmod(path.join(dir, 'pki'), 0o755);
    await ensureClusterPki(dir, opts);
    assert.equal(await mode(path.join(dir, 'pki', 'ca.key')), 0o600);
    assert.equal(await mode(path.join(dir, 'pki')), 0o700);
  });
});

test('the four kubeconfigs embed the CA and each identity’s own certificate, mode 0600', async () => {
  await withDir(async (dir) => {
    const pki = await ensureClusterPki(dir, opts);
    const paths = await writeClusterKubeconfigs(dir, 'https://127.0.0.1:6443', pki);
    assert.deepEqual(paths, {
      admin: path.join(dir, 'kubeconfig'),
      controllerManager: path.join(dir, 'controller-manager.kubeconfig'),
      scheduler: path.join(dir, 'scheduler.kubeconfig'),
      kubeletSim: path.join(dir, 'kubelet-sim.kubeconfig'),
      ui: path.join(dir, 'ui.kubeconfig'),
    });
    const users: Record<string, string> = {};
    for (const [name, file] of Object.entries(paths)) {
      assert.equal(await mode(file), 0o600, file);
      const kc = parse(await fs.readFile(file, 'utf8'));
      assert.equal(kc['current-context'], 'ksim');
      assert.equal(kc.clusters[0].name, 'ksim');
      assert.equal(kc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
      assert.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.ca.certPem);
      const user = kc.users[0];
      assert.equal(kc.contexts[0].context.user, user.name);
      const cert = Buffer.from(user.user['client-certificate-data'], 'base64').toString();
      const key = Buffer.from(user.user['client-key-data'], 'base64').toString();
      assert.equal(describeCertificate(cert).commonName, user.name);
      assert.ok(crypto.createPublicKey(key).equals(new crypto.X509Certificate(cert).publicKey));
      users[name] = user.name;
    }
    assert.deepEqual(users, {
      admin: 'kubernetes-admin',
      controllerManager: 'system:kube-controller-manager',
      scheduler: 'system:kube-scheduler',
      kubeletSim: 'system:ksim:kubelet-sim',
      ui: 'system:ksim:ui',
    });
    // Same content: left alone; a new port: rewritten.
    const before = (await fs.stat(paths.admin)).ino;
    await writeClusterKubeconfigs(dir, 'https://127.0.0.1:6443', pki);
    assert.equal((await fs.stat(paths.admin)).ino, before);
    await writeClusterKubeconfigs(dir, 'https://127.0.0.1:7443', pki);
    assert.match(await fs.readFile(paths.admin, 'utf8'), /server: https:\/\/127\.0\.0\.1:7443/);
  });
});
