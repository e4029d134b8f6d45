// A CronJob's schedule runs on cluster time: real time sped up --speed times
// from the CronJob's creation, so `*/1 * * * *` fires every 6 real seconds
// at speed 10 while job names and the scheduled-timestamp annotation count
// whole cluster minutes as kube's do. Status timestamps stay real (kubectl
// prints their age against the wall clock); since they have whole-second
// precision, a scheduled time is written rounded up and read back as the
// earliest whole cluster second that rounds to it. At speed 1 both are the
// identity, as in kube.
import type { CronJob } from 'kubernetes-types/batch/v1.js';

const SECOND = 1000;

/** metav1.Time's RFC3339 text (whole seconds, UTC). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One CronJob's mapping between real time and cluster time. */
export class ClusterTime {
  constructor(
    /** The real instant (ms) where both clocks agree: the CronJob's creation. */
    readonly anchor: number,
    readonly speed: number,
  ) {}

  /** The mapping for `cj` at `speed`. */
  static of(cj: CronJob, speed: number): ClusterTime {
    const created = Date.parse(cj.metadata?.creationTimestamp ?? '');
    return new ClusterTime(Number.isFinite(created) ? created : 0, speed > 0 ? speed : 1);
  }

  /** Cluster time at real instant `real`. */
  cluster(real: number): number {
    return this.anchor + (real - this.anchor) * this.speed;
  }

  /** Real instant at cluster time `cluster`. */
  real(cluster: number): number {
    return this.anchor + (cluster - this.anchor) / this.speed;
  }

  /** A cluster duration in real milliseconds. */
  realDuration(clusterMs: number): number {
    return clusterMs / this.speed;
  }

  /** The status timestamp of scheduled time `scheduled`: its real instant, rounded up to the second. */
  stamp(scheduled: number): string {
    // The epsilon keeps float noise on an exact second from rounding a whole second up.
    return rfc3339(Math.ceil((this.real(scheduled) - 1e-3) / SECOND) * SECOND);
  }

  /** The earliest whole cluster second whose stamp() is `stamp` (undefined for an unreadable time). */
  scheduledAt(stamp: string): number | undefined {
    const t = Date.parse(stamp);
    if (!Number.isFinite(t)) return undefined;
    if (this.speed === 1) return t;
    const low = this.cluster(t - SECOND);
    return Math.floor(low / SECOND) * SECOND + SECOND;
  }
}
