// `ksim status --data-dir DIR`: one line per component with its pid, state
// (checked now: a running component that does not answer /healthz is
// unhealthy; the apiserver's row says when it is up but not ready, and which
// of its /readyz checks fail), uptime, restarts, leader status and endpoint,
// then the faults in effect. It asks the supervisor's control endpoint; when
// that does not answer (the supervisor is gone) it reads DIR/cluster.json.
// An HTTPS endpoint is checked against the cluster CA (DIR/pki/ca.crt), as
// kubectl would; an apiserver on plain HTTP is called out as INSECURE.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { ActiveFault, ComponentStatus, SupervisorStatus } from '../shared/chaos/protocol.ts';
import { describeCertificate } from '../shared/pki/certificates.ts';
import { pkiPaths } from '../shared/pki/paths.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { readClusterState } from './cluster-state.ts';
import { controlRequest, ControlError } from './control/client.ts';
import { formatColumns } from '../shared/cli/columns.ts';

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

/** A duration as kubectl's AGE column writes it: 45s, 3m12s, 5h3m, 2d4h. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''}`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? `${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600) ? `${Math.floor((s % 86400) / 3600)}h` : ''}`;
}

/** What the supervisor says, or (when it is gone) what cluster.json last recorded, with each pid checked. */
async function currentStatus(dataDir: string): Promise<{ status: SupervisorStatus; live: boolean; why?: string } | undefined> {
  try {
    return { status: await controlRequest<SupervisorStatus>(dataDir, 'GET', '/status', undefined, { timeoutMs: 5000 }), live: true };
  } catch (err) {
    if (!(err instanceof ControlError)) throw err;
    const state = readClusterState(dataDir);
    if (!state) return undefined;
    const components = state.components.map((c): ComponentStatus => ({
      name: c.name,
      pid: c.pid,
      // A process recorded as running that is gone died with (or after) its supervisor.
      state: c.state === 'running' || c.state === 'paused' || c.state === 'starting' ? (alive(c.pid) ? c.state : 'exited') : c.state,
      ...(c.startedAt ? { startedAt: c.startedAt } : {}),
      restarts: c.restarts ?? 0,
      endpoint: c.endpoint,
      ...(c.exitCode !== undefined ? { exitCode: c.exitCode } : {}),
      ...(c.signal !== undefined ? { signal: c.signal } : {}),
    }));
    return {
      status: { supervisorPid: state.supervisorPid, server: state.server, dataDir, components, faults: [] },
      live: false,
      why: err.message,
    };
  }
}

async function stateCell(c: ComponentStatus, ca: string | undefined, recordedRunning: boolean): Promise<string> {
  if (c.state === 'exited') return recordedRunning ? 'dead' : `exited(${c.exitCode ?? c.signal ?? '?'})`;
  if (c.state !== 'running' || !c.endpoint) return c.state;
  const ok = (await probe(`${c.endpoint}/healthz`, ca))?.ok ?? false;
  if (!ok) return 'unhealthy';
  if (c.name === 'apiserver') {
    const failing = await failingReadyChecks(c.endpoint, ca);
    if (failing) return `not-ready(${failing.join(',') || '?'})`;
  }
  return 'running';
}

function printTable(rows: string[][]): void {
  process.stdout.write(formatColumns(rows));
}

function faultRow(f: ActiveFault, now: number): string[] {
  const r = f.request;
  return [
    f.id,
    r.action,
    r.target ?? (r.pods ? 'pods' : r.action === 'apiserver' ? 'apiserver' : '-'),
    shortDuration(now - Date.parse(f.injectedAt)),
    f.recoversAt ? `in ${shortDuration(Date.parse(f.recoversAt) - now)}` : 'on recover',
    f.message,
  ];
}

/** Runs `ksim status`; exits 1 when no cluster state is found. */
export async function statusMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('status', argv, FLAGS);
  if (!flags) return;
  const dataDir = path.resolve(flags['data-dir']);
  const current = await currentStatus(dataDir);
  if (!current) {
    process.stderr.write(`ksim status: no cluster has been started in ${dataDir}\n`);
    process.exit(1);
  }
  const { status, live } = current;
  const recorded = live ? undefined : readClusterState(dataDir);
  if (!live) process.stderr.write(`ksim status: ${current.why}; showing the state recorded in ${path.join(dataDir, 'cluster.json')}\n`);
  const ca = readCa(dataDir);
  const now = Date.now();
  const rows = [['COMPONENT', 'PID', 'STATE', 'UPTIME', 'RESTARTS', 'LEADER', 'ENDPOINT']];
  const cells = await Promise.all(
    status.components.map((c) => stateCell(c, ca, !live && recorded?.components.find((r) => r.name === c.name)?.state === 'running')),
  );
  status.components.forEach((c, i) => {
    const up = c.startedAt && (c.state === 'running' || c.state === 'paused') ? shortDuration(now - Date.parse(c.startedAt)) : '-';
    const leader = c.leader === undefined ? '-' : c.leader ? 'leader' : 'standby';
    const skew = c.clockSkewMs ? ` (clock ${c.clockSkewMs > 0 ? '+' : ''}${c.clockSkewMs}ms)` : '';
    rows.push([c.name, String(c.pid), cells[i] + skew, up, String(c.restarts), leader, c.endpoint]);
  });
  printTable(rows);
  if (live) {
    if (status.faults.length === 0) process.stdout.write('Faults: none\n');
    else {
      process.stdout.write('Faults:\n');
      printTable([['ID', 'ACTION', 'TARGET', 'SINCE', 'RECOVERS', 'WHAT'], ...status.faults.map((f) => faultRow(f, now))]);
    }
  }
  // ksim's ingress-nginx says in kubelet-sim's log where it listens on the host (its --ingress-port).
  const kubeletSim = status.components.find((c) => c.name === 'kubelet-sim' && c.state === 'running' && alive(c.pid));
  const logFile = path.join(dataDir, 'logs', 'kubelet-sim.log');
  const log = kubeletSim && fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
  const said = [...log.matchAll(/ingress-nginx \(class nginx\) at (\S+) from the host, (\S+) from Pods/g)].at(-1);
  if (said) process.stdout.write(`Ingress: ${said[1]} (routes by the Host header; ${said[2]} from Pods)\n`);
  if (status.server.startsWith('http:')) process.stdout.write('INSECURE: plain HTTP, no authentication\n');
  else if (status.server.startsWith('https:')) {
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
