// The cluster's certificates in DIR/pki/, laid out as kubeadm lays out
// /etc/kubernetes/pki: a CA, the apiserver's serving certificate, its client
// certificate for the kubelets, and one client certificate per identity
// (admin, controller-manager, scheduler, the kubelet-sim process). Made on
// the first start and only read afterwards; a key is never replaced once
// written, so a certificate can always be reissued for it.
import fs from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  CertificateError,
  canonicalIp,
  createCertificateAuthority,
  describeCertificate,
  generateKeyPair,
  issueCertificate,
  keyMatchesCertificate,
  loadCertificateAuthority,
  publicKeyOf,
  type CertificateAuthority,
  type KeyUsageName,
} from './certificates.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { pkiPaths } from './paths.ts';

/** One certificate and its key, as files and as PEM text. */
export interface PkiPair {
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
}

/** Every pair of the cluster PKI. */
export interface ClusterPki {
  /** DIR/pki */
  dir: string;
  ca: PkiPair;
  apiserver: PkiPair;
  apiserverKubeletClient: PkiPair;
  admin: PkiPair;
  controllerManager: PkiPair;
  scheduler: PkiPair;
  kubeletSim: PkiPair;
  /** The web UI's client certificate (its own identity, system:ksim:ui). */
  ui: PkiPair;
  /** The kubelet API's serving certificate (ksim up gives it to kubelet-sim). */
  kubeletSimServing: PkiPair;
  /** The files this call wrote (none when everything was reused). */
  written: string[];
}

/** What ensureClusterPki is asked for. */
export interface ClusterPkiOptions {
  /** The `kubernetes` Service's ClusterIP(s), put in the serving certificate. */
  serviceIPs: string[];
  /** --advertise-address values (IPs, or names), put in the serving certificate. */
  advertiseAddresses?: string[];
  now?: Date;
}

type LeafName = Exclude<keyof ClusterPki, 'dir' | 'ca' | 'written'>;

interface LeafSpec {
  file: string;
  commonName: string;
  organizations?: string[];
  usages: KeyUsageName[];
}

const CLIENT: KeyUsageName[] = ['digital signature', 'key encipherment', 'client auth'];

/** Every leaf: file name, subject and usages (kubeadm's, plus ksim's kubelet-sim identity). */
export const LEAVES: Record<LeafName, LeafSpec> = {
  apiserver: { file: 'apiserver', commonName: 'kube-apiserver', usages: ['digital signature', 'key encipherment', 'server auth'] },
  apiserverKubeletClient: {
    file: 'apiserver-kubelet-client',
    commonName: 'kube-apiserver-kubelet-client',
    organizations: ['kubeadm:cluster-admins'],
    usages: CLIENT,
  },
  admin: { file: 'admin', commonName: 'kubernetes-admin', organizations: ['kubeadm:cluster-admins'], usages: CLIENT },
  controllerManager: { file: 'controller-manager', commonName: 'system:kube-controller-manager', usages: CLIENT },
  scheduler: { file: 'scheduler', commonName: 'system:kube-scheduler', usages: CLIENT },
  kubeletSim: { file: 'kubelet-sim', commonName: 'system:ksim:kubelet-sim', usages: CLIENT },
  ui: { file: 'ui', commonName: 'system:ksim:ui', usages: CLIENT },
  kubeletSimServing: {
    file: 'kubelet-sim-serving',
    commonName: 'kubelet-sim',
    usages: ['digital signature', 'key encipherment', 'server auth'],
  },
};

const CA_COMMON_NAME = 'kubernetes';
const LEAF_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start 5 minutes early so that a clock a little behind still accepts them. */
const BACKDATE_MS = 5 * 60 * 1000;

/** The names a serving certificate must hold: DNS names and canonical IPs. */
interface ServingNames {
  dnsNames: string[];
  ipAddresses: string[];
}

/** The names the apiserver's serving certificate must hold. */
export function servingNames(opts: ClusterPkiOptions): ServingNames {
  return hostNames(
    opts,
    ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
    opts.serviceIPs,
  );
}

/** The names the kubelet API's serving certificate must hold: this host's, as the apiserver dials kubelet-sim. */
function kubeletServingNames(opts: ClusterPkiOptions): ServingNames {
  return hostNames(opts, [], []);
}

/** localhost, the loopback addresses, this host's name and the advertised addresses, with `names` and `ipAddresses`. */
function hostNames(opts: ClusterPkiOptions, names: string[], ipAddresses: string[]): ServingNames {
  const dns = new Set(['localhost', ...names]);
  const ips = new Set(['127.0.0.1', '::1']);
  for (const ip of ipAddresses) ips.add(canonicalIp(ip));
  for (const a of opts.advertiseAddresses ?? []) {
    if (net.isIP(a)) ips.add(canonicalIp(a));
    else if (a) dns.add(a.toLowerCase());
  }
  const host = os.hostname().toLowerCase();
  if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(host)) dns.add(host);
  return { dnsNames: [...dns], ipAddresses: [...ips] };
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Parses a certificate file, or says which file is not one. */
function parseCert(file: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw new CertificateError(`${file} is not a PEM certificate`, { cause: err });
  }
}

function checkPair(pair: { certPath: string; keyPath: string }, certPem: string, keyPem: string): void {
  parseCert(pair.certPath, certPem);
  let matches: boolean;
  try {
    matches = keyMatchesCertificate(certPem, keyPem);
  } catch (err) {
    throw new CertificateError(`${pair.keyPath} is not a PEM private key`, { cause: err });
  }
  if (!matches) throw new CertificateError(`${pair.keyPath} is not the private key of ${pair.certPath}`);
}

/** Removes temp files that a process killed mid-write left behind (never a live process's). */
async function removeStaleTempFiles(dir: string): Promise<void> {
  for (const name of await fs.readdir(dir)) {
    const m = /\.(\d+)\.tmp$/.exec(name);
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      await fs.rm(path.join(dir, name), { force: true });
    }
  }
}

/** Key files stay 0600 even if someone loosened them. */
async function tightenKeyMode(file: string): Promise<void> {
  const st = await fs.stat(file);
  if ((st.mode & 0o777) !== 0o600) await fs.chmod(file, 0o600);
}

/**
 * Makes sure DIR/pki holds the whole cluster PKI and returns it. The first
 * call creates everything; later calls only read, except to complete a set
 * that a crash left half-made, to reissue a certificate whose CA changed or
 * that expired, and to reissue the serving certificate when its SANs no
 * longer cover what `opts` asks. A key that does not match its certificate is
 * an error naming the key file. Callers must hold the data dir (the database
 * lock) so that two processes never create it at once.
 */
export async function ensureClusterPki(dataDir: string, opts: ClusterPkiOptions): Promise<ClusterPki> {
  const now = opts.now ?? new Date();
  const dir = path.join(dataDir, 'pki');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (((await fs.stat(dir)).mode & 0o777) !== 0o700) await fs.chmod(dir, 0o700);
  await removeStaleTempFiles(dir);
  const written: string[] = [];
  const write = async (file: string, text: string, mode: number) => {
    await writeFileAtomic(file, text, mode);
    written.push(file);
  };

  // The CA. A key without its certificate is what a crash between the two writes leaves: self-sign that key.
  const caPaths = pkiPaths(dataDir, 'ca');
  let [caCert, caKey] = await Promise.all([readIfExists(caPaths.certPath), readIfExists(caPaths.keyPath)]);
  if (caCert !== undefined && caKey === undefined)
    throw new CertificateError(
      `${caPaths.keyPath} is missing: the CA ${caPaths.certPath} cannot sign without it (remove ${caPaths.certPath} to make a new CA)`,
    );
  if (caKey === undefined) {
    caKey = (await generateKeyPair()).keyPem;
    await write(caPaths.keyPath, caKey, 0o600);
  }
  if (caCert === undefined) {
    caCert = (await createCertificateAuthority(CA_COMMON_NAME, { now, keyPem: caKey })).certPem;
    await write(caPaths.certPath, caCert, 0o644);
  } else checkPair(caPaths, caCert, caKey);
  await tightenKeyMode(caPaths.keyPath);
  const caX509 = parseCert(caPaths.certPath, caCert);
  let ca: CertificateAuthority | undefined;
  const loadCa = async () => (ca ??= await loadCertificateAuthority(caCert, caKey));

  const sans: Partial<Record<LeafName, ServingNames>> = { apiserver: servingNames(opts), kubeletSimServing: kubeletServingNames(opts) };
  const leaves = {} as Record<LeafName, PkiPair>;
  await Promise.all(
    (Object.keys(LEAVES) as LeafName[]).map(async (name) => {
      const spec = LEAVES[name];
      const paths = pkiPaths(dataDir, spec.file);
      let [certPem, keyPem] = await Promise.all([readIfExists(paths.certPath), readIfExists(paths.keyPath)]);
      if (keyPem === undefined) {
        // The certificate is for a key that is gone: drop it first, so a crash now cannot pair it with the new key.
        if (certPem !== undefined) await fs.rm(paths.certPath, { force: true });
        certPem = undefined;
        keyPem = (await generateKeyPair()).keyPem;
        await write(paths.keyPath, keyPem, 0o600);
      }
      if (certPem !== undefined) {
        checkPair(paths, certPem, keyPem);
        if (!stillGood(parseCert(paths.certPath, certPem), caX509, now, sans[name])) certPem = undefined;
      }
      if (certPem === undefined) {
        const notBefore = new Date(now.getTime() - BACKDATE_MS);
        const authority = await loadCa();
        const notAfter = new Date(Math.min(now.getTime() + LEAF_DAYS * DAY_MS, authority.notAfter.getTime()));
        certPem = await issueCertificate(authority, {
          publicKey: publicKeyOf(keyPem),
          commonName: spec.commonName,
          organizations: spec.organizations,
          ...sans[name],
          notBefore,
          notAfter,
          usages: spec.usages,
        });
        await write(paths.certPath, certPem, 0o644);
      }
      await tightenKeyMode(paths.keyPath);
      leaves[name] = { ...paths, certPem, keyPem };
    }),
  );
  return { dir, ca: { ...caPaths, certPem: caCert, keyPem: caKey }, ...leaves, written };
}

/** Whether a leaf may be kept: issued by this CA, not expired, and (serving) covering every name asked. */
function stillGood(cert: X509Certificate, ca: X509Certificate, now: Date, serving?: ServingNames): boolean {
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  if (new Date(cert.validTo).getTime() <= now.getTime()) return false;
  if (!serving) return true;
  const have = describeCertificate(cert.toString());
  const dns = new Set(have.dnsNames.map((n) => n.toLowerCase()));
  const ips = new Set(have.ipAddresses);
  return serving.dnsNames.every((n) => dns.has(n)) && serving.ipAddresses.every((ip) => ips.has(ip));
}
