// How long the simulated runtime takes for each step, at speed 1 (real kube
// values where kube has one), and how --speed and a profile file change them.

/** Every simulated duration, in milliseconds. */
export interface Timings {
  /** Pod sandbox (network namespace, IP) creation. */
  sandboxMs: number;
  /** Pulling an image that is not on the node yet. */
  pullMs: number;
  createMs: number;
  startMs: number;
  /** How long a container that handles SIGTERM (no command: the image's server) takes to exit. */
  stopMs: number;
  /** Delay before the first restart of a failed container (kubelet's next sync). */
  restartMs: number;
  /** CrashLoopBackOff and ImagePullBackOff: initial, cap, and the run time that resets it. */
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
  /** Retry period for a missing ConfigMap/Secret (container config or volume). */
  configRetryMs: number;
  /** Lease renewal and node status update periods; node status report period when nothing changed. */
  leaseRenewMs: number;
  nodeStatusUpdateMs: number;
  nodeStatusReportMs: number;
  /** The status manager's sync period: how often each Pod's status in the apiserver is checked against what was written. */
  statusSyncMs: number;
  /** Lease duration written to the Lease, in seconds (not scaled: it is what the node lifecycle controller reads). */
  leaseDurationSeconds: number;
}

/** Kubernetes' values (kubelet defaults; pull/create/start are typical for a small image). */
export const DEFAULT_TIMINGS: Timings = {
  sandboxMs: 500,
  pullMs: 2000,
  createMs: 100,
  startMs: 100,
  stopMs: 200,
  restartMs: 1000,
  backoffInitialMs: 10_000,
  backoffMaxMs: 300_000,
  backoffResetMs: 600_000,
  configRetryMs: 10_000,
  leaseRenewMs: 10_000,
  nodeStatusUpdateMs: 10_000,
  nodeStatusReportMs: 300_000,
  statusSyncMs: 10_000,
  leaseDurationSeconds: 40,
};

/** `base` with every duration divided by `speed` (seconds in the Lease stay as written). */
export function scaleTimings(base: Timings, speed: number): Timings {
  const s = speed > 0 ? speed : 1;
  const out = { ...base };
  for (const k of Object.keys(out) as (keyof Timings)[]) if (k.endsWith('Ms')) out[k] = base[k] / s;
  return out;
}
