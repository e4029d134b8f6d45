// startup: `ksim up --nodes 3` on a fresh data dir until three Nodes are
// Ready, the control-plane node with them (issue 14's bound: under 3 s with the certificates made at first
// start), three times, then once more on the same data dir (a restart reads
// the PKI and keys it made). Readiness is polled every 50 ms with a GET of
// /api/v1/nodes as the admin; the CPU each process used by then is read
// from /proc, since on a shared two-core machine the CPU is steadier than
// the wall clock.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  api,
  freePort,
  ksimCli,
  removeTempDir,
  spawnTracked,
  tempDir,
  tlsMaterialOf,
  type ApiClient,
  type TrackedProcess,
} from '../test/helpers/index.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { cpuSecondsOf } from './proc.ts';
import type { BenchContext, Benchmark, Target } from './report.ts';

const NODES = 3;
/** The Nodes `ksim up --nodes 3` makes: the three workers and the control-plane node. */
const ALL_NODES = NODES + 1;
const STARTUP_TARGET: Target = { op: '<', value: 3 };

interface NodeList {
  items?: { status?: { conditions?: { type: string; status: string }[] } }[];
}

/** The pids of `pid`'s children (the components `ksim up` started). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** The component a process of `ksim up` runs, from its command line. */
export function componentOf(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf(ksimCli) + 1] ?? '?';
}

/** Polls until every Node `ksim up` makes is Ready; resolves with an admin client of the cluster (the caller closes it). */
export async function waitAllNodesReady(up: TrackedProcess, dataDir: string, deadline: number): Promise<ApiClient> {
  let client: ApiClient | undefined;
  for (;;) {
    if (performance.now() > deadline) {
      client?.close();
      throw new Error(`${ALL_NODES} nodes not Ready in time`);
    }
    if (!up.running()) {
      client?.close();
      throw new Error('ksim up exited');
    }
    try {
      if (!client) {
        const config = loadKubeconfig(join(dataDir, 'kubeconfig'));
        client = api({ url: config.server, tls: tlsMaterialOf(config) });
      }
      const res = await client.request<NodeList>('GET', '/api/v1/nodes');
      const ready = (res.body.items ?? []).filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      if (ready.length >= ALL_NODES) return client;
    } catch {
      // No kubeconfig yet (the apiserver writes it once it serves), or not answering yet.
      client?.close();
      client = undefined;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `ksim up --nodes 3` on `dataDir` (with `args` besides), in its own process group. */
export async function startKsimUp(dataDir: string, args: string[] = []): Promise<TrackedProcess> {
  const port = await freePort();
  return spawnTracked(process.execPath, [ksimCli, 'up', '--data-dir', dataDir, '--port', String(port), '--nodes', String(NODES), ...args], {
    stdio: 'ignore',
  });
}

/** Starts `ksim up` on `dataDir` and resolves with the seconds until all its Nodes are Ready, and each process's CPU seconds then. */
async function timeToReady(dataDir: string): Promise<{ seconds: number; cpu: Record<string, number> }> {
  const started = performance.now();
  const up = await startKsimUp(dataDir);
  try {
    const client = await waitAllNodesReady(up, dataDir, started + 60_000);
    client.close();
    const seconds = (performance.now() - started) / 1000;
    const cpu: Record<string, number> = { 'ksim up': cpuSecondsOf(up.pid) };
    for (const pid of childrenOf(up.pid)) cpu[componentOf(pid)] = cpuSecondsOf(pid);
    return { seconds, cpu };
  } finally {
    await up.stop();
  }
}

export const startup: Benchmark = {
  name: 'startup',
  description: `ksim up --nodes ${NODES} on a fresh data dir (three times) and once restarted, until every Node is Ready`,
  async run(ctx: BenchContext) {
    const runs = ctx.size(3, 1);
    let last = '';
    for (let i = 1; i <= runs; i++) {
      const dir = await tempDir('bench-startup');
      try {
        const { seconds, cpu } = await timeToReady(dir);
        ctx.record(`fresh data dir, run ${i}: ${NODES} workers and the control-plane node Ready`, seconds, 's', { target: STARTUP_TARGET });
        const total = Object.values(cpu).reduce((a, b) => a + b, 0);
        ctx.record(`fresh data dir, run ${i}: CPU until then`, total, 's', {
          note: Object.entries(cpu)
            .map(([k, v]) => `${k} ${v.toFixed(2)}`)
            .join(', '),
        });
        if (i === runs) {
          const again = await timeToReady(dir);
          ctx.record(`restart on the same data dir: every node Ready`, again.seconds, 's', { target: STARTUP_TARGET });
        }
        last = dir;
      } finally {
        await removeTempDir(dir);
      }
    }
    ctx.progress(`done (${last})`);
  },
};
