// The namespace controller's arithmetic and bookkeeping, as kube's
// namespaced-resources deleter does it: how long a Pod's grace period may
// still hold the namespace, what is left of one resource after its
// deletecollection, the status conditions that say so, and when to look
// again. Pure functions: controller.ts reads and writes.
import type { NamespaceCondition as CoreNamespaceCondition, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../shared/api/object.ts';

/** The finalizer the namespace controller owns in spec.finalizers. */
export const KUBERNETES_FINALIZER = 'kubernetes';
/** How long to wait for objects that still have finalizers (kube's finalizerEstimateSeconds). */
export const FINALIZER_ESTIMATE_SECONDS = 15;
/** Delay before acting on a namespace event, so caches elsewhere see the deletion (kube's namespaceDeletionGracePeriod). */
export const DELETION_GRACE_MS = 5_000;

/** The condition types the deleter owns, in kube's order. */
export const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const OK: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** A core/v1 NamespaceCondition. */
export type NamespaceCondition = CoreNamespaceCondition;

/** What deleting one resource's content in the namespace left behind. */
export interface ResourceOutcome {
  /** The resource as kube prints a GroupResource in messages: "pods." or "deployments.apps". */
  groupResource: string;
  /** Seconds until what is left may be gone. */
  estimateSeconds: number;
  remaining: number;
  /** Objects left, counted per finalizer they carry. */
  finalizers: Record<string, number>;
  error?: string;
}

/** A resource as the outcome needs it. */
export interface ResourceName {
  group: string;
  version: string;
  plural: string;
}

/** kube's GroupVersionResource.String(): "apps/v1, Resource=deployments", "/v1, Resource=pods". */
export function gvrString(rt: ResourceName): string {
  return `${rt.group}/${rt.version}, Resource=${rt.plural}`;
}

/**
 * The longest grace period among the namespace's non-terminal Pods, in
 * seconds of simulated time, or 0 once that much has passed since the
 * namespace was deleted (elapsed real time times `speed`).
 */
export function estimatePodTermination(pods: Pod[], deletedAtMs: number, nowMs: number, speed: number): number {
  let estimate = 0;
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const grace = pod.spec?.terminationGracePeriodSeconds;
    if (typeof grace === 'number' && grace > estimate) estimate = grace;
  }
  const elapsedSeconds = ((nowMs - deletedAtMs) / 1000) * speed;
  return elapsedSeconds >= estimate ? 0 : estimate;
}

/** What is left of one resource after its deletecollection, listed again (`items`). */
export function outcomeOf(rt: ResourceName, namespace: string, items: KubeObject[], estimateSeconds: number): ResourceOutcome {
  const groupResource = `${rt.plural}.${rt.group}`;
  if (items.length === 0) return { groupResource, estimateSeconds, remaining: 0, finalizers: {} };
  const finalizers: Record<string, number> = {};
  for (const item of items) for (const f of item.metadata?.finalizers ?? []) finalizers[f] = (finalizers[f] ?? 0) + 1;
  const remaining = items.length;
  if (estimateSeconds !== 0) return { groupResource, estimateSeconds, remaining, finalizers };
  // Finalizers are a normal reason to wait (the garbage collector, say).
  if (Object.keys(finalizers).length > 0) return { groupResource, estimateSeconds: FINALIZER_ESTIMATE_SECONDS, remaining, finalizers };
  return {
    groupResource,
    estimateSeconds,
    remaining,
    finalizers,
    error: `unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(rt)}`,
  };
}

/**
 * The failure conditions of one pass: content errors always, the remaining
 * totals only when `withTotals` (kube's Pods-first pass returns before
 * counting them).
 */
export function failureConditions(outcomes: ResourceOutcome[], errors: string[], withTotals: boolean, now: string): NamespaceCondition[] {
  const out: NamespaceCondition[] = [];
  if (withTotals) {
    const remaining = outcomes.filter((o) => o.remaining > 0).map((o) => `${o.groupResource} has ${o.remaining} resource instances`);
    if (remaining.length > 0) {
      out.push({
        type: 'NamespaceContentRemaining',
        status: 'True',
        lastTransitionTime: now,
        reason: 'SomeResourcesRemain',
        message: `Some resources are remaining: ${remaining.sort().join(', ')}`,
      });
    }
    const byFinalizer = new Map<string, number>();
    for (const o of outcomes)
      if (o.remaining > 0) for (const [f, n] of Object.entries(o.finalizers)) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + n);
    const finalizers = [...byFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
    if (finalizers.length > 0) {
      out.push({
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        lastTransitionTime: now,
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${finalizers.sort().join(', ')}`,
      });
    }
  }
  if (errors.length > 0) {
    out.push({
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      lastTransitionTime: now,
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${errors.length} remaining: ${[...errors].sort().join(', ')}`,
    });
  }
  return out;
}

/**
 * kube's updateConditions: each owned condition type takes its failure
 * variant if there is one, else its success variant (status False); an
 * existing condition keeps its lastTransitionTime unless its status changes.
 * Returns the new list, or undefined when nothing changed.
 */
export function updateConditions(
  existing: NamespaceCondition[] | undefined,
  failures: NamespaceCondition[],
  now: string,
): NamespaceCondition[] | undefined {
  const conditions = structuredClone(existing ?? []);
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const wanted = failures.find((c) => c.type === type) ?? { type, status: 'False' as const, lastTransitionTime: now, ...OK[type] };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push(wanted);
      changed = true;
    } else if (old.status !== wanted.status || old.reason !== wanted.reason || old.message !== wanted.message) {
      if (old.status !== wanted.status) old.lastTransitionTime = now;
      old.status = wanted.status;
      old.reason = wanted.reason;
      old.message = wanted.message;
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}

/** How long to wait before looking again while content remains: kube's estimate/2 + 1 seconds, divided by speed. */
export function requeueAfterMs(estimateSeconds: number, speed: number): number {
  return ((Math.floor(estimateSeconds / 2) + 1) * 1000) / speed;
}

/** spec.finalizers without ours, sorted and de-duplicated as kube's finalizeNamespace writes them. */
export function finalizedSpecFinalizers(finalizers: string[] | undefined): string[] {
  return [...new Set((finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER))].sort();
}

/** RFC 3339 to the second, as metav1.Time serializes. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
