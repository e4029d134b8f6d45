// The rest of a control plane around a benchmark's apiserver: the
// controller-manager, the scheduler and one kubelet-sim with N simulated
// nodes, each its own process under its own identity as `ksim up` starts
// them (no leader election, logs at warn), and the wait until the nodes are
// Ready. Shared by the benchmarks that need a whole cluster.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import {
  ksimNodeArgs,
  removeTempDir,
  spawnTracked,
  tempDir,
  type Apiserver,
  type Identity,
  type TrackedProcess,
} from '../test/helpers/index.ts';
import { componentNodeFlags } from '../cli/up.ts';
import { withApiserver } from './server.ts';

/** kubelet-sim's simulated start-up delays: all zero, or its kube-like defaults. */
export type NodeTimings = 'zero' | 'default';

const PROFILES: Record<NodeTimings, string> = {
  zero: 'timings: {sandboxMs: 0, pullMs: 0, createMs: 0, startMs: 0}\n',
  default: '{}\n',
};

/** The component processes, by name. */
export type ComponentProcs = Record<'controller-manager' | 'scheduler' | 'kubelet-sim', TrackedProcess>;

/** Starts the components against `server`, kubelet-sim with `nodes` nodes; `dir` holds kubelet-sim's profile. */
export async function startComponents(
  server: Apiserver,
  dir: string,
  nodes: number,
  timings: NodeTimings = 'zero',
  extraEnv: Record<string, string> = {},
): Promise<ComponentProcs> {
  const profile = join(dir, 'profile.yaml');
  await writeFile(profile, PROFILES[timings]);
  const env = { ...process.env, KSIM_LOG_LEVEL: 'warn', ...extraEnv };
  const start = (identity: Identity, args: string[]) =>
    spawnTracked(
      process.execPath,
      [...componentNodeFlags(args[0]), ...ksimNodeArgs(), ...args, '--kubeconfig', server.kubeconfigOf(identity), '--port', '0'],
      { env, stdio: 'ignore' },
    );
  return {
    'controller-manager': await start('controllerManager', ['controller-manager', '--leader-elect=false']),
    scheduler: await start('scheduler', ['scheduler', '--leader-elect=false']),
    'kubelet-sim': await start('kubeletSim', ['kubelet-sim', '--nodes', String(nodes), '--profile', profile]),
  };
}

/** Stops every component (each waits for its process to exit). */
export async function stopComponents(procs: ComponentProcs): Promise<void> {
  for (const p of Object.values(procs)) await p.stop();
}

const nodesRt = findResource('', 'v1', 'nodes')!;

/** Resolves once at least `count` nodes are Ready. */
export async function waitNodesReady(client: KubeClient, count: number): Promise<void> {
  for (;;) {
    const list = await client.list<Node>(nodesRt);
    if (list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= count) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A whole cluster for one benchmark: an apiserver, the components with
 * `nodes` nodes, an admin client once they are Ready; `run` gets the client
 * and the controller-manager's pid (for its CPU and memory), and everything
 * is stopped and removed afterwards, whatever `run` did. `opts` adds
 * apiserver flags and environment variables for the components.
 */
export async function withCluster(
  name: string,
  nodes: number,
  run: (client: KubeClient, controllerManagerPid: number, server: Apiserver) => Promise<void>,
  timings: NodeTimings = 'zero',
  opts: { apiserverArgs?: string[]; env?: Record<string, string> } = {},
): Promise<void> {
  await withApiserver(opts.apiserverArgs ?? [], async (server) => {
    const dir = await tempDir(name);
    const procs = await startComponents(server, dir, nodes, timings, opts.env);
    const client = new KubeClient(server.clientConfig);
    try {
      await waitNodesReady(client, nodes);
      await run(client, procs['controller-manager'].pid, server);
    } finally {
      client.close();
      await stopComponents(procs);
      await removeTempDir(dir);
    }
  });
}
