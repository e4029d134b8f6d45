// The Job controller's decisions as pure functions, in the order kube's
// syncJob takes them: count the Pods (finalizer-based tracking: a finished
// Pod counts once its tracking finalizer is gone and its uid has left
// status.uncountedTerminatedPods), decide whether the Job has failed or met
// its success criteria, how many Pods (and which indexes) to create or
// delete, which finalizers to remove, and the status to write in each step.
// controller.ts applies these decisions and reports back what succeeded.
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { controllerRef } from '../../../shared/controller/owner-refs.ts';
import {
  COMPLETION_INDEX_ENV,
  COMPLETION_INDEX_KEY,
  INDEX_FAILURE_COUNT_KEY,
  INDEX_IGNORED_FAILURE_COUNT_KEY,
  completionIndex,
  firstPending,
  format,
  generateNameWithIndex,
  has,
  indexesOf,
  merge,
  parse,
  total,
  withIndexes,
  type Intervals,
} from './indexes.ts';
import {
  backoffRemaining,
  finishedTime,
  indexAbsoluteFailureCount,
  indexBackoffRemaining,
  indexFailureCount,
  isPodFailed,
  matchPodFailurePolicy,
  matchSuccessPolicy,
  nextBackoffRecord,
  nextIndexFailureCounts,
  onlyReplaceFailedPods,
  type BackoffRecord,
} from './policy.ts';

/** The finalizer the controller keeps on a Pod until it has counted it. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** At most this many uids wait in status.uncountedTerminatedPods (kube's MaxUncountedPods). */
export const MAX_UNCOUNTED_PODS = 500;
/** At most this many creates or deletes per sync (kube's MaxPodCreateDeletePerSync). */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

/** A Go metav1.Time: RFC 3339 to the second. */
export function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The condition kube's newCondition builds. */
export function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const t = metaTime(now);
  const c: JobCondition = { type, status, lastProbeTime: t, lastTransitionTime: t };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/** The condition of `type`, if present. */
export function findCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type);
}

/** IsJobFinished: Complete or Failed is True. */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** True when the Pod carries the tracking finalizer. */
export function hasTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** FilterActivePods: neither terminal nor being deleted. */
export function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** Being deleted and not yet terminal (kube's CountTerminatingPods). */
export function isTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !!pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

/** The Pod's Ready condition is True. */
export function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export const isIndexed = (job: Job): boolean => job.spec?.completionMode === 'Indexed';
export const hasBackoffLimitPerIndex = (job: Job): boolean => typeof job.spec?.backoffLimitPerIndex === 'number';
export const isSuspended = (job: Job): boolean => job.spec?.suspend === true;
const completionsOf = (job: Job): number => job.spec?.completions ?? 0;

/** What one sync knows, as kube's syncJobCtx. */
export interface SyncCtx {
  /** A copy of the Job; the plan writes its status. */
  job: Job;
  pods: Pod[];
  activePods: Pod[];
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  uncounted: { succeeded: Set<string>; failed: Set<string> };
  prevSucceededIndexes: Intervals;
  succeededIndexes: Intervals;
  failedIndexes?: Intervals;
  podsWithDelayedDeletionPerIndex: Map<number, Pod>;
  newBackoffRecord: BackoffRecord;
  finishedCondition?: JobCondition;
  expectedRmFinalizers: Set<string>;
  satisfiedExpectations: boolean;
  now: number;
  speed: number;
  /** When to look again because of activeDeadlineSeconds. */
  deadlineRequeueMs?: number;
}

/** What assess needs. */
export interface SyncInput {
  job: Job;
  pods: Pod[];
  now: number;
  speed: number;
  satisfiedExpectations: boolean;
  expectedRmFinalizers: Set<string>;
  backoff?: BackoffRecord;
}

/** Pods with a finalizer, not yet counted, with a valid index for Indexed Jobs, that pass `filter` (getValidPodsWithFilter). */
function validPods(
  ctx: Pick<SyncCtx, 'job' | 'pods' | 'expectedRmFinalizers'>,
  uncounted: Set<string> | undefined,
  filter: (p: Pod) => boolean,
): Pod[] {
  const out: Pod[] = [];
  const indexed = isIndexed(ctx.job);
  const completions = completionsOf(ctx.job);
  for (const p of ctx.pods) {
    const uid = p.metadata?.uid ?? '';
    if (!hasTrackingFinalizer(p) || uncounted?.has(uid) || ctx.expectedRmFinalizers.has(uid)) continue;
    if (indexed) {
      const ix = completionIndex(p);
      if (ix < 0 || ix >= completions) continue;
    }
    if (filter(p)) out.push(p);
  }
  return out;
}

function isIndexFailed(job: Job, pod: Pod): boolean {
  let counted = false;
  if (isPodFailed(pod, job)) {
    if (job.spec?.podFailurePolicy) {
      const m = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
      if (m.action === 'FailIndex') return true;
      counted = m.countFailed;
    } else counted = true;
  }
  return counted && indexFailureCount(pod) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts of running Pods count as failures. */
export function pastBackoffLimitOnFailure(job: Job, pods: Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const s of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += s.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** The first FailJob message among the failed Pods. */
function failJobMessage(job: Job, pods: Pod[]): string | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const m = matchPodFailurePolicy(job.spec.podFailurePolicy, p).failJobMessage;
    if (m) return m;
  }
  return undefined;
}

function failureCondition(reason: string, message: string, now: number): JobCondition {
  return newCondition('FailureTarget', 'True', reason, message, now);
}

/** The first half of syncJob: counts, start time, back-off record, and whether the Job has failed or met its success policy. */
export function assess(input: SyncInput): SyncCtx {
  const job = input.job;
  const status: JobStatus = (job.status ??= {});
  status.uncountedTerminatedPods ??= {};
  const unc = status.uncountedTerminatedPods;
  const activePods = input.pods.filter(isActive);
  const ctx: SyncCtx = {
    job,
    pods: input.pods,
    activePods,
    ready: activePods.filter(isReady).length,
    terminating: input.pods.filter(isTerminating).length,
    succeeded: 0,
    failed: 0,
    uncounted: { succeeded: new Set(unc.succeeded ?? []), failed: new Set(unc.failed ?? []) },
    prevSucceededIndexes: [],
    succeededIndexes: [],
    podsWithDelayedDeletionPerIndex: new Map(),
    newBackoffRecord: { failuresAfterLastSuccess: 0 },
    expectedRmFinalizers: input.expectedRmFinalizers,
    satisfiedExpectations: input.satisfiedExpectations,
    now: input.now,
    speed: input.speed,
  };
  const newSucceeded = validPods(ctx, ctx.uncounted.succeeded, (p) => p.status?.phase === 'Succeeded');
  const newFailed = validPods(ctx, ctx.uncounted.failed, (p) => isPodFailed(p, job));
  const nonIgnored = newFailed.filter((p) => matchPodFailurePolicy(job.spec?.podFailurePolicy, p).countFailed).length;
  ctx.succeeded = (status.succeeded ?? 0) + newSucceeded.length + ctx.uncounted.succeeded.size;
  ctx.failed = (status.failed ?? 0) + nonIgnored + ctx.uncounted.failed.size;
  if (!status.startTime && !isSuspended(job)) status.startTime = metaTime(input.now);
  ctx.newBackoffRecord = nextBackoffRecord(input.backoff, newSucceeded, newFailed);

  const exceedsBackoffLimit = ctx.failed > (job.spec?.backoffLimit ?? 6);
  const scm = findCondition(job, 'SuccessCriteriaMet');
  if (scm?.status === 'True') ctx.finishedCondition = scm;
  if (!ctx.finishedCondition) {
    const target = findCondition(job, 'FailureTarget');
    const message = target?.status === 'True' ? undefined : failJobMessage(job, input.pods);
    if (target?.status === 'True')
      ctx.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', input.now);
    else if (message) ctx.finishedCondition = newCondition('FailureTarget', 'True', 'PodFailurePolicy', message, input.now);
  }
  if (!ctx.finishedCondition) {
    const ads = job.spec?.activeDeadlineSeconds;
    const started = Date.parse(status.startTime ?? '');
    if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, input.pods)) {
      ctx.finishedCondition = failureCondition('BackoffLimitExceeded', 'Job has reached the specified backoff limit', input.now);
    } else if (typeof ads === 'number' && Number.isFinite(started) && !isSuspended(job)) {
      const left = started + (ads * 1000) / input.speed - input.now;
      if (left <= 0)
        ctx.finishedCondition = failureCondition('DeadlineExceeded', 'Job was active longer than specified deadline', input.now);
      else ctx.deadlineRequeueMs = left;
    }
  }
  if (isIndexed(job)) {
    const completions = completionsOf(job);
    ctx.prevSucceededIndexes = parse(status.completedIndexes, completions);
    const fresh = new Set<number>();
    for (const p of input.pods) {
      const ix = completionIndex(p);
      if (p.status?.phase === 'Succeeded' && ix >= 0 && ix < completions && hasTrackingFinalizer(p)) fresh.add(ix);
    }
    ctx.succeededIndexes = withIndexes(
      ctx.prevSucceededIndexes,
      [...fresh].sort((a, b) => a - b),
    );
    ctx.succeeded = total(ctx.succeededIndexes);
    if (hasBackoffLimitPerIndex(job)) {
      const prevFailed =
        status.failedIndexes !== undefined && status.failedIndexes !== null ? parse(status.failedIndexes, completions) : [];
      const failedNow = new Set<number>();
      for (const p of input.pods) {
        const ix = completionIndex(p);
        if (ix >= 0 && ix < completions && hasTrackingFinalizer(p) && isIndexFailed(job, p)) failedNow.add(ix);
      }
      ctx.failedIndexes = withIndexes(
        prevFailed,
        [...failedNow].sort((a, b) => a - b),
      );
      if (!ctx.finishedCondition) {
        const failedTotal = total(ctx.failedIndexes);
        const max = job.spec?.maxFailedIndexes;
        if (typeof max === 'number' && failedTotal > max) {
          ctx.finishedCondition = failureCondition(
            'MaxFailedIndexesExceeded',
            'Job has exceeded the specified maximal number of failed indexes',
            input.now,
          );
        } else if (failedTotal > 0 && failedTotal + total(ctx.succeededIndexes) >= completions) {
          ctx.finishedCondition = failureCondition('FailedIndexes', 'Job has failed indexes', input.now);
        }
      }
      ctx.podsWithDelayedDeletionPerIndex = delayedDeletionPerIndex(ctx);
    }
    if (!ctx.finishedCondition) {
      const msg = matchSuccessPolicy(job.spec?.successPolicy, completions, ctx.succeededIndexes);
      if (msg) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', 'SuccessPolicy', msg, input.now);
    }
  }
  return ctx;
}

/** getPodsWithDelayedDeletionPerIndex: per index still pending, the last failed Pod, kept until its replacement carries its failure count. */
function delayedDeletionPerIndex(ctx: SyncCtx): Map<number, Pod> {
  const active = new Set(indexesOf(ctx.activePods));
  const out = new Map<number, Pod>();
  validPods(ctx, undefined, (p) => {
    if (!isPodFailed(p, ctx.job)) return false;
    const ix = completionIndex(p);
    if (has(ctx.succeededIndexes, ix) || has(ctx.failedIndexes, ix) || active.has(ix)) return false;
    const prev = out.get(ix);
    if (!prev || (indexAbsoluteFailureCount(prev) <= indexAbsoluteFailureCount(p) && finishedTime(p) >= finishedTime(prev))) out.set(ix, p);
    return false;
  });
  return out;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** controller.ActivePods order: the Pods least worth keeping first. */
export function byRemovalOrder(a: Pod, b: Pod): number {
  const assigned = (p: Pod) => (p.spec?.nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: Pod) => PHASE_RANK[p.status?.phase ?? ''] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: Pod) => (isReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const readySince = (p: Pod) => Date.parse(p.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '') || 0;
  if (ready(a) && ready(b) && readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
  const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const created = (p: Pod) => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;
  return created(b) - created(a);
}

/** activePodsForRemoval: duplicated, unindexed and out-of-range indexes first (Indexed Jobs), then kube's order. */
export function activePodsForRemoval(job: Job, pods: Pod[], rmAtLeast: number): Pod[] {
  const rm: Pod[] = [];
  let left: Pod[] = pods;
  if (isIndexed(job)) {
    left = [];
    const completions = completionsOf(job);
    const groups = new Map<number, Pod[]>();
    for (const p of pods) {
      const ix = completionIndex(p);
      if (ix < 0 || ix >= completions) rm.push(p);
      else groups.set(ix, [...(groups.get(ix) ?? []), p]);
    }
    for (const ix of [...groups.keys()].sort((a, b) => a - b)) {
      const same = groups.get(ix)!.sort(byRemovalOrder);
      rm.push(...same.slice(0, -1));
      left.push(same[same.length - 1]);
    }
  }
  if (rm.length < rmAtLeast) rm.push(...[...left].sort(byRemovalOrder).slice(0, rmAtLeast - rm.length));
  return rm;
}

/** What manageJob decided. */
export type ManageAction =
  | { kind: 'none' }
  /** Delete these Pods, removing their tracking finalizer first (deleteJobPods). */
  | { kind: 'delete'; pods: Pod[] }
  /** Create `count` Pods; for Indexed Jobs, one per index listed. */
  | { kind: 'create'; count: number; indexes?: number[] }
  /** The back-off still holds: status.active reads 0 this sync (as kube's manageJob returns), look again later. */
  | { kind: 'wait'; delayMs: number };

/** manageJob: the Pods to delete or create so that the active Pods match parallelism and the completions left. */
export function manage(ctx: SyncCtx): ManageAction {
  const job = ctx.job;
  const active = ctx.activePods.length;
  if (isSuspended(job))
    return ctx.activePods.length ? { kind: 'delete', pods: activePodsForRemoval(job, ctx.activePods, active) } : { kind: 'none' };
  const parallelism = job.spec?.parallelism ?? 1;
  let wantActive: number;
  if (job.spec?.completions === undefined || job.spec.completions === null) wantActive = ctx.succeeded > 0 ? active : parallelism;
  else wantActive = Math.max(0, Math.min(job.spec.completions - ctx.succeeded, parallelism));
  const rmAtLeast = Math.max(0, active - wantActive);
  const victims = activePodsForRemoval(job, ctx.activePods, rmAtLeast).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (victims.length > 0) return { kind: 'delete', pods: victims };
  const terminating = onlyReplaceFailedPods(job) ? ctx.terminating : 0;
  let diff = wantActive - terminating - active;
  if (diff <= 0) return { kind: 'none' };
  if (!hasBackoffLimitPerIndex(job)) {
    const wait = backoffRemaining(ctx.newBackoffRecord.failuresAfterLastSuccess, ctx.newBackoffRecord.lastFailureTime, ctx.now, ctx.speed);
    if (wait > 0) return { kind: 'wait', delayMs: wait };
  }
  diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (!isIndexed(job)) return { kind: 'create', count: diff };
  let nonPending = withIndexes(ctx.succeededIndexes, indexesOf(ctx.activePods));
  if (onlyReplaceFailedPods(job)) nonPending = withIndexes(nonPending, indexesOf(ctx.pods.filter(isTerminating)));
  if (ctx.failedIndexes) nonPending = merge(nonPending, ctx.failedIndexes);
  let indexes = firstPending(nonPending, diff, completionsOf(job));
  if (hasBackoffLimitPerIndex(job)) {
    const now: number[] = [];
    let soonest: number | undefined;
    for (const ix of indexes) {
      const wait = indexBackoffRemaining(ctx.podsWithDelayedDeletionPerIndex.get(ix), ctx.now, ctx.speed);
      if (wait === 0) now.push(ix);
      else soonest = soonest === undefined ? wait : Math.min(soonest, wait);
    }
    if (now.length === 0 && soonest !== undefined) return { kind: 'wait', delayMs: soonest };
    indexes = now;
  }
  return indexes.length ? { kind: 'create', count: indexes.length, indexes } : { kind: 'none' };
}

/** The Pod a Job creates (for one index, when given), as kube's GetPodFromTemplate and the indexed additions make it. */
export function podForJob(job: Job, index?: number, replaced?: Pod): Pod {
  const t: PodTemplateSpec = structuredClone(job.spec?.template ?? {});
  const meta = job.metadata!;
  const spec = t.spec ?? { containers: [] };
  const labels: Record<string, string> = { ...t.metadata?.labels };
  const annotations: Record<string, string> = { ...t.metadata?.annotations };
  const finalizers = [...(t.metadata?.finalizers ?? [])];
  if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER);
  let generateName = `${meta.name}-`;
  if (index !== undefined) {
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      c.env ??= [];
      if (!c.env.some((e) => e.name === COMPLETION_INDEX_ENV)) {
        c.env.push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX_KEY}']` } } });
      }
    }
    annotations[COMPLETION_INDEX_KEY] = String(index);
    labels[COMPLETION_INDEX_KEY] = String(index);
    spec.hostname = `${meta.name}-${index}`;
    generateName = generateNameWithIndex(meta.name!, index);
    if (hasBackoffLimitPerIndex(job)) {
      const counts = nextIndexFailureCounts(job, replaced);
      annotations[INDEX_FAILURE_COUNT_KEY] = String(counts.counted);
      if (counts.ignored > 0) annotations[INDEX_IGNORED_FAILURE_COUNT_KEY] = String(counts.ignored);
    }
  }
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName,
      namespace: meta.namespace,
      labels,
      finalizers,
      ownerReferences: [controllerRef({ metadata: { name: meta.name!, uid: meta.uid! } }, 'batch/v1', 'Job')],
    },
    spec,
  };
  if (Object.keys(annotations).length) pod.metadata!.annotations = annotations;
  return pod;
}

/** A Job event to record. */
export interface JobEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * ensureJobConditionStatus: sets the condition of `type` (a new one is not
 * added as False); true when the list changed.
 */
export function ensureCondition(job: Job, type: string, status: string, reason: string, message: string, now: number): boolean {
  const list = (job.status ??= {}).conditions ?? [];
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = list[i];
    if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message) return false;
    list[i] = newCondition(type, status, reason, message, now);
    job.status.conditions = list;
    return true;
  }
  if (status === 'False') return false;
  job.status.conditions = [...list, newCondition(type, status, reason, message, now)];
  return true;
}

/**
 * After manageJob ran (or was skipped): the Job is complete when enough Pods
 * succeeded and none is active; otherwise, when manageJob ran, the Suspended
 * condition follows spec.suspend (resuming resets startTime). Returns the
 * events to record and whether a condition changed.
 */
export function afterManage(ctx: SyncCtx, active: number, manageCalled: boolean): { events: JobEvent[]; changed: boolean } {
  const job = ctx.job;
  const completions = job.spec?.completions;
  const complete =
    completions === undefined || completions === null ? ctx.succeeded > 0 && active === 0 : ctx.succeeded >= completions && active === 0;
  if (complete) {
    ctx.finishedCondition = newCondition(
      'SuccessCriteriaMet',
      'True',
      'CompletionsReached',
      'Reached expected number of succeeded pods',
      ctx.now,
    );
    return { events: [], changed: false };
  }
  if (!manageCalled) return { events: [], changed: false };
  if (isSuspended(job)) {
    if (ensureCondition(job, 'Suspended', 'True', 'JobSuspended', 'Job suspended', ctx.now))
      return { events: [{ type: 'Normal', reason: 'Suspended', message: 'Job suspended' }], changed: true };
  } else if (ensureCondition(job, 'Suspended', 'False', 'JobResumed', 'Job resumed', ctx.now)) {
    job.status!.startTime = metaTime(ctx.now);
    return { events: [{ type: 'Normal', reason: 'Resumed', message: 'Job resumed' }], changed: true };
  }
  return { events: [], changed: false };
}

/** What trackStatus decided: the status to flush first and the finalizers to remove after. */
export interface TrackPlan {
  podsToRemoveFinalizer: Pod[];
  uidsWithFinalizer: Set<string>;
  needsFlush: boolean;
  reachedMaxUncounted: boolean;
}

function canRemoveFinalizer(ctx: SyncCtx, pod: Pod, consideredFailed: boolean): boolean {
  if (ctx.job.metadata?.deletionTimestamp || ctx.finishedCondition || pod.status?.phase === 'Succeeded') return true;
  if (!consideredFailed) return false;
  if (hasBackoffLimitPerIndex(ctx.job)) {
    const ix = completionIndex(pod);
    const held = ix >= 0 ? ctx.podsWithDelayedDeletionPerIndex.get(ix) : undefined;
    if (held && held.metadata?.uid === pod.metadata?.uid) return false;
  }
  return true;
}

/**
 * The first half of trackJobStatusAndRemoveFinalizers: finished Pods go into
 * status.uncountedTerminatedPods (Indexed Jobs: their index into
 * completedIndexes), the interim FailureTarget / SuccessCriteriaMet
 * condition is added, and ctx.finishedCondition becomes the final Failed /
 * Complete one. Mutates ctx.job.status.
 */
export function trackStatus(ctx: SyncCtx, needsFlushIn: boolean): TrackPlan {
  const job = ctx.job;
  const status = job.status!;
  const unc = (status.uncountedTerminatedPods ??= {});
  const indexed = isIndexed(job);
  const completions = completionsOf(job);
  let needsFlush = needsFlushIn;
  const pods = indexed ? [...ctx.pods].sort((a, b) => completionIndex(a) - completionIndex(b)) : ctx.pods;
  const uidsWithFinalizer = new Set<string>();
  for (const p of pods) {
    const uid = p.metadata?.uid ?? '';
    if (hasTrackingFinalizer(p) && !ctx.expectedRmFinalizers.has(uid)) uidsWithFinalizer.add(uid);
  }
  if (cleanUncounted(status, uidsWithFinalizer)) needsFlush = true;
  const podsToRemoveFinalizer: Pod[] = [];
  const newSucceededIndexes: number[] = [];
  let reachedMaxUncounted = false;
  const terminal = ctx.finishedCondition && ctx.finishedCondition.type !== 'SuccessCriteriaMet';
  for (const p of pods) {
    const uid = p.metadata?.uid ?? '';
    if (!hasTrackingFinalizer(p) || ctx.expectedRmFinalizers.has(uid)) continue;
    const failed = isPodFailed(p, job);
    if (!canRemoveFinalizer(ctx, p, failed)) continue;
    podsToRemoveFinalizer.push(p);
    if (p.status?.phase === 'Succeeded' && !ctx.uncounted.failed.has(uid)) {
      if (indexed) {
        const ix = completionIndex(p);
        if (ix >= 0 && ix < completions && !has(ctx.prevSucceededIndexes, ix)) {
          newSucceededIndexes.push(ix);
          needsFlush = true;
        }
      } else if (!ctx.uncounted.succeeded.has(uid)) {
        needsFlush = true;
        unc.succeeded = [...(unc.succeeded ?? []), uid];
      }
    } else if (failed || terminal) {
      const ix = completionIndex(p);
      if (!ctx.uncounted.failed.has(uid) && (!indexed || (ix >= 0 && ix < completions))) {
        if (matchPodFailurePolicy(job.spec?.podFailurePolicy, p).countFailed) {
          needsFlush = true;
          unc.failed = [...(unc.failed ?? []), uid];
        }
      }
    }
    if (newSucceededIndexes.length + (unc.succeeded?.length ?? 0) + (unc.failed?.length ?? 0) >= MAX_UNCOUNTED_PODS) {
      reachedMaxUncounted = true;
      break;
    }
  }
  if (indexed) {
    ctx.succeededIndexes = withIndexes(
      ctx.succeededIndexes,
      [...new Set(newSucceededIndexes)].sort((a, b) => a - b),
    );
    const text = format(ctx.succeededIndexes);
    if (text !== (status.completedIndexes ?? '')) needsFlush = true;
    status.succeeded = total(ctx.succeededIndexes);
    if (text) status.completedIndexes = text;
    else delete status.completedIndexes;
    const failedText = ctx.failedIndexes ? format(ctx.failedIndexes) : undefined;
    if (failedText !== status.failedIndexes) {
      if (failedText === undefined) delete status.failedIndexes;
      else status.failedIndexes = failedText;
      needsFlush = true;
    }
  }
  const fc = ctx.finishedCondition;
  if (fc?.type === 'FailureTarget') {
    status.conditions = [...(status.conditions ?? []), fc];
    needsFlush = true;
    ctx.finishedCondition = newCondition('Failed', 'True', fc.reason ?? '', fc.message ?? '', ctx.now);
  } else if (fc?.type === 'SuccessCriteriaMet' && fc.status === 'True') {
    if (findCondition(job, 'SuccessCriteriaMet')?.status !== 'True') {
      status.conditions = [...(status.conditions ?? []), fc];
      needsFlush = true;
    }
    ctx.finishedCondition = newCondition('Complete', 'True', fc.reason ?? '', fc.message ?? '', ctx.now);
  }
  return { podsToRemoveFinalizer, uidsWithFinalizer, needsFlush, reachedMaxUncounted };
}

/** cleanUncountedPodsWithoutFinalizers: uids whose Pod lost its finalizer leave the lists and join the counters. */
export function cleanUncounted(status: JobStatus, uidsWithFinalizer: Set<string>): boolean {
  const unc = (status.uncountedTerminatedPods ??= {});
  let changed = false;
  const keepS = (unc.succeeded ?? []).filter((u) => uidsWithFinalizer.has(u));
  if (keepS.length !== (unc.succeeded ?? []).length) {
    changed = true;
    status.succeeded = (status.succeeded ?? 0) + (unc.succeeded!.length - keepS.length);
    if (keepS.length) unc.succeeded = keepS;
    else delete unc.succeeded;
  }
  const keepF = (unc.failed ?? []).filter((u) => uidsWithFinalizer.has(u));
  if (keepF.length !== (unc.failed ?? []).length) {
    changed = true;
    status.failed = (status.failed ?? 0) + (unc.failed!.length - keepF.length);
    if (keepF.length) unc.failed = keepF;
    else delete unc.failed;
  }
  return changed;
}

/**
 * enactJobFinished: once no uid waits uncounted and no Pod is terminating,
 * the final condition goes in (Complete also sets completionTime). Returns
 * whether the Job finished, and the events to record once that is written.
 */
export function enactFinished(ctx: SyncCtx): { finished: boolean; events: JobEvent[] } {
  const fc = ctx.finishedCondition;
  if (!fc) return { finished: false, events: [] };
  const job = ctx.job;
  const unc = job.status?.uncountedTerminatedPods;
  if ((unc?.succeeded?.length ?? 0) + (unc?.failed?.length ?? 0) > 0) return { finished: false, events: [] };
  if (ctx.terminating > 0) return { finished: false, events: [] };
  ensureCondition(job, fc.type, fc.status, fc.reason ?? '', fc.message ?? '', ctx.now);
  const events: JobEvent[] = [];
  if (fc.type === 'Complete') {
    job.status!.completionTime = fc.lastTransitionTime;
    const completions = job.spec?.completions;
    if (typeof completions === 'number' && (job.status!.succeeded ?? 0) > completions) {
      events.push({
        type: 'Warning',
        reason: 'TooManySucceededPods',
        message: 'Too many succeeded pods running after completion count reached',
      });
    }
    events.push({ type: 'Normal', reason: 'Completed', message: 'Job completed' });
  } else events.push({ type: 'Warning', reason: fc.reason ?? '', message: fc.message ?? '' });
  return { finished: true, events };
}

/** The status fields syncJob sets before tracking: true when they changed. */
export function setCounts(ctx: SyncCtx, active: number): boolean {
  const s = ctx.job.status!;
  const changed = active !== (s.active ?? 0) || s.ready !== ctx.ready || s.terminating !== ctx.terminating;
  if (active) s.active = active;
  else delete s.active;
  s.ready = ctx.ready;
  s.terminating = ctx.terminating;
  return changed;
}
