// chaos-recovery: issue 17's "from kill -9 of the API server to every
// component reconnected and a pending scale converged" (target under 2 s).
// `ksim up --nodes 3`, a Deployment of 3 pause Pods (one per worker, so each
// node has the image), then SIGKILL of the apiserver pid cluster.json names,
// and at once its start again with the very command line the killed process
// ran (BENCH_CHAOS_START=supervisor: through `ksim chaos start apiserver`,
// which adds that command's own process start). As soon as /readyz answers, the Deployment is scaled to 6.
// Figures, each from the kill: the apiserver serving again; each component's
// watches all open again (from the audit log: a watch is open once its
// ResponseStarted event is written; a component has reconnected when every
// watch it had open before the kill has been started again); the scale
// converged (6 Pods Running and the Deployment's readyReplicas 6). kubelet-sim
// runs at --speed 1, so a new Pod's sandbox, create and start take 700 ms of
// simulated time of their own (no pull: the image is on every node).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  api,
  ksimCli,
  removeTempDir,
  spawnTracked,
  tempDir,
  tlsMaterialOf,
  type ApiClient,
  type TrackedProcess,
} from '../test/helpers/index.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { startKsimUp, waitAllNodesReady } from './startup.ts';
import type { BenchContext, Benchmark, Target } from './report.ts';

const NAME = 'chaos-bench';
const BEFORE = 3;
const AFTER = 6;
const RECOVERY_TARGET: Target = { op: '<', value: 2 };
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
/** BENCH_CHAOS_START=supervisor: restart through `ksim chaos start apiserver` (its own process start counted too). */
const VIA_SUPERVISOR = process.env.BENCH_CHAOS_START === 'supervisor';

/** The component a client identity belongs to (the audit log's user.username). */
function componentOfUser(user: string): string | undefined {
  if (user === 'system:kube-controller-manager') return 'controller-manager';
  if (user === 'system:kube-scheduler') return 'scheduler';
  if (user.includes('kubelet-sim') || user.startsWith('system:node:')) return 'kubelet-sim';
  return undefined;
}

interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  stageTimestamp: string;
}

/** The audit log's events (a line cut short by the kill is skipped). */
function auditEvents(dataDir: string): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (const line of readFileSync(join(dataDir, 'audit.log'), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as AuditEvent);
    } catch {
      // Half a line.
    }
  }
  return out;
}

/** What makes two watches the same one resumed: who, the path, the selectors (not the resourceVersion or timeout). */
function watchKey(e: AuditEvent): string {
  const url = new URL(e.requestURI, 'https://x');
  return `${e.user.username} ${url.pathname} ${url.searchParams.get('labelSelector') ?? ''} ${url.searchParams.get('fieldSelector') ?? ''}`;
}

/** The watches open at `at` (epoch ms), by key, as counts: started and not completed by then. */
function openWatches(events: AuditEvent[], at: number): Map<string, number> {
  const started = new Map<string, AuditEvent>();
  for (const e of events) {
    if (e.verb !== 'watch' || Date.parse(e.stageTimestamp) > at) continue;
    if (e.stage === 'ResponseStarted') started.set(e.auditID, e);
    else if (e.stage === 'ResponseComplete') started.delete(e.auditID);
  }
  const counts = new Map<string, number>();
  for (const e of started.values()) if (componentOfUser(e.user.username)) counts.set(watchKey(e), (counts.get(watchKey(e)) ?? 0) + 1);
  return counts;
}

/**
 * Per component, the epoch ms at which every watch it had open before the
 * kill was started again (undefined: not all yet).
 */
function reconnectedAt(events: AuditEvent[], before: Map<string, number>, killedAt: number): Map<string, number | undefined> {
  const startsAfter = new Map<string, number[]>();
  for (const e of events) {
    if (e.verb !== 'watch' || e.stage !== 'ResponseStarted') continue;
    const t = Date.parse(e.stageTimestamp);
    if (t <= killedAt) continue;
    const k = watchKey(e);
    startsAfter.set(k, [...(startsAfter.get(k) ?? []), t]);
  }
  const out = new Map<string, number | undefined>();
  for (const [key, count] of before) {
    const component = componentOfUser(key.split(' ')[0])!;
    const times = (startsAfter.get(key) ?? []).sort((a, b) => a - b);
    const t = times.length >= count ? times[count - 1] : undefined;
    const prev = out.has(component) ? out.get(component) : 0;
    out.set(component, t === undefined || prev === undefined ? undefined : Math.max(prev, t));
  }
  return out;
}

/** The argv and working directory process `pid` runs with. */
function commandOf(pid: number): { argv: string[]; cwd: string } {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  if (argv.at(-1) === '') argv.pop();
  return { argv, cwd: readlinkSync(`/proc/${pid}/cwd`) };
}

/** `ksim chaos start apiserver` through the supervisor; false when it cannot (no control endpoint yet, or it refused). */
function startThroughSupervisor(dataDir: string): Promise<boolean> {
  if (!existsSync(join(dataDir, 'control.json'))) return Promise.resolve(false);
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [ksimCli, 'chaos', 'start', 'apiserver', '--data-dir', dataDir], { stdio: 'ignore' });
    p.once('error', () => resolve(false));
    p.once('exit', (code) => resolve(code === 0));
  });
}

/** Resolves once `check` is true, polling every `everyMs`; rejects past `deadline`. */
async function pollUntil(what: string, deadline: number, everyMs: number, check: () => Promise<boolean> | boolean): Promise<number> {
  for (;;) {
    try {
      if (await check()) return performance.now();
    } catch {
      // Not answering yet.
    }
    if (performance.now() > deadline) throw new Error(`${what}: not within the deadline`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

interface PodList {
  items?: { metadata?: { deletionTimestamp?: string }; status?: { phase?: string } }[];
}

/** Running Pods of the Deployment and its readyReplicas. */
async function converged(client: ApiClient, replicas: number): Promise<boolean> {
  const pods = await client.request<PodList>('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${NAME}`);
  const running = (pods.body.items ?? []).filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp).length;
  if (running < replicas) return false;
  const d = await client.request<{ status?: { readyReplicas?: number } }>('GET', `${DEPLOYMENTS}/${NAME}`);
  return d.body.status?.readyReplicas === replicas;
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: NAME },
  spec: {
    replicas: BEFORE,
    selector: { matchLabels: { app: NAME } },
    template: {
      metadata: { labels: { app: NAME } },
      spec: {
        // One per worker first, so that every worker has pulled the image before the kill.
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'kubernetes.io/hostname',
            whenUnsatisfiable: 'DoNotSchedule',
            // The control-plane node's NoSchedule taint keeps it out of the domains (kube's default, Ignore, counts it).
            nodeTaintsPolicy: 'Honor',
            labelSelector: { matchLabels: { app: NAME } },
          },
        ],
        containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', imagePullPolicy: 'IfNotPresent' }],
      },
    },
  },
};

interface Recovery {
  serving: number;
  converged: number;
  components: Map<string, number | undefined>;
  how: string;
}

/** One kill and recovery on a fresh cluster. */
export async function killAndRecover(dataDir: string): Promise<Recovery> {
  const up = await startKsimUp(dataDir);
  let restarted: TrackedProcess | undefined;
  let client: ApiClient | undefined;
  try {
    client = await waitAllNodesReady(up, dataDir, performance.now() + 60_000);
    const created = await client.request('POST', DEPLOYMENTS, deployment);
    if (created.status !== 201) throw new Error(`creating the Deployment: ${created.status} ${created.text}`);
    await pollUntil(`${BEFORE} Pods Running`, performance.now() + 30_000, 100, () => converged(client!, BEFORE));
    // Let every component settle into its watches.
    await new Promise((r) => setTimeout(r, 1000));
    client.close();
    client = undefined;

    const state = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as { components: { name: string; pid: number }[] };
    const pid = state.components.find((c) => c.name === 'apiserver')!.pid;
    const { argv, cwd } = commandOf(pid);
    const killedAt = Date.now();
    const t0 = performance.now();
    process.kill(pid, 'SIGKILL');
    const before = openWatches(auditEvents(dataDir), killedAt);
    // The old process must be gone before another opens its data dir.
    await pollUntil(
      'the killed apiserver gone',
      t0 + 5000,
      5,
      () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z'),
    );
    let how = 'ksim chaos start apiserver';
    if (!(VIA_SUPERVISOR && (await startThroughSupervisor(dataDir)))) {
      how = 'the same command line, started by the benchmark';
      const log = openSync(join(dataDir, 'logs', 'apiserver.log'), 'a');
      restarted = await spawnTracked(argv[0], argv.slice(1), { cwd, stdio: ['ignore', log, log] });
      closeSync(log);
    }
    const config = loadKubeconfig(join(dataDir, 'kubeconfig'));
    client = api({ url: config.server, tls: tlsMaterialOf(config) });
    const servingAt = await pollUntil('the apiserver serving again', t0 + 30_000, 10, async () => {
      const res = await client!.request('GET', '/readyz');
      return res.status === 200;
    });
    const scaled = await client.request(
      'PATCH',
      `${DEPLOYMENTS}/${NAME}/scale`,
      { spec: { replicas: AFTER } },
      { 'content-type': 'application/merge-patch+json' },
    );
    if (scaled.status !== 200) throw new Error(`scaling: ${scaled.status} ${scaled.text}`);
    const convergedAt = await pollUntil(`${AFTER} Pods Running`, t0 + 30_000, 20, () => converged(client!, AFTER));
    // The audit log is written asynchronously: wait until every component's watches show up in it.
    let components = new Map<string, number | undefined>();
    await pollUntil('every watch started again', performance.now() + 20_000, 100, () => {
      components = reconnectedAt(auditEvents(dataDir), before, killedAt);
      return components.size > 0 && [...components.values()].every((t) => t !== undefined);
    }).catch(() => undefined);
    const relative = new Map([...components].map(([k, t]) => [k, t === undefined ? undefined : (t - killedAt) / 1000]));
    return { serving: (servingAt - t0) / 1000, converged: (convergedAt - t0) / 1000, components: relative, how };
  } finally {
    client?.close();
    await up.stop();
    await restarted?.stop();
  }
}

export const chaosRecovery: Benchmark = {
  name: 'chaos-recovery',
  description: `kill -9 of the apiserver of ksim up --nodes 3 to every component's watches back and a scale ${BEFORE} -> ${AFTER} converged`,
  async run(ctx: BenchContext) {
    const runs = ctx.size(3, 1);
    for (let i = 1; i <= runs; i++) {
      const dir = await tempDir('bench-chaos-recovery');
      try {
        const r = await killAndRecover(dir);
        ctx.record(`run ${i}: kill -9 -> apiserver serving again`, r.serving, 's', { note: `restarted with ${r.how}` });
        for (const [component, t] of [...r.components].sort()) {
          ctx.record(`run ${i}: kill -9 -> ${component}'s watches all open again`, t ?? 'not within 20 s', t === undefined ? '' : 's');
        }
        ctx.record(`run ${i}: kill -9 -> scale ${BEFORE} -> ${AFTER} converged (${AFTER} Pods Running)`, r.converged, 's', {
          target: RECOVERY_TARGET,
          note: 'includes kubelet-sim simulating 0.7 s of sandbox, create and start per new Pod (--speed 1)',
        });
      } finally {
        await removeTempDir(dir);
      }
    }
  },
};
