// The Job's rules about single Pods, as kube's pod_failure_policy.go,
// success_policy.go and backoff_utils.go have them: which rule a failed Pod
// matches (and the FailJob message), whether the succeeded indexes meet the
// success policy, when a Pod finished, and how long the exponential back-off
// still holds back a replacement (10 s doubling, capped; on the cluster
// clock, so --speed shortens it).
import type { Job, PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { INDEX_FAILURE_COUNT_KEY, INDEX_IGNORED_FAILURE_COUNT_KEY, parse, total, type Intervals } from './indexes.ts';

/** kube's DefaultJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
/** kube's MaxJobPodFailureBackOff (job_controller.go). */
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

export type FailureAction = 'FailJob' | 'Ignore' | 'Count' | 'FailIndex';

/** What the pod failure policy says of one failed Pod. */
export interface PolicyMatch {
  /** The Job's failure message, for a FailJob rule. */
  failJobMessage?: string;
  /** False when an Ignore rule matched: the failure does not count against any limit. */
  countFailed: boolean;
  action?: FailureAction;
}

function exitCodeMatches(code: number, req: PodFailurePolicyOnExitCodesRequirement): boolean {
  if (req.operator === 'In') return req.values.includes(code);
  if (req.operator === 'NotIn') return !req.values.includes(code);
  return false;
}

function matchingContainer(
  statuses: ContainerStatus[] | undefined,
  req: PodFailurePolicyOnExitCodesRequirement,
): ContainerStatus | undefined {
  for (const s of statuses ?? []) {
    const t = s.state?.terminated;
    if (!t) continue;
    if (req.containerName && req.containerName !== s.name) continue;
    if (t.exitCode !== 0 && exitCodeMatches(t.exitCode, req)) return s;
  }
  return undefined;
}

/** matchPodFailurePolicy: the first rule the failed Pod matches decides. */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PolicyMatch {
  if (!policy) return { countFailed: true };
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const s =
        matchingContainer(pod.status?.containerStatuses, rule.onExitCodes) ??
        matchingContainer(pod.status?.initContainerStatuses, rule.onExitCodes);
      if (!s) continue;
      failJobMessage = `Container ${s.name} for pod ${ns}/${name} failed with exit code ${s.state!.terminated!.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const c = (pod.status?.conditions ?? []).find((pc) =>
        rule.onPodConditions!.some((p) => p.type === pc.type && (p.status ?? 'True') === pc.status),
      );
      if (!c) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${c.type} matching ${rule.action} rule at index ${index}`;
    } else continue;
    switch (rule.action) {
      case 'Ignore':
        return { countFailed: false, action: 'Ignore' };
      case 'FailIndex':
        return { countFailed: true, action: 'FailIndex' };
      case 'Count':
        return { countFailed: true, action: 'Count' };
      case 'FailJob':
        return { failJobMessage, countFailed: true, action: 'FailJob' };
    }
    // An unknown action falls through to the next rule, as Go's switch without a match does.
  }
  return { countFailed: true };
}

/** onlyReplaceFailedPods: podReplacementPolicy Failed (always so with a pod failure policy). */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === 'Failed' || !!job.spec?.podFailurePolicy;
}

/** isPodFailed: Failed, or (unless only failed Pods are replaced) deleted before it succeeded. */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

/** matchSuccessPolicy: the message "Matched rules at index N" of the first rule met, if any. */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: Intervals): string | undefined {
  if (!policy || succeeded.length === 0) return undefined;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    if (rule.succeededIndexes !== undefined && rule.succeededIndexes !== null) {
      const required = parse(rule.succeededIndexes, completions);
      if (required.length === 0) continue;
      if (succeededIndexesRuleMet(required, succeeded, rule.succeededCount)) return `Matched rules at index ${index}`;
    } else if (typeof rule.succeededCount === 'number' && total(succeeded) >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}

function succeededIndexesRuleMet(rule: Intervals, succeeded: Intervals, count: number | undefined): boolean {
  let contains = 0;
  let s = 0;
  let r = 0;
  while (r < rule.length && s < succeeded.length) {
    const overlap = Math.min(rule[r].last, succeeded[s].last) - Math.max(rule[r].first, succeeded[s].first) + 1;
    if (overlap > 0) contains += overlap;
    if (succeeded[s].last < rule[r].last) s++;
    else if (succeeded[s].last > rule[r].last) r++;
    else {
      s++;
      r++;
    }
  }
  return contains === total(rule) || (typeof count === 'number' && contains >= count);
}

const ms = (t: string | undefined): number | undefined => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isFinite(v) ? v : undefined;
};

/** getFinishedTime: the last container's finish, else Ready=False's transition, else deletion minus grace, else creation. */
export function finishedTime(pod: Pod): number {
  const statuses = pod.status?.containerStatuses ?? [];
  let fromContainers: number | undefined;
  let complete = statuses.length > 0;
  for (const s of statuses) {
    const at = ms(s.state?.terminated?.finishedAt);
    if (at === undefined) {
      complete = false;
      break;
    }
    fromContainers = fromContainers === undefined ? at : Math.max(fromContainers, at);
  }
  if (complete && fromContainers !== undefined) return fromContainers;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const readyAt = ready?.status === 'False' ? ms(ready.lastTransitionTime) : undefined;
  if (readyAt !== undefined) return readyAt;
  const deleted = ms(pod.metadata?.deletionTimestamp);
  if (deleted !== undefined) return deleted - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return ms(pod.metadata?.creationTimestamp) ?? 0;
}

/** What the controller remembers of a Job's recent failures (kube's backoffRecord, kept in memory). */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/** newBackoffRecord: the record after this sync's newly finished Pods. */
export function nextBackoffRecord(old: BackoffRecord | undefined, newSucceeded: Pod[], newFailed: Pod[]): BackoffRecord {
  const rec: BackoffRecord = { failuresAfterLastSuccess: old?.failuresAfterLastSuccess ?? 0, lastFailureTime: old?.lastFailureTime };
  const failedTimes = newFailed.map(finishedTime).sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    if (failedTimes.length === 0) return rec;
    return {
      failuresAfterLastSuccess: rec.failuresAfterLastSuccess + failedTimes.length,
      lastFailureTime: failedTimes[failedTimes.length - 1],
    };
  }
  const lastSuccess = Math.max(...newSucceeded.map(finishedTime));
  const out: BackoffRecord = { failuresAfterLastSuccess: 0 };
  for (let i = failedTimes.length - 1; i >= 0 && failedTimes[i] > lastSuccess; i--) {
    if (out.lastFailureTime === undefined) out.lastFailureTime = failedTimes[i];
    out.failuresAfterLastSuccess++;
  }
  return out;
}

/** How long (ms of real time) the back-off after `failures` consecutive failures still holds; 0 when it is over. */
export function backoffRemaining(failures: number, lastFailureTime: number | undefined, now: number, speed = 1): number {
  if (failures <= 0 || lastFailureTime === undefined) return 0;
  let d = POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < failures; i++) {
    d *= 2;
    if (d >= MAX_POD_FAILURE_BACKOFF_MS) {
      d = MAX_POD_FAILURE_BACKOFF_MS;
      break;
    }
  }
  const wait = d / speed;
  const elapsed = now - lastFailureTime;
  return wait < elapsed ? 0 : wait - elapsed;
}

function annotationInt(pod: Pod, key: string): number {
  const v = pod.metadata?.annotations?.[key];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n < 0 || n > 2147483647 ? 0 : n;
}

/** The failures counted so far against the Pod's index. */
export function indexFailureCount(pod: Pod): number {
  return annotationInt(pod, INDEX_FAILURE_COUNT_KEY);
}

/** Counted and ignored failures of the Pod's index. */
export function indexAbsoluteFailureCount(pod: Pod): number {
  return annotationInt(pod, INDEX_FAILURE_COUNT_KEY) + annotationInt(pod, INDEX_IGNORED_FAILURE_COUNT_KEY);
}

/** The failure-count annotations the replacement of `replaced` starts with. */
export function nextIndexFailureCounts(job: Job, replaced: Pod | undefined): { counted: number; ignored: number } {
  if (!replaced) return { counted: 0, ignored: 0 };
  let counted = annotationInt(replaced, INDEX_FAILURE_COUNT_KEY);
  let ignored = annotationInt(replaced, INDEX_IGNORED_FAILURE_COUNT_KEY);
  if (job.spec?.podFailurePolicy && !matchPodFailurePolicy(job.spec.podFailurePolicy, replaced).countFailed) ignored++;
  else counted++;
  return { counted, ignored };
}

/** The back-off still holding the replacement of an index's last failed Pod. */
export function indexBackoffRemaining(lastFailed: Pod | undefined, now: number, speed = 1): number {
  if (!lastFailed) return 0;
  return backoffRemaining(indexAbsoluteFailureCount(lastFailed) + 1, finishedTime(lastFailed), now, speed);
}
