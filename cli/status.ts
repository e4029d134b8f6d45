// `ksim status --data-dir DIR`: one line per component with its pid, whether
// it is alive (checked now, not just as recorded) and its endpoint. The
// apiserver's row also says when it is up but not ready, and which of its
// /readyz checks fail (etcd: its storage refuses writes, e.g. a full disk).
// An HTTPS endpoint is checked against the cluster CA (DIR/pki/ca.crt), as
// kubectl would; an apiserver on plain HTTP is called out as INSECURE.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { describeCertificate } from '../shared/pki/certificates.ts';
import { pkiPaths } from '../shared/pki/cluster-pki.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { readClusterState } from './cluster-state.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'the cluster data directory' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** GETs url (trusting `ca` for https) within 2 s; undefined when it cannot be reached or its certificate is not the CA's. */
function probe(url: string, ca: string | undefined): Promise<{ ok: boolean; body: string } | undefined> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { ca, timeout: 2000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** The names of the /readyz checks that fail ("[-]etcd failed: ..."), or undefined when ready. */
async function failingReadyChecks(endpoint: string, ca: string | undefined): Promise<string[] | undefined> {
  const res = await probe(`${endpoint}/readyz`, ca);
  if (!res) return [];
  if (res.ok) return undefined;
  return [...res.body.matchAll(/^\[-\]([\w./-]+) failed/gm)].map((m) => m[1]);
}

function readCa(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(pkiPaths(dataDir, 'ca').certPath, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs `ksim status`; exits 1 when no cluster state is found. */
export async function statusMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('status', argv, FLAGS);
  if (!flags) return;
  const dataDir = path.resolve(flags['data-dir']);
  const state = readClusterState(dataDir);
  if (!state) {
    process.stderr.write(`ksim status: no cluster has been started in ${dataDir}\n`);
    process.exit(1);
  }
  const ca = readCa(dataDir);
  const rows = [['COMPONENT', 'PID', 'STATE', 'ENDPOINT']];
  for (const c of state.components) {
    const running = c.state === 'running' && alive(c.pid);
    let health = running ? 'running' : c.state === 'running' ? 'dead' : `exited(${c.exitCode ?? c.signal ?? '?'})`;
    if (running && c.endpoint) {
      const ok = (await probe(`${c.endpoint}/healthz`, ca))?.ok ?? false;
      if (!ok) health = 'unhealthy';
      else if (c.name === 'apiserver') {
        const failing = await failingReadyChecks(c.endpoint, ca);
        if (failing) health = `not-ready(${failing.join(',') || '?'})`;
      }
    }
    rows.push([c.name, String(c.pid), health, c.endpoint]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    process.stdout.write(
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('   ')
        .trimEnd() + '\n',
    );
  if (state.insecure) process.stdout.write('INSECURE: plain HTTP, no authentication\n');
  else if (state.server.startsWith('https:')) {
    const line = tlsLine(dataDir);
    if (line) process.stdout.write(`${line}\n`);
  }
}

/** When the serving certificate and the CA expire, as `kubeadm certs check-expiration` would tell. */
function tlsLine(dataDir: string): string | undefined {
  try {
    const serving = describeCertificate(fs.readFileSync(pkiPaths(dataDir, 'apiserver').certPath, 'utf8'));
    const ca = describeCertificate(fs.readFileSync(pkiPaths(dataDir, 'ca').certPath, 'utf8'));
    const day = (d: Date) => d.toISOString().slice(0, 10);
    return `TLS: serving certificate valid until ${day(serving.notAfter)}, CA "${ca.commonName}" (${pkiPaths(dataDir, 'ca').certPath}) until ${day(ca.notAfter)}`;
  } catch {
    return undefined;
  }
}
