// DaemonSet helpers as pure functions, following kube's
// pkg/controller/daemon/util and the predicates of daemon_controller.go: the
// tolerations every daemon Pod gets, the Pod template with its hash and
// generation labels, the node-name affinity that lets the scheduler bind a
// daemon Pod to its node, which node a Pod is meant for, whether a Pod is
// up to date, surge and unavailability counts, and whether a node should run
// the daemon.
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Affinity, Node, Pod, PodSpec, PodTemplateSpec, Toleration } from 'kubernetes-types/core/v1.js';
import { DAEMONSET_TEMPLATE_GENERATION } from '../../../apiserver/registry/kinds/workloads.ts';
import { scaledValue } from '../deployment/util.ts';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/history.ts';
import { podMatchesNodeSelectorAndAffinity } from '../../../scheduler/plugins/node-affinity.ts';
import { firstUntolerated } from '../../../scheduler/plugins/taint-toleration.ts';

/** The label daemon Pods carry their DaemonSet's templateGeneration in. */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
export { CONTROLLER_REVISION_HASH_LABEL };

/** kube's DaemonSet tolerations, added to every daemon Pod (network-unavailable only with hostNetwork). */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const t = (key: string, effect: string): Toleration => ({ key: `node.kubernetes.io/${key}`, operator: 'Exists', effect });
  const out = [
    t('not-ready', 'NoExecute'),
    t('unreachable', 'NoExecute'),
    t('disk-pressure', 'NoSchedule'),
    t('memory-pressure', 'NoSchedule'),
    t('pid-pressure', 'NoSchedule'),
    t('unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) out.push(t('network-unavailable', 'NoSchedule'));
  return out;
}

/** Toleration.MatchToleration: the same key, operator, value and effect. */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? 'Equal') === (b.operator ?? 'Equal') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '')
  );
}

/** AddOrUpdateDaemonPodTolerations: `spec` with the daemon tolerations (an equal one is replaced in place, not added twice). */
export function withDaemonTolerations(spec: PodSpec): PodSpec {
  const tolerations = [...(spec.tolerations ?? [])];
  for (const t of daemonTolerations(!!spec.hostNetwork)) {
    const i = tolerations.findIndex((x) => sameToleration(x, t));
    if (i >= 0) tolerations[i] = t;
    else tolerations.push(t);
  }
  return { ...spec, tolerations };
}

/** The DaemonSet's templateGeneration (from its annotation), undefined when absent or unreadable. */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[DAEMONSET_TEMPLATE_GENERATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return undefined;
  return Number(v);
}

/** CreatePodTemplate: the template with the daemon tolerations and the generation and hash labels. */
export function createPodTemplate(template: PodTemplateSpec | undefined, generation: number | undefined, hash: string): PodTemplateSpec {
  const t = structuredClone(template ?? {});
  t.spec = withDaemonTolerations(t.spec ?? { containers: [] });
  const labels = { ...t.metadata?.labels };
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash) labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  t.metadata = { ...t.metadata, labels };
  return t;
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity
 * becomes the one term `metadata.name In [node]` (preferred terms stay), so
 * the scheduler can place the Pod on that node only.
 */
export function nodeNameAffinity(affinity: Affinity | undefined, node: string): Affinity {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] };
  const a = structuredClone(affinity ?? {});
  a.nodeAffinity = { ...a.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } };
  return a;
}

/** GetTargetNodeName: spec.nodeName, else the single metadata.name In [node] of the required node affinity. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/** IsPodUpdated: the Pod carries the current revision's hash, or the current templateGeneration. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash !== '' && labels[CONTROLLER_REVISION_HASH_LABEL] === hash;
  return hashMatches || templateMatches;
}

function rolling(ds: DaemonSet) {
  const s = ds.spec?.updateStrategy;
  return (s?.type ?? 'RollingUpdate') === 'RollingUpdate' ? s?.rollingUpdate : undefined;
}

/** SurgeCount: maxSurge scaled against `desired` (percentages round up), 0 unless rolling. */
export function surgeCount(ds: DaemonSet, desired: number): number {
  const r = rolling(ds);
  return r ? scaledValue(r.maxSurge, desired, true) : 0;
}

/** UnavailableCount: maxUnavailable scaled against `desired` (percentages round up), 0 unless rolling. */
export function unavailableCount(ds: DaemonSet, desired: number): number {
  const r = rolling(ds);
  return r ? scaledValue(r.maxUnavailable, desired, true) : 0;
}

/** AllowsSurge: a rolling update whose maxSurge is not zero. */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) !== 0;
  } catch {
    return false;
  }
}

/**
 * NodeShouldRunDaemonPod: `shouldRun` when a daemon Pod should be started
 * on the node, `shouldContinueRunning` when one already there may stay (a
 * node whose only untolerated taints are NoSchedule keeps its Pod).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const { shouldRun, shouldContinueRunning } = nodeDaemonVerdict(node, ds);
  return { shouldRun, shouldContinueRunning };
}

/** nodeShouldRunDaemonPod with the reason a node may not run the daemon, for step-through notes. */
export function nodeDaemonVerdict(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean; why?: string } {
  const no = (why: string) => ({ shouldRun: false, shouldContinueRunning: false, why });
  const spec = ds.spec?.template?.spec;
  const nodeName = node.metadata!.name!;
  if (spec?.nodeName && spec.nodeName !== nodeName) return no(`the template's nodeName is ${spec.nodeName}`);
  const podSpec = withDaemonTolerations({ ...(spec ?? { containers: [] }), nodeName });
  const pod: Pod = { metadata: { ...ds.spec?.template?.metadata, namespace: ds.metadata?.namespace }, spec: podSpec };
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return no("the node does not match the template's nodeSelector or node affinity");
  const taints = node.spec?.taints ?? [];
  const tolerations = podSpec.tolerations ?? [];
  const taint = firstUntolerated(taints, tolerations, ['NoSchedule', 'NoExecute']);
  if (taint) {
    const shown = `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
    const shouldContinueRunning = !firstUntolerated(taints, tolerations, ['NoExecute']);
    return { shouldRun: false, shouldContinueRunning, why: `taint ${shown} not tolerated` };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

const created = (p: Pod) => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;

/** podByCreationTimestampAndPhase: scheduled Pods first, then oldest, then by name. */
export function byCreationAndScheduling(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 0 : 1;
  const sb = b.spec?.nodeName ? 0 : 1;
  if (sa !== sb) return sa - sb;
  const t = created(a) - created(b);
  if (t) return t;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
