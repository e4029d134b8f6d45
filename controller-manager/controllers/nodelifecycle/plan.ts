// The node lifecycle controller's decisions as pure functions: when a node
// whose kubelet went quiet becomes Ready=Unknown, which taints a node's
// readiness calls for, and when a Pod's NoExecute tolerations run out.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** kube-controller-manager's --node-monitor-grace-period. */
export const NODE_MONITOR_GRACE_MS = 50_000;

export const UNREACHABLE = 'node.kubernetes.io/unreachable';
export const NOT_READY = 'node.kubernetes.io/not-ready';

const CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** The node's Ready condition status: 'True', 'False' or 'Unknown'. */
export function readyStatus(node: Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

/** The last heartbeat we know of: the Lease's renewTime, else the Ready condition's heartbeat. */
export function lastHeartbeat(node: Node, lease: Lease | undefined): number {
  const renew = Date.parse(lease?.spec?.renewTime ?? '');
  if (Number.isFinite(renew)) return renew;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return Date.parse(ready?.lastHeartbeatTime ?? node.metadata?.creationTimestamp ?? '') || 0;
}

/**
 * The conditions to write when the kubelet has been silent for longer than
 * the grace period (all four become Unknown, "Kubelet stopped posting node
 * status."), or undefined when nothing needs to change.
 */
export function staleConditions(node: Node, lease: Lease | undefined, now: number, graceMs: number): NodeCondition[] | undefined {
  if (now - lastHeartbeat(node, lease) <= graceMs) return undefined;
  const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const existing: NodeCondition[] = node.status?.conditions ?? [];
  let changed = false;
  const out = CONDITIONS.map((type): NodeCondition => {
    const c = existing.find((x) => x.type === type);
    if (c?.status === 'Unknown') return c;
    changed = true;
    return {
      type,
      status: 'Unknown',
      lastHeartbeatTime: c?.lastHeartbeatTime ?? stamp,
      lastTransitionTime: stamp,
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    };
  });
  const others = existing.filter((c) => !CONDITIONS.includes(c.type));
  return changed ? [...out, ...others] : undefined;
}

/** The taints a node should carry for its readiness (kube's NoSchedule and NoExecute pairs). */
export function wantedTaints(node: Node): Taint[] {
  const status = readyStatus(node);
  if (status === 'Unknown') return [UNREACHABLE, UNREACHABLE].map((key, i) => ({ key, effect: i ? 'NoExecute' : 'NoSchedule' }));
  if (status === 'False') return [NOT_READY, NOT_READY].map((key, i) => ({ key, effect: i ? 'NoExecute' : 'NoSchedule' }));
  return [];
}

/** The node's taints with the readiness taints set to `wanted` (keeping timeAdded of those already there). */
export function reconcileTaints(node: Node, now: number): Taint[] | undefined {
  const current: Taint[] = node.spec?.taints ?? [];
  const managed = (t: Taint) => t.key === UNREACHABLE || t.key === NOT_READY;
  const wanted = wantedTaints(node);
  const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const kept = current.filter((t) => !managed(t));
  const next: Taint[] = [
    ...kept,
    ...wanted.map(
      (w) =>
        current.find((t) => t.key === w.key && t.effect === w.effect) ?? {
          key: w.key,
          effect: w.effect,
          ...(w.effect === 'NoExecute' ? { timeAdded: stamp } : {}),
        },
    ),
  ];
  const same = next.length === current.length && next.every((t) => current.includes(t));
  return same ? undefined : next;
}

function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

/**
 * When a Pod on a node with NoExecute taints must go: 0 for at once, a
 * number of ms from now, or undefined when it tolerates them forever.
 * Toleration seconds count from the taint's timeAdded and divide by `speed`.
 */
export function evictionDelay(pod: Pod, taints: Taint[], now: number, speed: number): number | undefined {
  let soonest: number | undefined;
  for (const taint of taints.filter((t) => t.effect === 'NoExecute')) {
    const matching = (pod.spec?.tolerations ?? []).filter((t) => tolerates(t, taint));
    if (matching.length === 0) return 0;
    const seconds = matching.map((t) => t.tolerationSeconds).filter((s): s is number => typeof s === 'number');
    if (seconds.length < matching.length) continue; // a toleration without a limit: forever
    const added = Date.parse(taint.timeAdded ?? '') || now;
    const due = added + (Math.max(0, Math.min(...seconds)) * 1000) / speed - now;
    soonest = soonest === undefined ? due : Math.min(soonest, due);
  }
  return soonest === undefined ? undefined : Math.max(0, soonest);
}
