// The node lifecycle controller's decisions as pure functions: when a node
// whose kubelet went quiet becomes Ready=Unknown (judged, as kube does, by
// when this controller last saw a heartbeat change on its own monotonic
// clock, not by the node's timestamps), which taints a node's
// readiness and conditions call for (kube's TaintNodesByCondition: the
// pressure and network-unavailable NoSchedule taints while the condition is
// True); and the taint eviction controller's: when a Pod's
// NoExecute tolerations run out (kube's processPodOnNode).
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition, Pod, PodCondition, Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** kube-controller-manager's --node-monitor-grace-period. */
export const NODE_MONITOR_GRACE_MS = 50_000;

export const UNREACHABLE = 'node.kubernetes.io/unreachable';
export const NOT_READY = 'node.kubernetes.io/not-ready';

const CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** nodeConditionToTaintKeyStatusMap beyond Ready: the NoSchedule taint each condition calls for while it is True. */
export const CONDITION_TAINTS: Record<string, string> = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
  NetworkUnavailable: 'node.kubernetes.io/network-unavailable',
};
const MANAGED = new Set([UNREACHABLE, NOT_READY, ...Object.values(CONDITION_TAINTS)]);

/** The node's Ready condition status: 'True', 'False' or 'Unknown'. */
export function readyStatus(node: Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

/**
 * What the controller keeps per node between looks (kube's nodeHealthData):
 * not the node's own timestamps but when this controller last saw them move.
 */
export interface NodeHealth {
  /** When this controller last saw a heartbeat, on its own monotonic clock (probeTimestamp). */
  probeTimestamp: number;
  /** The Ready condition's lastHeartbeatTime as last seen (undefined: no Ready condition). */
  readyHeartbeat: string | undefined;
  /** The Lease's renewTime (ms) last counted as a heartbeat (undefined: no Lease seen yet). */
  renewTime: number | undefined;
}

function readyHeartbeatOf(node: Node): string | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return ready ? (ready.lastHeartbeatTime ?? '') : undefined;
}

/**
 * kube's tryUpdateNodeHealth bookkeeping: the probe time moves to `now` (this
 * controller's monotonic time) when the node is first seen, when its Ready
 * condition appears, goes or gets a new lastHeartbeatTime, and when its Lease
 * has a later renewTime than the one last counted. The node's timestamps are
 * only compared with each other, never with `now`, so neither a skewed node
 * nor a skewed controller makes a heartbeat look old.
 */
export function observeHealth(saved: NodeHealth | undefined, node: Node, lease: Lease | undefined, now: number): NodeHealth {
  const readyHeartbeat = readyHeartbeatOf(node);
  let next: NodeHealth;
  if (!saved || saved.readyHeartbeat !== readyHeartbeat) next = { probeTimestamp: now, readyHeartbeat, renewTime: saved?.renewTime };
  else next = saved;
  const renew = Date.parse(lease?.spec?.renewTime ?? '');
  // Only a later renewTime counts (kube's savedLease.RenewTime.Before(observed)).
  if (Number.isFinite(renew) && (next.renewTime === undefined || next.renewTime < renew)) {
    next = { ...next, probeTimestamp: now, renewTime: renew };
  }
  return next;
}

/** No heartbeat seen for longer than the grace period: kube's nc.now().After(probeTimestamp + gracePeriod). */
export function isStale(health: NodeHealth, now: number, graceMs: number): boolean {
  return now - health.probeTimestamp > graceMs;
}

/** The controller's monotonic time at which a node last seen at `health` goes stale (requeue then). */
export function staleAt(health: NodeHealth, graceMs: number): number {
  return health.probeTimestamp + graceMs;
}

/**
 * The conditions to write for a node found stale: all four become Unknown,
 * "Kubelet stopped posting node status.", stamped with `wallNow` (the time
 * this controller writes, its own wall clock, skewed or not); undefined when
 * they already are.
 */
export function unknownConditions(node: Node, wallNow: number): NodeCondition[] | undefined {
  const stamp = new Date(wallNow).toISOString().replace(/\.\d{3}Z$/, 'Z');
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

/** One look at a node: the health to keep, and the conditions to write with the health to keep once they are written. */
export interface HealthPlan {
  health: NodeHealth;
  /** undefined: nothing to write. */
  write: { conditions: NodeCondition[]; health: NodeHealth } | undefined;
}

/**
 * One look at a node as kube's tryUpdateNodeHealth takes it: `now` is the
 * controller's monotonic time (staleness), `wallNow` its wall time (what it
 * writes). Once the Unknown conditions are written, the written Ready
 * heartbeat is the one remembered, so the controller's own update coming
 * back through the watch is not taken for a heartbeat.
 */
export function planNodeHealth(
  saved: NodeHealth | undefined,
  node: Node,
  lease: Lease | undefined,
  now: number,
  wallNow: number,
  graceMs: number,
): HealthPlan {
  const health = observeHealth(saved, node, lease, now);
  const conditions = isStale(health, now, graceMs) ? unknownConditions(node, wallNow) : undefined;
  if (!conditions) return { health, write: undefined };
  return { health, write: { conditions, health: { ...health, readyHeartbeat: readyHeartbeatOf({ status: { conditions } }) } } };
}

/** The taints a node should carry for its readiness (kube's NoSchedule and NoExecute pairs) and its other conditions (NoSchedule). */
export function wantedTaints(node: Node): Taint[] {
  const status = readyStatus(node);
  const out: Taint[] = [];
  if (status === 'Unknown') out.push(...[UNREACHABLE, UNREACHABLE].map((key, i) => ({ key, effect: i ? 'NoExecute' : 'NoSchedule' })));
  if (status === 'False') out.push(...[NOT_READY, NOT_READY].map((key, i) => ({ key, effect: i ? 'NoExecute' : 'NoSchedule' })));
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[c.type];
    if (key && c.status === 'True') out.push({ key, effect: 'NoSchedule' });
  }
  return out;
}

/** The node's taints with the readiness taints set to `wanted` (keeping timeAdded of those already there). */
export function reconcileTaints(node: Node, now: number): Taint[] | undefined {
  const current: Taint[] = node.spec?.taints ?? [];
  const managed = (t: Taint) => MANAGED.has(t.key);
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

/** Toleration.ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (t.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** The node's NoExecute taints (getNoExecuteTaints). */
export function noExecuteTaints(taints: Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/**
 * v1helper.GetMatchingTolerations: for each taint the first toleration that
 * tolerates it, or undefined when some taint is not tolerated.
 */
export function matchingTolerations(taints: Taint[], tolerations: Toleration[]): Toleration[] | undefined {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((x) => tolerates(x, taint));
    if (!t) return undefined;
    used.push(t);
  }
  return used;
}

/**
 * getMinTolerationTime in ms of the cluster clock (seconds divided by
 * `speed`): the least tolerationSeconds (0 or less: at once), undefined when
 * none of `used` has a limit (tolerated forever). No toleration: 0.
 */
export function minTolerationMs(used: Toleration[], speed: number): number | undefined {
  if (used.length === 0) return 0;
  const limits = used.map((t) => t.tolerationSeconds).filter((s): s is number => typeof s === 'number');
  if (limits.length === 0) return undefined;
  const least = Math.min(...limits);
  return least <= 0 ? 0 : (least * 1000) / speed;
}

/** A Pod's eviction as the taint eviction controller keeps it (an entry of kube's TimedWorkerQueue). */
export interface ScheduledEviction {
  /** When the countdown started: the toleration counts from here. */
  createdAt: number;
  fireAt: number;
  /** The Pod was deleted; the entry stays so that the same countdown is not started again. */
  done: boolean;
}

/** What one look at a Pod on a node decides. */
export interface EvictionPlan {
  /** The Pod's entry afterwards (undefined: none). Due when fireAt <= now and not done. */
  next: ScheduledEviction | undefined;
  /** A pending eviction was called off: kube's "Cancelling deletion of Pod" event. */
  cancelled: boolean;
}

/**
 * kube's processPodOnNode: `taints` are the node's NoExecute taints (none:
 * any scheduled eviction is cancelled). A Pod that does not tolerate them all
 * goes at once; one that tolerates them with tolerationSeconds goes the least
 * of those after the countdown started (an earlier start is kept); one that
 * tolerates them forever is left alone.
 */
export function planEviction(
  tolerations: Toleration[],
  taints: Taint[],
  current: ScheduledEviction | undefined,
  now: number,
  speed: number,
): EvictionPlan {
  const pending = current !== undefined && !current.done;
  const cancel: EvictionPlan = { next: undefined, cancelled: pending };
  if (taints.length === 0) return cancel;
  const used = matchingTolerations(taints, tolerations);
  if (!used) return { next: { createdAt: now, fireAt: now, done: false }, cancelled: pending };
  const wait = minTolerationMs(used, speed);
  if (wait === undefined) return cancel;
  // A countdown under way goes on as it is (kube keeps an entry that started
  // before now), and a finished eviction is not scheduled again.
  if (current) return { next: current, cancelled: false };
  return { next: { createdAt: now, fireAt: now + wait, done: false }, cancelled: false };
}

/** The DisruptionTarget condition kube's taint manager puts on a Pod it deletes. */
export const TAINT_DISRUPTION = {
  type: 'DisruptionTarget',
  status: 'True',
  reason: 'DeletionByTaintManager',
  message: 'Taint manager: deleting due to NoExecute taint',
} as const;

/**
 * apipod.UpdatePodCondition for the taint manager's DisruptionTarget: the
 * condition to write (its lastTransitionTime moves only when the status
 * does), or undefined when the Pod already carries it.
 */
export function disruptionCondition(pod: Pod, now: number): PodCondition | undefined {
  const old = pod.status?.conditions?.find((c) => c.type === TAINT_DISRUPTION.type);
  if (old && old.status === TAINT_DISRUPTION.status && old.reason === TAINT_DISRUPTION.reason && old.message === TAINT_DISRUPTION.message) {
    return undefined;
  }
  const changed = old?.status !== TAINT_DISRUPTION.status;
  const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    ...TAINT_DISRUPTION,
    lastTransitionTime: changed || !old?.lastTransitionTime ? stamp : old.lastTransitionTime,
  };
}
