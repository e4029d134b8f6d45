// kubelet's needsReconcile (pkg/kubelet/status/status_manager.go): does the
// Pod status the apiserver has differ, in what kubelet owns, from the status
// kubelet last wrote? Another writer may have changed it: the node lifecycle
// controller's MarkPodsNotReady sets Ready=False on an unreachable node's
// Pods, and kubelet is the source of truth for them, so its status manager's
// periodic sync writes its own status again. Only kubelet's conditions (by
// status, reason and message, as kube's isPodStatusByKubeletEqual compares
// them: lastTransitionTime is not) and the container statuses count; what
// others own (PodScheduled, DisruptionTarget, readiness gates,
// nominatedNodeName) is theirs to change. Pure.
import type { ContainerStatus, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { deepEqual } from '../shared/util/deep-equal.ts';

/** The conditions kubelet computes and owns (PodScheduled is the scheduler's; kubelet-sim copies it). */
export const KUBELET_OWNED_CONDITIONS: ReadonlySet<string> = new Set([
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
]);

/** The container status lists kubelet writes. */
const CONTAINER_LISTS = ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const;

/**
 * True when `api` (the Pod's status as the apiserver has it) differs from `sent` (what kubelet last wrote)
 * in a kubelet-owned condition or a container status; false when nothing was written yet.
 */
export function needsReconcile(api: PodStatus | undefined, sent: PodStatus | undefined): boolean {
  if (!sent) return false;
  for (const c of sent.conditions ?? []) {
    if (!KUBELET_OWNED_CONDITIONS.has(c.type)) continue;
    if (
      !sameCondition(
        c,
        api?.conditions?.find((x) => x.type === c.type),
      )
    )
      return true;
  }
  for (const list of CONTAINER_LISTS) if (!sameContainers(sent[list], api?.[list])) return true;
  return false;
}

function sameCondition(a: PodCondition, b: PodCondition | undefined): boolean {
  return !!b && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

/** Equal as kube's normalizeStatus compares them: in any order (by name), null and empty the same as absent. */
function sameContainers(a: ContainerStatus[] | undefined, b: ContainerStatus[] | undefined): boolean {
  const as = a ?? [];
  const bs = b ?? [];
  if (as.length !== bs.length) return false;
  const byName = new Map(bs.map((s) => [s.name, s]));
  return as.every((s) => byName.has(s.name) && deepEqual(compact(s), compact(byName.get(s.name))));
}

/** `v` without null, undefined, empty-object and empty-array members, as a round trip through omitempty may drop them. */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const c = compact(x);
    if (c === null || c === undefined) continue;
    if (typeof c === 'object' && Object.keys(c).length === 0) continue;
    out[k] = c;
  }
  return out;
}
