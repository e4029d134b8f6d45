// Completion indexes of Indexed Jobs, as kube's indexed_job_utils keeps
// them: sorted, merged intervals ("1,3-5,7") for status.completedIndexes and
// failedIndexes, the index a Pod carries in its annotation, and the lowest
// indexes that still need a Pod.
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The annotation (and label) naming a Pod's completion index. */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
/** Failures counted against backoffLimitPerIndex so far, carried from a failed Pod to its replacement. */
export const INDEX_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-failure-count';
/** Failures an Ignore rule did not count, carried the same way. */
export const INDEX_IGNORED_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** The env var the Pod's containers read their index from. */
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** One closed interval of indexes. */
export interface Interval {
  first: number;
  last: number;
}

/** Sorted, non-overlapping, non-adjacent intervals. */
export type Intervals = Interval[];

/** The Pod's completion index, or -1 when it has none (or a bad one). */
export function completionIndex(pod: Pod): number {
  const v = pod.metadata?.annotations?.[COMPLETION_INDEX_KEY];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return -1;
  const n = Number(v);
  return n >= 0 && Number.isSafeInteger(n) ? n : -1;
}

/** The number of indexes covered. */
export function total(iv: Intervals): number {
  let n = 0;
  for (const i of iv) n += i.last - i.first + 1;
  return n;
}

/** True when `ix` is covered. */
export function has(iv: Intervals | undefined, ix: number): boolean {
  if (!iv) return false;
  let lo = 0;
  let hi = iv.length;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    if (iv[mid].last >= ix) hi = mid;
    else lo = mid + 1;
  }
  return hi < iv.length && iv[hi].first <= ix;
}

/** The union of two interval lists. */
export function merge(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  const push = (x: Interval) => {
    const last = out[out.length - 1];
    if (!last || x.first > last.last + 1) out.push({ ...x });
    else if (last.last < x.last) last.last = x.last;
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) push(a[i].first < b[j].first ? a[i++] : b[j++]);
  while (i < a.length) push(a[i++]);
  while (j < b.length) push(b[j++]);
  return out;
}

/** `iv` plus the indexes `sorted` (ascending). */
export function withIndexes(iv: Intervals, sorted: number[]): Intervals {
  return merge(
    iv,
    sorted.map((n) => ({ first: n, last: n })),
  );
}

/** kube's text form: "0-2,4,6,7" (two adjacent indexes are listed, three or more are a range). */
export function format(iv: Intervals): string {
  return iv.map((i) => (i.last === i.first ? `${i.first}` : `${i.first}${i.last === i.first + 1 ? ',' : '-'}${i.last}`)).join(',');
}

/** Parses kube's text form, dropping what lies at or past `completions` and skipping corrupted parts. */
export function parse(text: string | undefined, completions: number): Intervals {
  if (!text) return [];
  const out: Intervals = [];
  for (const part of text.split(',')) {
    const limits = part.split('-');
    const first = goAtoi(limits[0]);
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const l = goAtoi(limits[1]);
      if (l === undefined) continue;
      last = Math.min(l, completions - 1);
    }
    const prev = out[out.length - 1];
    if (prev && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return out;
}

function goAtoi(s: string | undefined): number | undefined {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return undefined;
  return Number(s);
}

/** The distinct indexes of `pods`, ascending. */
export function indexesOf(pods: Pod[]): number[] {
  const set = new Set<number>();
  for (const p of pods) {
    const ix = completionIndex(p);
    if (ix >= 0) set.add(ix);
  }
  return [...set].sort((a, b) => a - b);
}

/** Up to `count` indexes below `completions` not covered by `nonPending`, lowest first. */
export function firstPending(nonPending: Intervals, count: number, completions: number): number[] {
  const out: number[] = [];
  let candidate = 0;
  for (const iv of nonPending) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/** kube's generateName for an index's Pod: NAME-INDEX-, the name cut so the prefix fits 58 characters. */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > 58 ? jobName.slice(0, 58 - suffix.length) + suffix : prefix;
}
