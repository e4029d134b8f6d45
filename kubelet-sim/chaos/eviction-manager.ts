// Node pressure (`node.pressure`) and kubelet's eviction manager for it.
// Turning a pressure on sets the node's MemoryPressure/DiskPressure/PIDPressure
// condition True with kubelet's reason and message (posted at once, with the
// node's NodeHasInsufficientMemory-style event), and starts the eviction
// manager: every eviction interval (kubelet's 10 s housekeeping period,
// divided by --speed) it ranks the node's Pods (ranking.ts), evicts the first
// (EvictionThresholdMet on the node; the Pod Failed/Evicted with the
// DisruptionTarget condition and its Evicted event, containers killed with a
// 1 s grace period as for a hard threshold) until the pressure is relieved.
//
// The simulated usage model: at the moment the pressure starts, the node is
// short of the resource by half of what its evictable Pods use together
// (usage.ts; at least one byte or process when any run). Each eviction gives
// back the evicted Pod's usage; when the shortfall is covered no more Pods
// are evicted, but the condition stays True (kubelet keeps it for
// evictionPressureTransitionPeriod; here until the pressure is turned off).
import type { Logger } from 'pino';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { quantityNumber } from '../../shared/api/quantity-number.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import { keyOf } from '../../shared/informer/cache.ts';
import type { NodeFleet, SimNode } from '../node/node-fleet.ts';
import { PRESSURE_CONDITIONS, type PressureKind } from '../node/node-object.ts';
import type { LogStore } from '../runtime/log-store.ts';
import type { PodWorker } from '../runtime/pod-worker.ts';
import { binaryQuantity, evictionMessage, isCriticalPod, podUsage, rankForEviction, RESOURCE_OF, type ThresholdMet } from './ranking.ts';
import { usageOf } from './usage.ts';

/** kubelet's evictionMonitoringPeriod (housekeeping), before --speed. */
export const EVICTION_INTERVAL_MS = 10_000;
/** immediateEvictionGracePeriodSeconds: the grace period of a hard-threshold eviction. */
export const HARD_EVICTION_GRACE_MS = 1_000;
/** DefaultEvictionHard's memory.available. */
const MEMORY_THRESHOLD = 100 * 1024 * 1024;

/** Kubelet event reasons per pressure (kubelet's recordNodeStatusEvent). */
const NODE_EVENTS: Record<PressureKind, [on: string, off: string]> = {
  memory: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  disk: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  pid: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
};

/** What the eviction manager needs from the Pod side of the process. */
export interface PodSource {
  podsOn(node: string): { pod: Pod; worker?: PodWorker }[];
  nodeEvent(node: SimNode, type: 'Normal' | 'Warning', reason: string, message: string): void;
  logs?: LogStore;
}

/** The eviction manager's collaborators. */
export interface EvictionDeps {
  fleet: NodeFleet;
  pods: PodSource;
  clock: Clock;
  speed: number;
  log: Logger;
}

interface Run {
  /** What is still to be reclaimed (bytes or processes). */
  shortfall: number;
  threshold: number;
  cancel?: () => void;
  evicted: string[];
}

/** The answer to 'node.pressure'. */
export interface PressureResult {
  node: string;
  kind: PressureKind;
  on: boolean;
  /** The condition, as posted. */
  condition: string;
  /** What the node is short of, as kubelet prints a quantity ('' when nothing). */
  shortfall?: string;
}

/** See the file comment. */
export class EvictionManager {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly deps: EvictionDeps) {}

  /** Turns `kind` pressure on `node` on or off. */
  async set(nodeName: string, kind: PressureKind, on: boolean): Promise<PressureResult> {
    const node = this.deps.fleet.nodes.get(nodeName);
    if (!node) throw new Error(`no node ${nodeName} in this process`);
    if (!(kind in PRESSURE_CONDITIONS)) throw new Error(`kind must be memory, disk or pid, not ${String(kind)}`);
    const key = `${nodeName}/${kind}`;
    const was = node.pressure[kind]?.on === true;
    const now = this.deps.clock.now();
    const def = PRESSURE_CONDITIONS[kind];
    const result: PressureResult = { node: nodeName, kind, on, condition: `${def.type}=${on ? 'True' : 'False'}` };
    if (on === was) {
      const run = this.runs.get(key);
      if (run) result.shortfall = this.quantity(kind, run.shortfall);
      return result;
    }
    node.pressure[kind] = { on, since: now };
    const [onEvent, offEvent] = NODE_EVENTS[kind];
    const reason = on ? onEvent : offEvent;
    this.deps.pods.nodeEvent(node, 'Normal', reason, `Node ${nodeName} status is now: ${reason}`);
    await this.deps.fleet
      .postStatusNow(nodeName)
      .catch((err: Error) => this.deps.log.warn({ node: nodeName, err: err.message }, 'node status update failed'));
    if (!on) {
      this.runs.get(key)?.cancel?.();
      this.runs.delete(key);
      this.deps.log.info({ node: nodeName, kind }, 'pressure relieved');
      return result;
    }
    const total = this.candidates(nodeName, kind).reduce((a, p) => a + podUsage(p), 0);
    const run: Run = { shortfall: total > 0 ? Math.max(1, Math.ceil(total / 2)) : 0, threshold: this.threshold(kind), evicted: [] };
    this.runs.set(key, run);
    result.shortfall = this.quantity(kind, run.shortfall);
    this.deps.log.warn({ node: nodeName, kind, shortfall: run.shortfall }, 'pressure on');
    this.schedule(node, kind, run);
    return result;
  }

  /** Stops every pending eviction (the process is shutting down). */
  stop(): void {
    for (const r of this.runs.values()) r.cancel?.();
    this.runs.clear();
  }

  /** The Pods evicted so far under the pressure that is on, by key. */
  evicted(node: string, kind: PressureKind): string[] {
    return [...(this.runs.get(`${node}/${kind}`)?.evicted ?? [])];
  }

  private schedule(node: SimNode, kind: PressureKind, run: Run): void {
    run.cancel = this.deps.clock.setTimeout(() => {
      if (this.runs.get(`${node.name}/${kind}`) !== run) return;
      this.synchronize(node, kind, run);
      if (run.shortfall > 0) this.schedule(node, kind, run);
    }, EVICTION_INTERVAL_MS / this.deps.speed);
  }

  /** The running, evictable (not critical) Pods of the node with their usage, in a fixed order (by key) before ranking. */
  private candidates(nodeName: string, kind: PressureKind) {
    return this.deps.pods
      .podsOn(nodeName)
      .filter(
        ({ worker, pod }) =>
          worker && !worker.isEvicted && !worker.isTerminating && !pod.metadata?.deletionTimestamp && !isCriticalPod(pod),
      )
      .map(({ pod }) => usageOf(pod, kind, this.deps.pods.logs))
      .filter((p) => p.containers.length > 0)
      .sort((a, b) => keyOf(a.pod).localeCompare(keyOf(b.pod)));
  }

  /** One pass of kubelet's synchronize: a frozen or cut-off kubelet does nothing; else the first-ranked Pod goes. */
  private synchronize(node: SimNode, kind: PressureKind, run: Run): void {
    if (!node.online || run.shortfall <= 0) return;
    const ranked = rankForEviction(kind, this.candidates(node.name, kind));
    const first = ranked[0];
    if (!first) return;
    const worker = this.deps.pods.podsOn(node.name).find((p) => keyOf(p.pod) === keyOf(first.pod))?.worker;
    if (!worker) return;
    const resource = RESOURCE_OF[kind];
    this.deps.pods.nodeEvent(node, 'Warning', 'EvictionThresholdMet', `Attempting to reclaim ${resource}`);
    const threshold: ThresholdMet | undefined =
      kind === 'pid'
        ? undefined
        : { quantity: binaryQuantity(run.threshold), available: this.quantity(kind, Math.max(0, run.threshold - run.shortfall)) };
    const message = evictionMessage(kind, first, threshold);
    worker.evict('Evicted', message, HARD_EVICTION_GRACE_MS / this.deps.speed);
    run.evicted.push(keyOf(first.pod));
    run.shortfall = Math.max(0, run.shortfall - podUsage(first));
    this.deps.log.warn({ node: node.name, kind, pod: keyOf(first.pod), shortfall: run.shortfall }, 'evicted pod');
  }

  /** The hard threshold: memory.available<100Mi, nodefs.available<10%; pids have no default (10% of pid_max's 4194304 here). */
  private threshold(kind: PressureKind): number {
    if (kind === 'memory') return MEMORY_THRESHOLD;
    if (kind === 'pid') return 419_430;
    const capacity = quantityNumber(this.deps.fleet.profile.ephemeralStorage);
    return Math.round((Number.isFinite(capacity) ? capacity : 100 * 1024 ** 3) * 0.1);
  }

  private quantity(kind: PressureKind, n: number): string {
    return kind === 'pid' ? String(n) : binaryQuantity(n);
  }
}
