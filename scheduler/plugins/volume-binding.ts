// VolumeBinding (with VolumeRestrictions' ReadWriteOncePod check): a Pod's
// PersistentVolumeClaims must exist, immediate claims must be bound already,
// a bound volume's node affinity must admit the node, and an unbound
// WaitForFirstConsumer claim needs a volume reachable from the node or a
// class that can provision one. PreBind then writes the chosen node into
// each such claim's volume.kubernetes.io/selected-node annotation, which the
// binder and provisioner act on, and waits (up to bindTimeoutSeconds, as
// kube's VolumeBindingArgs) until they are bound before the Pod is. The claims, volumes and classes come from
// the handle's `volumes` lister; a scheduler that gives none skips the plugin.
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ClusterCache } from '../cache.ts';
import type { CycleState, Handle, Plugin, PluginArgs, Status } from '../framework/types.ts';
import { SKIP, status } from '../framework/types.ts';
import { termMatchesNode } from '../../shared/labels/node-selector.ts';
import { ANN, claimClass, findMatchingVolume } from '../../shared/storage/volume-matching.ts';

/** kube's reasons. */
export const ERR = {
  unboundImmediate: 'pod has unbound immediate PersistentVolumeClaims',
  nodeConflict: 'node(s) had volume node affinity conflict',
  bindConflict: "node(s) didn't find available persistent volumes to bind",
  pvNotExist: 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)',
  rwop: 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode',
} as const;

/** What the plugin reads: the scheduler's informer caches of claims, volumes and classes, and a writer of claim annotations. */
export interface VolumeLister {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  volumes(): PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  /** Sets volume.kubernetes.io/selected-node on a claim. */
  selectNode(claim: PersistentVolumeClaim, node: string): Promise<void>;
}

/** A handle that may carry the lister. */
export type VolumeHandle = Handle & { volumes?: VolumeLister };

interface PodVolumes {
  bound: PersistentVolume[];
  missingPV: boolean;
  delayed: PersistentVolumeClaim[];
}

const STATE_KEY = 'VolumeBinding';

/** The claim names a Pod mounts: persistentVolumeClaim volumes and generic ephemeral volumes (POD-VOLUME). */
export function podClaimNames(pod: Pod): string[] {
  const names: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) names.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) names.push(`${pod.metadata?.name}-${v.name}`);
  }
  return names;
}

/** Whether a volume's node affinity admits the node (no affinity: every node). */
export function volumeFitsNode(pv: PersistentVolume, node: Parameters<typeof termMatchesNode>[1]): boolean {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => termMatchesNode(t, node));
}

function rwopConflict(cache: ClusterCache, pod: Pod, claims: PersistentVolumeClaim[]): boolean {
  const rwop = new Set(claims.filter((c) => c.spec?.accessModes?.includes('ReadWriteOncePod')).map((c) => c.metadata?.name));
  if (rwop.size === 0) return false;
  const ns = pod.metadata?.namespace;
  for (const n of cache.nodeList())
    for (const p of n.pods.values()) {
      if (p.pod.metadata?.namespace !== ns || p.pod.metadata?.uid === pod.metadata?.uid) continue;
      if (podClaimNames(p.pod).some((c) => rwop.has(c))) return true;
    }
  return false;
}

const POLL_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The VolumeBinding plugin; args.bindTimeoutSeconds (default 600) bounds PreBind's wait. */
export function volumeBinding(
  handle: VolumeHandle,
  args: PluginArgs = {},
): Plugin & { preBind(state: CycleState, pod: Pod, node: string): Promise<void> } {
  const timeoutMs = (typeof args.bindTimeoutSeconds === 'number' ? args.bindTimeoutSeconds : 600) * 1000;
  return {
    name: 'VolumeBinding',
    events: ['NodeAdd', 'NodeLabel', 'AssignedPodDelete', 'PersistentVolumeClaimChange', 'PersistentVolumeChange', 'StorageClassChange'],
    preFilter(state, pod): Status | null {
      const names = podClaimNames(pod);
      const lister = handle.volumes;
      if (names.length === 0 || !lister) return SKIP;
      const ns = pod.metadata?.namespace ?? '';
      const pv: PodVolumes = { bound: [], missingPV: false, delayed: [] };
      const claims: PersistentVolumeClaim[] = [];
      let immediate = false;
      for (const name of names) {
        const claim = lister.claim(ns, name);
        if (!claim) return status('UnschedulableAndUnresolvable', `persistentvolumeclaim "${name}" not found`);
        if (claim.metadata?.deletionTimestamp)
          return status('UnschedulableAndUnresolvable', `persistentvolumeclaim "${name}" is being deleted`);
        claims.push(claim);
        const volumeName = claim.spec?.volumeName;
        if (volumeName) {
          const vol = lister.volume(volumeName);
          if (vol) pv.bound.push(vol);
          else pv.missingPV = true;
          continue;
        }
        const cls = claimClass(claim);
        const sc = cls ? lister.storageClass(cls) : undefined;
        if (sc?.volumeBindingMode === 'WaitForFirstConsumer') pv.delayed.push(claim);
        else immediate = true;
      }
      if (immediate) return status('UnschedulableAndUnresolvable', ERR.unboundImmediate);
      if (rwopConflict(handle.cache, pod, claims)) return status('UnschedulableAndUnresolvable', ERR.rwop);
      state.write(STATE_KEY, pv);
      return null;
    },
    filter(state, _pod, node): Status | null {
      const pv = state.read<PodVolumes>(STATE_KEY);
      const lister = handle.volumes;
      if (!pv || !lister) return null;
      if (pv.missingPV) return status('UnschedulableAndUnresolvable', ERR.pvNotExist);
      const reasons: string[] = [];
      if (pv.bound.some((v) => !volumeFitsNode(v, node.node))) reasons.push(ERR.nodeConflict);
      const taken = new Set<string>();
      for (const claim of pv.delayed) {
        const candidates = lister.volumes().filter((v) => !taken.has(v.metadata?.name ?? ''));
        const match = findMatchingVolume(claim, candidates, { delayBinding: true, reachable: (v) => volumeFitsNode(v, node.node) });
        if (match) {
          taken.add(match.metadata?.name ?? '');
          continue;
        }
        const sc = lister.storageClass(claimClass(claim));
        const topologies = sc?.allowedTopologies ?? [];
        const provisionable =
          !!sc?.provisioner &&
          sc.provisioner !== 'kubernetes.io/no-provisioner' &&
          (topologies.length === 0 ||
            topologies.some((t) =>
              (t.matchLabelExpressions ?? []).every((e) => (e.values ?? []).includes(node.labels[e.key] ?? '\u0000')),
            ));
        if (!provisionable && !reasons.includes(ERR.bindConflict)) reasons.push(ERR.bindConflict);
      }
      return reasons.length ? status('UnschedulableAndUnresolvable', ...reasons) : null;
    },
    async preBind(state, _pod, node) {
      const pv = state.read<PodVolumes>(STATE_KEY);
      const lister = handle.volumes;
      if (!pv || !lister) return;
      for (const claim of pv.delayed) {
        if (claim.metadata?.annotations?.[ANN.selectedNode] === node) continue;
        await lister.selectNode(claim, node);
      }
      // As kube's PreBind: the Pod is bound only once its claims are.
      const deadline = Date.now() + timeoutMs;
      const bound = (c: PersistentVolumeClaim) => {
        const now = lister.claim(c.metadata?.namespace ?? '', c.metadata?.name ?? '');
        return !!now?.spec?.volumeName && now.metadata?.annotations?.[ANN.bindCompleted] === 'yes';
      };
      while (!pv.delayed.every(bound)) {
        if (Date.now() > deadline) throw new Error('binding volumes: context deadline exceeded');
        await sleep(POLL_MS);
      }
    },
  };
}
