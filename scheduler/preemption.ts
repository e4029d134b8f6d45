// DefaultPreemption (PostFilter): when a Pod fits nowhere, find nodes where
// evicting lower-priority Pods would make it fit, keep as many of them as
// still allows the fit (highest priority first), pick the node whose victims
// matter least, nominate the Pod there and delete the victims gracefully.
// Messages are kube's ("preemption: 0/3 nodes are available: ...").
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import { findResource } from '../shared/api/resources.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import type { EventRecorder } from '../shared/events/event-recorder.ts';
import type { ClusterCache } from './cache.ts';
import { fitErrorMessage, newDiagnosis } from './framework/diagnosis.ts';
import type { PriorityOf, Profile, ScheduleResult } from './framework/profile.ts';
import { CycleState, status, type Status } from './framework/types.ts';
import type { NodeInfo } from './node-info.ts';
import { podInfo, type PodInfo } from './pod-info.ts';

const pods = findResource('', 'v1', 'pods')!;

/** What preemption did. */
export interface PreemptionOutcome {
  /** The PostFilter message (already prefixed "preemption: "), if it failed. */
  message?: string;
  /** The node the Pod is nominated to ("" clears a nomination; undefined leaves it). */
  nominatedNode?: string;
  victims?: number;
}

/** Collaborators. */
export interface PreemptionDeps {
  client: KubeClient;
  recorder: EventRecorder;
  log: Logger;
  priorityOf: PriorityOf;
}

const NOT_HELPFUL = status('UnschedulableAndUnresolvable', 'Preemption is not helpful for scheduling');

interface Candidate {
  node: NodeInfo;
  victims: PodInfo[];
}

/** Runs preemption for `pod` after `result` found no node; the victims' deletions are sent without waiting for them. */
export function preempt(
  sched: { cache: ClusterCache },
  profile: Profile,
  pod: Pod,
  result: ScheduleResult,
  deps: PreemptionDeps,
): PreemptionOutcome {
  const prio = deps.priorityOf(pod);
  if (pod.spec?.preemptionPolicy === 'Never') return { message: 'preemption: not eligible due to preemptionPolicy=Never.' };
  const cache = sched.cache;
  const nominated = pod.status?.nominatedNodeName;
  if (nominated) {
    const n = cache.getNode(nominated);
    if (n && [...n.pods.values()].some((p) => p.pod.metadata?.deletionTimestamp && deps.priorityOf(p.pod) < prio)) {
      return { message: 'preemption: not eligible due to a terminating pod on the nominated node.' };
    }
  }
  const statuses = new Map<string, Status>();
  const candidates: Candidate[] = [];
  for (const node of cache.nodeList()) {
    const s = result.diagnosis.nodeToStatus.get(node.name);
    if (!s || s.code === 'UnschedulableAndUnresolvable') {
      statuses.set(node.name, NOT_HELPFUL);
      continue;
    }
    const c = selectVictims(profile, pod, prio, node, deps.priorityOf);
    if ('victims' in c) candidates.push(c);
    else statuses.set(node.name, c);
  }
  if (candidates.length === 0) {
    const d = newDiagnosis();
    for (const [k, v] of statuses) d.nodeToStatus.set(k, v);
    return { message: `preemption: ${fitErrorMessage(statuses.size, d)}`, nominatedNode: nominated ? '' : undefined };
  }
  const best = pickCandidate(candidates, deps.priorityOf);
  const node = best.node.name;
  for (const v of best.victims) {
    const vp = v.pod;
    const vm = vp.metadata!;
    deps.recorder.event(vp, 'Normal', 'Preempted', `Preempted by pod ${pod.metadata!.uid} on node ${node}`);
    deps.client.delete(pods, vm.namespace, vm.name!, { preconditions: { uid: vm.uid } }).catch((err) => {
      deps.log.warn({ victim: v.key, err: (err as Error).message }, 'could not delete preemption victim');
    });
  }
  deps.log.info({ pod: `${pod.metadata!.namespace}/${pod.metadata!.name}`, node, victims: best.victims.map((v) => v.key) }, 'preempting');
  return { nominatedNode: node, victims: best.victims.length };
}

/** kube's SelectVictimsOnNode: every lower-priority Pod out, then back in by priority while the Pod still fits. */
function selectVictims(profile: Profile, pod: Pod, prio: number, node: NodeInfo, priorityOf: PriorityOf): Candidate | Status {
  const lower = [...node.pods.values()].filter((p) => priorityOf(p.pod) < prio && !p.pod.metadata?.deletionTimestamp);
  if (lower.length === 0) return status('UnschedulableAndUnresolvable', 'No preemption victims found for incoming pod');
  for (const p of lower) node.removePod(p.key);
  const removed = new Set(lower);
  try {
    const fits = () => {
      const state = new CycleState(pod, podInfo(pod));
      const pre = profile.preFilter(state, pod);
      return pre ?? profile.filterNode(state, pod, node);
    };
    const s = fits();
    if (s) return s;
    lower.sort((a, b) => priorityOf(b.pod) - priorityOf(a.pod) || startTime(a) - startTime(b));
    const victims: PodInfo[] = [];
    for (const p of lower) {
      node.addPod(p);
      removed.delete(p);
      if (fits()) {
        node.removePod(p.key);
        removed.add(p);
        victims.push(p);
      }
    }
    return { node, victims };
  } finally {
    for (const p of removed) node.addPod(p);
  }
}

function startTime(p: PodInfo): number {
  return Date.parse(p.pod.status?.startTime ?? p.pod.metadata?.creationTimestamp ?? '') || 0;
}

/** kube's pickOneNodeForPreemption without PDBs: lowest top victim priority, then lowest priority sum, then fewest victims. */
function pickCandidate(cs: Candidate[], priorityOf: PriorityOf): Candidate {
  const key = (c: Candidate) => {
    const ps = c.victims.map((v) => priorityOf(v.pod));
    return [ps.length ? Math.max(...ps) : -Infinity, ps.reduce((a, b) => a + b, 0), ps.length];
  };
  return cs.reduce((best, c) => {
    const a = key(c);
    const b = key(best);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? c : best;
    return best;
  });
}
