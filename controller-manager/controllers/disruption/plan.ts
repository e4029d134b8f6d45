// The disruption controller's arithmetic, as pure functions: how many Pods a
// PodDisruptionBudget expects and needs healthy, how many are, and so how
// many disruptions (evictions) are allowed right now.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudgetSpec } from 'kubernetes-types/policy/v1.js';
import { scaledValue } from '../deployment/util.ts';

/** A PDB's computed status fields. */
export interface BudgetStatus {
  expectedPods: number;
  desiredHealthy: number;
  currentHealthy: number;
  disruptionsAllowed: number;
}

/** Ready and not being deleted: what kube counts as healthy. */
export function isHealthy(pod: Pod): boolean {
  return !pod.metadata?.deletionTimestamp && (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
}

/**
 * kube's getExpectedPodCount + countHealthyPods: `pods` are the Pods the
 * selector matches; `scale` is the summed replicas of their controllers
 * (needed for percentages and maxUnavailable); `recentlyDisrupted` counts
 * evicted Pods not yet gone, which are no longer healthy.
 */
export function budgetStatus(
  pdb: { spec?: PodDisruptionBudgetSpec },
  pods: Pod[],
  scale: number | undefined,
  recentlyDisrupted: Set<string>,
): BudgetStatus {
  const spec: PodDisruptionBudgetSpec = pdb.spec ?? {};
  let expectedPods: number;
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    expectedPods = scale ?? 0;
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods, true));
  } else if (typeof spec.minAvailable === 'string' && spec.minAvailable.endsWith('%')) {
    expectedPods = scale ?? 0;
    desiredHealthy = scaledValue(spec.minAvailable, expectedPods, true);
  } else {
    expectedPods = pods.length;
    desiredHealthy = spec.minAvailable === undefined || spec.minAvailable === null ? 0 : scaledValue(spec.minAvailable, expectedPods, true);
  }
  const currentHealthy = pods.filter((p) => isHealthy(p) && !recentlyDisrupted.has(p.metadata!.name!)).length;
  return { expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}
