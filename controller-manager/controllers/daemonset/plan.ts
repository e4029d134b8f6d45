// The DaemonSet controller's decisions as pure functions, following kube's
// daemon_controller.go and update.go: which nodes need a daemon Pod and which
// Pods must go (manage), which old Pods a RollingUpdate replaces now
// (within maxUnavailable, or maxSurge), the status to report, how the
// revisions split into the current one and the old ones, and which old
// revisions to delete beyond revisionHistoryLimit.
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { goJson, sortControllerRevisions, templatePatch } from '../history/history.ts';
import { isAvailable, isReady } from '../replicaset/plan.ts';
import {
  allowsSurge,
  byCreationAndScheduling,
  CONTROLLER_REVISION_HASH_LABEL,
  isPodUpdated,
  nodeShouldRunDaemonPod,
  surgeCount,
  targetNodeName,
  templateGeneration,
  unavailableCount,
} from './util.ts';

/** kube's --concurrent... burstReplicas for DaemonSets: at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 250;

/** An Event the plan wants recorded on the DaemonSet. */
export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What a sync should do: nodes to start a daemon Pod on, Pods to delete, Events, and when to look again. */
export interface NodePlan {
  createOn: string[];
  delete: Pod[];
  events: PlannedEvent[];
  requeueAfterMs?: number;
}

/**
 * getNodesToDaemonPods: daemon Pods by the node they are meant for
 * (spec.nodeName or the node-name affinity). Pods for no node are left
 * out, and so are terminal Pods already being deleted unless
 * `includeDeletedTerminal`: nothing is left to do with them.
 */
export function podsByNode(pods: Pod[], includeDeletedTerminal = false): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const p of pods) {
    const terminal = p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
    if (!includeDeletedTerminal && terminal && p.metadata?.deletionTimestamp) continue;
    const node = targetNodeName(p);
    if (node === undefined) continue;
    const list = out.get(node);
    if (list) list.push(p);
    else out.set(node, [p]);
  }
  return out;
}

/** The delay a failed daemon Pod on a node waits before it is deleted again (kube's 1 s doubling to 15 min backoff). */
export class FailedPodBackoff {
  private readonly entries = new Map<string, { delayMs: number; at: number }>();
  constructor(
    private readonly initialMs = 1000,
    private readonly maxMs = 15 * 60_000,
  ) {}

  /** The delay still to wait at `now`, or undefined when not backing off. */
  waiting(key: string, now: number): number | undefined {
    const e = this.entries.get(key);
    if (!e || now - e.at >= e.delayMs) return undefined;
    return e.delayMs - (now - e.at);
  }

  /** Records one more failure at `now`, doubling the delay (starting over after a long quiet time). */
  next(key: string, now: number): void {
    const e = this.entries.get(key);
    if (!e || now - e.at > 2 * this.maxMs) this.entries.set(key, { delayMs: this.initialMs, at: now });
    else this.entries.set(key, { delayMs: Math.min(e.delayMs * 2, this.maxMs), at: now });
  }
}

/** The key kube backs off a failed Pod under: the DaemonSet's uid, observed generation and the node. */
export const backoffKey = (ds: DaemonSet, node: string) => `${ds.metadata?.uid}/${ds.status?.observedGeneration ?? 0}/${node}`;

const isTerminating = (p: Pod) => !!p.metadata?.deletionTimestamp;
const minReady = (ds: DaemonSet, speed: number) => (ds.spec?.minReadySeconds ?? 0) / speed;

/**
 * podsShouldBeOnNode for every node, then getUnscheduledPodsWithoutNode:
 * a node that should run the daemon and has none gets one; failed Pods are
 * deleted (subject to backoff) and succeeded ones too; without surge only the
 * oldest running Pod stays; with surge an old and a new Pod may share a node
 * until the new one is available; a node that may no longer run the daemon
 * loses its Pods; Pods for a node that is gone and never scheduled are deleted.
 */
export function planManage(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  now: number,
  backoff: FailedPodBackoff,
  speed = 1,
): NodePlan {
  const plan: NodePlan = { createOn: [], delete: [], events: [] };
  const ns = ds.metadata?.namespace;
  const surge = allowsSurge(ds);
  const later = (ms: number) => {
    plan.requeueAfterMs = plan.requeueAfterMs === undefined ? ms : Math.min(plan.requeueAfterMs, ms);
  };
  for (const node of nodes) {
    const nodeName = node.metadata!.name!;
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const pods = byNode.get(nodeName);
    if (shouldRun && !pods) {
      plan.createOn.push(nodeName);
      continue;
    }
    if (!pods) continue;
    if (!shouldContinueRunning) {
      plan.delete.push(...pods.filter((p) => !isTerminating(p)));
      continue;
    }
    const running: Pod[] = [];
    for (const pod of pods) {
      if (isTerminating(pod)) continue;
      const phase = pod.status?.phase;
      if (phase === 'Failed') {
        const key = backoffKey(ds, nodeName);
        const wait = backoff.waiting(key, now);
        if (wait !== undefined) {
          later(wait);
          continue;
        }
        backoff.next(key, now);
        plan.events.push({
          type: 'Warning',
          reason: 'FailedDaemonPod',
          message: `Found failed daemon pod ${ns}/${pod.metadata!.name} on node ${nodeName}, will try to kill it`,
        });
        plan.delete.push(pod);
      } else if (phase === 'Succeeded') {
        plan.events.push({
          type: 'Normal',
          reason: 'SucceededDaemonPod',
          message: `Found succeeded daemon pod ${ns}/${pod.metadata!.name} on node ${nodeName}, will try to delete it`,
        });
        plan.delete.push(pod);
      } else running.push(pod);
    }
    running.sort(byCreationAndScheduling);
    if (!surge) {
      plan.delete.push(...running.slice(1));
      continue;
    }
    if (running.length <= 1) {
      if (running.length === 0 && shouldRun) plan.createOn.push(nodeName);
      continue;
    }
    // With surge, an old and a new Pod share the node only while the new one is not yet available.
    let oldestNew: Pod | undefined;
    let oldestOld: Pod | undefined;
    for (const pod of running) {
      if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) {
        if (!oldestNew) {
          oldestNew = pod;
          continue;
        }
      } else if (!oldestOld) {
        oldestOld = pod;
        continue;
      }
      plan.delete.push(pod);
    }
    if (oldestNew && oldestOld) {
      if (!isReady(oldestOld) || isAvailable(oldestNew, minReady(ds, speed), now)) plan.delete.push(oldestOld);
    }
  }
  const present = new Set(nodes.map((n) => n.metadata!.name!));
  for (const [nodeName, pods] of byNode) {
    if (present.has(nodeName)) continue;
    plan.delete.push(...pods.filter((p) => !p.spec?.nodeName));
  }
  plan.createOn = plan.createOn.slice(0, BURST_REPLICAS);
  plan.delete = plan.delete.slice(0, BURST_REPLICAS);
  return plan;
}

/** findUpdatedPodsOnNode: the node's one new and one old (not terminating) Pod, or undefined when it has more. */
function updatedPodsOnNode(pods: Pod[], hash: string, generation: number | undefined): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (isTerminating(p)) continue;
    if (isPodUpdated(p, hash, generation)) {
      if (newPod) return undefined;
      newPod = p;
    } else {
      if (oldPod) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}

/** updatedDesiredNodeCounts: maxSurge, maxUnavailable and the nodes that should run the daemon. */
export function rolloutLimits(ds: DaemonSet, nodes: Node[]): { maxSurge: number; maxUnavailable: number; desired: number } {
  const desired = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).length;
  let maxUnavailable = unavailableCount(ds, desired);
  const maxSurge = surgeCount(ds, desired);
  // An impossible 0/0 (which validation refuses) falls back to one unavailable, as kube does.
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable, desired };
}

/**
 * rollingUpdate. Without surge: old Pods that are not available are
 * replaced at once, and available ones are deleted while fewer than
 * maxUnavailable daemon Pods are unavailable (manage then creates their
 * successors). With surge: a new Pod is started next to an old one that is
 * not available, and next to at most maxSurge available ones; an old Pod goes
 * once its node's new Pod is available.
 */
export function planRollingUpdate(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  now: number,
  speed = 1,
): NodePlan {
  const plan: NodePlan = { createOn: [], delete: [], events: [] };
  const { maxSurge, maxUnavailable, desired } = rolloutLimits(ds, nodes);
  const generation = templateGeneration(ds);
  const ready = minReady(ds, speed);
  const available = (p: Pod) => isAvailable(p, ready, now);
  const nodeByName = new Map(nodes.map((n) => [n.metadata!.name!, n]));
  // Every node that should run the daemon counts, with or without Pods.
  const all = new Map(byNode);
  for (const n of nodes) if (!all.has(n.metadata!.name!) && nodeShouldRunDaemonPod(n, ds).shouldRun) all.set(n.metadata!.name!, []);

  if (maxSurge === 0) {
    let unavailable = 0;
    const replacements: Pod[] = [];
    const candidates: Pod[] = [];
    for (const pods of all.values()) {
      const found = updatedPodsOnNode(pods, hash, generation);
      if (!found) {
        unavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (!oldPod === !newPod) unavailable++;
      else if (newPod) {
        if (!available(newPod)) unavailable++;
      } else if (!available(oldPod!)) {
        replacements.push(oldPod!);
        unavailable++;
      } else if (unavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const room = Math.min(Math.max(maxUnavailable - unavailable, 0), candidates.length);
    plan.delete = [...replacements, ...candidates.slice(0, room)];
    return plan;
  }

  const toDelete: Pod[] = [];
  const shouldNotRun: Pod[] = [];
  const candidates: string[] = [];
  const allowed: string[] = [];
  let surging = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of all) {
    const found = updatedPodsOnNode(pods, hash, generation);
    if (!found) {
      surging++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod) {
      if (available(oldPod)) numAvailable++;
    } else if (newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    const node = nodeByName.get(nodeName);
    const shouldRun = node ? nodeShouldRunDaemonPod(node, ds).shouldRun : false;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRun) toDelete.push(oldPod);
        else allowed.push(nodeName);
      } else if (!shouldRun) shouldNotRun.push(oldPod);
      else if (surging < maxSurge) candidates.push(nodeName);
    } else if (!available(newPod)) surging++;
    else toDelete.push(oldPod);
  }
  // Pods on nodes the daemon must leave go only as Pods elsewhere become available: maxSurge promises full availability.
  const deletable = Math.min(numAvailable - desired, shouldNotRun.length);
  if (deletable > 0) toDelete.push(...shouldNotRun.slice(0, deletable));
  const room = Math.min(Math.max(maxSurge - surging, 0), candidates.length);
  plan.delete = toDelete;
  plan.createOn = [...allowed, ...candidates.slice(0, room)];
  return plan;
}

/** updateDaemonSetStatus's counts over the oldest Pod of each node, and when to look again for Pods about to become available. */
export function computeStatus(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
  now: number,
  observe: boolean,
  speed = 1,
): { status: DaemonSetStatus; requeueAfterMs?: number } {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let numberReady = 0;
  let updated = 0;
  let numberAvailable = 0;
  const generation = templateGeneration(ds);
  const ready = minReady(ds, speed);
  for (const node of nodes) {
    const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
    const pods = byNode.get(node.metadata!.name!) ?? [];
    if (!shouldRun) {
      if (pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    if (pods.length === 0) continue;
    current++;
    const pod = [...pods].sort(byCreationAndScheduling)[0];
    if (isReady(pod)) {
      numberReady++;
      if (isAvailable(pod, ready, now)) numberAvailable++;
    }
    if (isPodUpdated(pod, hash, generation)) updated++;
  }
  // The required counts are always written; the others, as Go's omitempty, only when not zero.
  const status: DaemonSetStatus = {
    currentNumberScheduled: current,
    desiredNumberScheduled: desired,
    numberMisscheduled: misscheduled,
    numberReady,
  };
  const observed = observe ? ds.metadata?.generation : ds.status?.observedGeneration;
  if (observed) status.observedGeneration = observed;
  if (updated) status.updatedNumberScheduled = updated;
  if (numberAvailable) status.numberAvailable = numberAvailable;
  if (desired - numberAvailable) status.numberUnavailable = desired - numberAvailable;
  if (ds.status?.collisionCount !== undefined) status.collisionCount = ds.status.collisionCount;
  if (ds.status?.conditions?.length) status.conditions = ds.status.conditions;
  const requeueAfterMs = ready > 0 && numberReady !== numberAvailable ? ready * 1000 : undefined;
  return { status, requeueAfterMs };
}

/** getPatch: the bytes of the revision a DaemonSet's current template makes. */
export function daemonSetPatch(ds: DaemonSet): Record<string, unknown> {
  return templatePatch(ds.spec?.template);
}

/** Match: the revision holds exactly the DaemonSet's current template. */
export function matchesRevision(ds: DaemonSet, rev: ControllerRevision): boolean {
  return goJson(daemonSetPatch(ds)) === goJson(rev.data);
}

/** constructHistory's split: revisions holding the current template, the others, and the number the current one should have. */
export function splitHistory(
  ds: DaemonSet,
  revisions: ControllerRevision[],
): { current: ControllerRevision[]; old: ControllerRevision[]; currentRevision: number } {
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (const r of revisions) (matchesRevision(ds, r) ? current : old).push(r);
  return { current, old, currentRevision: old.reduce((m, r) => Math.max(m, r.revision ?? 0), 0) + 1 };
}

/** dedupCurHistories' choice: the one with the highest revision (the last such). */
export function keptCurrent(current: ControllerRevision[]): ControllerRevision {
  return current.reduce((keep, r) => ((r.revision ?? 0) >= (keep.revision ?? 0) ? r : keep));
}

/**
 * cleanupHistory: with more old revisions than revisionHistoryLimit, the
 * oldest ones whose hash no daemon Pod carries, until the excess is gone.
 */
export function historyToDelete(ds: DaemonSet, old: ControllerRevision[], pods: Pod[]): ControllerRevision[] {
  const limit = ds.spec?.revisionHistoryLimit ?? 10;
  let toKill = old.length - limit;
  if (toKill <= 0) return [];
  const live = new Set(pods.map((p) => p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]).filter(Boolean));
  const out: ControllerRevision[] = [];
  for (const r of sortControllerRevisions(old)) {
    if (toKill <= 0) break;
    if (live.has(r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL])) continue;
    out.push(r);
    toKill--;
  }
  return out;
}
