// kube's TriggerTimeTracker: the value of the last-change-trigger-time
// annotation. For a Service seen for the first time it is the Service's
// creation time; afterwards, the earliest of the changes since the last sync
// (a Pod's Ready condition transition, the Service's creation), or nothing
// when nothing changed (and the annotation is then dropped on the next write).
import type { Pod, Service } from 'kubernetes-types/core/v1.js';

interface State {
  pods: Map<string, number>;
  service: number;
}

const parse = (t: string | undefined): number => (t ? Date.parse(t) || 0 : 0);

/** See the file comment. */
export class TriggerTimeTracker {
  private readonly states = new Map<string, State>();

  /** The trigger time (epoch ms) for this sync of `key`, or undefined; updates the state either way. */
  compute(key: string, svc: Service, pods: readonly Pod[]): number | undefined {
    const prior = this.states.get(key);
    let min: number | undefined;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      const t = parse(ready?.lastTransitionTime);
      if (!t) continue;
      const name = pod.metadata?.name ?? '';
      podTimes.set(name, t);
      if (t > (prior?.pods.get(name) ?? 0)) min = min === undefined ? t : Math.min(min, t);
    }
    const svcTime = parse(svc.metadata?.creationTimestamp);
    if (svcTime > (prior?.service ?? 0)) min = min === undefined ? svcTime : Math.min(min, svcTime);
    this.states.set(key, { pods: podTimes, service: svcTime });
    if (!prior) return svcTime || undefined;
    return min;
  }

  /** Forgets a deleted Service. */
  delete(key: string): void {
    this.states.delete(key);
  }
}
