// How kube's HPA controller tempers a desired replica count (horizontal.go):
// the recommendations of the last stabilization window (scale down only to
// the highest of them; with a behavior, scale up only to the lowest of its
// scale-up window), then the rate limits: without a behavior at most
// max(2 x current, 4) up, with one the scaleUp/scaleDown policies over the
// scale events of their periods. Pure functions over an explicit per-HPA
// memory, so tables can drive them with a fake clock.
import type { HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';

/** A recommendation made at `at` (ms). */
export interface Recommendation {
  replicas: number;
  at: number;
}

/** A rescale by `change` replicas at `at`; `outdated` once older than every policy's period. */
export interface ScaleEvent {
  change: number;
  at: number;
  outdated: boolean;
}

/** What the controller remembers about one HPA between syncs. */
export interface HPAMemory {
  recommendations: Recommendation[];
  scaleUpEvents: ScaleEvent[];
  scaleDownEvents: ScaleEvent[];
}

/** A condition the normalization sets: its reason and message (status True or False decided by the caller). */
export interface Verdict {
  reason: string;
  message: string;
}

export const newMemory = (): HPAMemory => ({ recommendations: [], scaleUpEvents: [], scaleDownEvents: [] });

/** recordInitialRecommendation: the first sync remembers the current size. */
export function recordInitialRecommendation(mem: HPAMemory, currentReplicas: number, now: number): void {
  if (mem.recommendations.length === 0) mem.recommendations.push({ replicas: currentReplicas, at: now });
}

/** Records `replicas` at `now`, reusing the slot of a sample older than every window (as kube does). */
function record(mem: HPAMemory, replicas: number, now: number, oldIndex: number): void {
  if (oldIndex >= 0) mem.recommendations[oldIndex] = { replicas, at: now };
  else mem.recommendations.push({ replicas, at: now });
}

/** stabilizeRecommendation (no behavior): the highest recommendation of the downscale window. */
export function stabilizeRecommendation(mem: HPAMemory, desired: number, now: number, downscaleWindowMs: number): number {
  let max = desired;
  let oldIndex = -1;
  const cutoff = now - downscaleWindowMs;
  mem.recommendations.forEach((r, i) => {
    if (r.at < cutoff) oldIndex = i;
    else if (r.replicas > max) max = r.replicas;
  });
  record(mem, desired, now, oldIndex);
  return max;
}

/** calculateScaleUpLimit: max(2 x current, 4). */
export const scaleUpLimit = (current: number): number => Math.max(2 * current, 4);

/** convertDesiredReplicasWithRules (no behavior): within [min, max] and the scale-up limit. */
export function limitWithRules(current: number, desired: number, min: number, max: number): { replicas: number } & Verdict {
  const limit = scaleUpLimit(current);
  let maximum: number;
  let verdict: Verdict;
  if (max > limit) {
    maximum = limit;
    verdict = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
  } else {
    maximum = max;
    verdict = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
  }
  if (desired < min)
    return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desired > maximum) return { replicas: maximum, ...verdict };
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}

/** The rules the controller runs with: scaleDown's window defaults to --horizontal-pod-autoscaler-downscale-stabilization. */
export interface Behavior {
  scaleUp: HPAScalingRules;
  scaleDown: HPAScalingRules;
}

/** stabilizeRecommendationWithBehaviors: between the lowest recent (scale-up window) and the highest recent (scale-down window). */
export function stabilizeWithBehavior(
  mem: HPAMemory,
  current: number,
  desired: number,
  behavior: Behavior,
  now: number,
  secondMs: number,
): { replicas: number } & Verdict {
  let up = desired;
  let down = desired;
  const upCutoff = now - (behavior.scaleUp.stabilizationWindowSeconds ?? 0) * secondMs;
  const downCutoff = now - (behavior.scaleDown.stabilizationWindowSeconds ?? 0) * secondMs;
  let oldIndex = -1;
  mem.recommendations.forEach((r, i) => {
    if (r.at > upCutoff) up = Math.min(r.replicas, up);
    if (r.at > downCutoff) down = Math.max(r.replicas, down);
    if (r.at < upCutoff && r.at < downCutoff) oldIndex = i;
  });
  let replicas = current;
  if (replicas < up) replicas = up;
  if (replicas > down) replicas = down;
  record(mem, desired, now, oldIndex);
  if (desired >= current)
    return {
      replicas,
      reason: 'ScaleUpStabilized',
      message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
    };
  return {
    replicas,
    reason: 'ScaleDownStabilized',
    message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
  };
}

/** getReplicasChangePerPeriod: the replicas added (or removed) by events newer than the period. */
function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number, secondMs: number): number {
  const cutoff = now - periodSeconds * secondMs;
  return events.filter((e) => e.at > cutoff).reduce((n, e) => n + e.change, 0);
}

/** calculateScaleUpLimitWithScalingRules. */
export function scaleUpLimitWithRules(current: number, mem: HPAMemory, rules: HPAScalingRules, now: number, secondMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules.policies ?? []) {
    const added = changeInPeriod(p.periodSeconds, mem.scaleUpEvents, now, secondMs);
    const removed = changeInPeriod(p.periodSeconds, mem.scaleDownEvents, now, secondMs);
    const start = current - added + removed;
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors. */
export function scaleDownLimitWithRules(current: number, mem: HPAMemory, rules: HPAScalingRules, now: number, secondMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // The smallest change (Min) is the highest count.
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules.policies ?? []) {
    const added = changeInPeriod(p.periodSeconds, mem.scaleUpEvents, now, secondMs);
    const removed = changeInPeriod(p.periodSeconds, mem.scaleDownEvents, now, secondMs);
    const start = current - added + removed;
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** convertDesiredReplicasWithBehaviorRate. */
export function limitWithBehavior(
  mem: HPAMemory,
  current: number,
  desired: number,
  min: number,
  max: number,
  behavior: Behavior,
  now: number,
  secondMs: number,
): { replicas: number } & Verdict {
  if (desired > current) {
    const limit = Math.max(scaleUpLimitWithRules(current, mem, behavior.scaleUp, now, secondMs), current);
    if (max > limit) {
      if (desired > limit)
        return {
          replicas: limit,
          reason: 'ScaleUpLimit',
          message: 'the desired replica count is increasing faster than the maximum scale rate',
        };
    } else if (desired > max)
      return { replicas: max, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
  } else if (desired < current) {
    const limit = Math.min(scaleDownLimitWithRules(current, mem, behavior.scaleDown, now, secondMs), current);
    if (min < limit) {
      if (desired < limit)
        return {
          replicas: limit,
          reason: 'ScaleDownLimit',
          message: 'the desired replica count is decreasing faster than the maximum scale rate',
        };
    } else if (desired < min)
      return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  }
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}

/** storeScaleEvent: remembers a rescale for the policies' periods (only with a behavior). */
export function storeScaleEvent(
  mem: HPAMemory,
  behavior: Behavior | undefined,
  prev: number,
  next: number,
  now: number,
  secondMs: number,
): void {
  if (!behavior) return;
  const up = next > prev;
  const rules = up ? behavior.scaleUp : behavior.scaleDown;
  const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds));
  const events = up ? mem.scaleUpEvents : mem.scaleDownEvents;
  const cutoff = now - longest * secondMs;
  for (const e of events) if (e.at < cutoff) e.outdated = true;
  const event: ScaleEvent = { change: Math.abs(next - prev), at: now, outdated: false };
  const slot = events.findIndex((e) => e.outdated);
  if (slot >= 0) events[slot] = event;
  else events.push(event);
}
