// Turns a ChaosRequest's target into what it names: a supervised component
// (leader/controller-manager is whichever replica holds the Lease now), or
// one simulated node (node/NAME).
import { kindOf } from './components.ts';
import type { SupervisedChild } from './child.ts';
import { adminClient, type FaultContext } from './context.ts';
import { leaderStates, leaseHolder, LEASE_OF } from './leaders.ts';
import { ProcessOpError } from './supervisor.ts';
import { BadRequest } from './validate.ts';

export type Target = { node: string } | { child: SupervisedChild; viaLeader: boolean };

/** The node of node/NAME, checked. */
export function nodeOf(target: string | undefined): string {
  const node = target?.startsWith('node/') ? target.slice('node/'.length) : '';
  if (!node) throw new BadRequest(`target: "${target ?? ''}" is not node/NAME`);
  return node;
}

/** What `target` names now. */
export async function resolveTarget(ctx: FaultContext, target: string): Promise<Target> {
  if (target.startsWith('node/')) return { node: nodeOf(target) };
  if (target.startsWith('leader/')) return { child: await leaderOf(ctx, target.slice('leader/'.length)), viaLeader: true };
  const child = ctx.supervisor.find(target);
  if (!child)
    throw new BadRequest(
      `target: no component "${target}" in this cluster (it runs ${ctx.supervisor.children.map((c) => c.name).join(', ')})`,
    );
  return { child, viaLeader: false };
}

/** The replica of `kind` that holds its Lease. */
async function leaderOf(ctx: FaultContext, kind: string): Promise<SupervisedChild> {
  if (!LEASE_OF[kind]) throw new BadRequest(`target: leader/${kind}: only controller-manager and scheduler elect a leader`);
  const replicas = ctx.supervisor.children.filter((c) => kindOf(c.name) === kind);
  if (replicas.length === 0) throw new BadRequest(`target: this cluster runs no ${kind}`);
  const states = await leaderStates(replicas, ctx.client, 1500);
  const leader = replicas.find((c) => states.get(c.name) === true);
  if (leader) return leader;
  const running = replicas.filter((c) => c.running);
  if (running.length === 1 && replicas.length === 1) return running[0];
  const holder = await leaseHolder(adminClient(ctx), kind);
  throw new ProcessOpError(
    `no running ${kind} replica holds the kube-system/${LEASE_OF[kind]} Lease now (holder: ${holder === undefined ? 'unknown' : holder || 'none'})`,
  );
}
