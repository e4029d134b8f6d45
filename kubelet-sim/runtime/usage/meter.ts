// The usage of running containers over time, on the cluster clock: each
// container's CPU counter advances at its demand (image baseline + what its
// command does + the requests it served), capped at limits.cpu as CFS
// throttling caps it (or at the node's cores); its working set is the
// baseline plus what its command holds, never above limits.memory (beyond
// it the shell has OOM-killed the process), in whole 4 KiB pages. The node
// adds its own system overhead to the sum of its containers. Counters start
// at zero when a container starts, as the cgroup's do. A process that is not
// throttled wobbles by up to 1% around its demand, as a real one does.
import type { Baseline } from './baselines.ts';
import type { Demand } from './profile.ts';

/** A running container as the meter sees it. */
export interface ContainerRun {
  /** The container ID: a new one (a restart) starts a new counter. */
  id: string;
  /** When it started (ms). */
  startedAt: number;
  demand: Demand;
  baseline: Baseline;
  /** Core-seconds its requests have cost so far (RequestCounter), for a container that serves. */
  requestCpu?: number;
  limitCores?: number;
  limitBytes?: number;
}

/** One sample: the cumulative CPU, its rise since the previous sample and the rate over it, and the working set. */
export interface UsageSample {
  cpuSeconds: number;
  cpuDelta: number;
  cpuCores: number;
  memoryBytes: number;
}

/** A node's system overhead (kubelet, containerd, the OS) beside its containers. */
export const NODE_SYSTEM = { cpuCores: 0.04, memoryBytes: 420 * 1024 * 1024 };

const PAGE = 4096;
const pages = (bytes: number) => Math.ceil(bytes / PAGE) * PAGE;

interface State {
  at: number;
  cpuSeconds: number;
  requestCpu: number;
  cpuCores: number;
}

/** See the file comment. */
export class UsageMeter {
  private containers = new Map<string, State>();
  private readonly nodes = new Map<string, { at: number; cpuSeconds: number }>();

  /** `nodeCores`: the cap of a container without limits.cpu; `bootAt`: when the nodes started; `random` in [0, 1). */
  constructor(
    private readonly nodeCores: number,
    private readonly bootAt: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Advances a container's counter to `now` and samples it. */
  sample(run: ContainerRun, now: number): UsageSample {
    let s = this.containers.get(run.id);
    const requestCpu = run.requestCpu ?? 0;
    if (!s) {
      // First seen: the requests served before are not known to be this container's.
      s = { at: Math.min(run.startedAt, now), cpuSeconds: 0, requestCpu, cpuCores: 0 };
      this.containers.set(run.id, s);
    }
    const dt = (now - s.at) / 1000;
    const before = s.cpuSeconds;
    if (dt > 0) {
      const wobble = 1 + (this.random() - 0.5) * 0.02;
      const demand = (run.baseline.cpuCores + run.demand.cpuCores) * wobble + (requestCpu - s.requestCpu) / dt;
      const cap = Math.min(run.limitCores ?? Infinity, this.nodeCores);
      s.cpuCores = Math.min(demand, cap);
      s.cpuSeconds += s.cpuCores * dt;
      s.at = now;
      s.requestCpu = requestCpu;
    }
    const memory = pages(run.baseline.memoryBytes + run.demand.memoryBytes);
    return {
      cpuSeconds: s.cpuSeconds,
      cpuDelta: s.cpuSeconds - before,
      cpuCores: s.cpuCores,
      memoryBytes: Math.min(memory, run.limitBytes === undefined ? Infinity : Math.floor(run.limitBytes / PAGE) * PAGE),
    };
  }

  /** Forgets the counters of containers not in `live` (they stopped, or their Pod went). */
  retain(live: Set<string>): void {
    for (const id of this.containers.keys()) if (!live.has(id)) this.containers.delete(id);
  }

  /** Advances a node's counter by its overhead and its containers' rise since its last sample (`containerCpu`), and samples it. */
  sampleNode(name: string, containerCpu: number, containerBytes: number, now: number): UsageSample {
    let n = this.nodes.get(name);
    if (!n) {
      n = { at: now, cpuSeconds: (NODE_SYSTEM.cpuCores * Math.max(0, now - this.bootAt)) / 1000 };
      this.nodes.set(name, n);
    }
    const dt = Math.max(0, now - n.at) / 1000;
    const delta = NODE_SYSTEM.cpuCores * dt + containerCpu;
    n.cpuSeconds += delta;
    n.at = now;
    return {
      cpuSeconds: n.cpuSeconds,
      cpuDelta: delta,
      cpuCores: dt > 0 ? delta / dt : 0,
      memoryBytes: NODE_SYSTEM.memoryBytes + containerBytes,
    };
  }
}
