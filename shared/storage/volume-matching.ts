// Which PersistentVolume satisfies a claim (kube's FindMatchingVolume, used by
// the binder and by the scheduler's VolumeBinding plugin): a volume pre-bound
// to the claim wins at once; otherwise the smallest unclaimed volume of the
// claim's class, volume mode and access modes, large enough, whose labels
// the claim's selector matches and, when a node is given, that is reachable
// from that node.
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { matchesLabels, selectorFromLabelSelector } from '../labels/index.ts';
import { quantityNumber } from '../api/quantity-number.ts';

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** The annotations the binder writes. */
export const ANN = {
  bindCompleted: 'pv.kubernetes.io/bind-completed',
  boundByController: 'pv.kubernetes.io/bound-by-controller',
  provisionedBy: 'pv.kubernetes.io/provisioned-by',
  selectedNode: 'volume.kubernetes.io/selected-node',
  storageProvisioner: 'volume.kubernetes.io/storage-provisioner',
  betaStorageProvisioner: 'volume.beta.kubernetes.io/storage-provisioner',
} as const;

/** GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export function claimClass(claim: PersistentVolumeClaim): string {
  return claim.metadata?.annotations?.[BETA_CLASS] ?? claim.spec?.storageClassName ?? '';
}

/** GetPersistentVolumeClass. */
export function volumeClass(pv: PersistentVolume): string {
  return pv.metadata?.annotations?.[BETA_CLASS] ?? pv.spec?.storageClassName ?? '';
}

/** The bytes of a quantity text (0 when absent). */
export function bytes(q: string | number | undefined): number {
  const n = quantityNumber(q);
  return Number.isNaN(n) ? 0 : n;
}

/** True when the volume's claimRef names this claim (uid too, when the ref has one). */
export function isVolumeBoundToClaim(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

function hasModes(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const have = new Set(pv.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((m) => have.has(m));
}

/** Options of a match. */
export interface MatchOptions {
  /** Whether the volume is usable from the node being considered (no node: any). */
  reachable?: (pv: PersistentVolume) => boolean;
  /** Delayed binding: only volumes pre-bound to the claim match unless a node is being considered. */
  delayBinding?: boolean;
}

/** The volume to bind the claim to, or undefined. */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: PersistentVolume[],
  opts: MatchOptions = {},
): PersistentVolume | undefined {
  const requested = bytes(claim.spec?.resources?.requests?.storage);
  const cls = claimClass(claim);
  const mode = claim.spec?.volumeMode ?? 'Filesystem';
  let selector: ReturnType<typeof selectorFromLabelSelector> | undefined;
  try {
    selector = claim.spec?.selector ? selectorFromLabelSelector(claim.spec.selector) : undefined;
  } catch {
    return undefined;
  }
  let best: PersistentVolume | undefined;
  let bestSize = Infinity;
  for (const pv of volumes) {
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== mode) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    const size = bytes(pv.spec?.capacity?.storage);
    if (opts.reachable && !opts.reachable(pv)) continue;
    if (isVolumeBoundToClaim(pv, claim)) {
      // Pre-bound: it is the claim's whatever else it says (kube checks size and modes again on bind).
      if (size >= requested && hasModes(pv, claim) && volumeClass(pv) === cls) return pv;
      continue;
    }
    if (pv.spec?.claimRef) continue;
    if (opts.delayBinding && !opts.reachable) continue;
    if (pv.status?.phase && pv.status.phase !== 'Available' && pv.status.phase !== 'Pending') continue;
    if (volumeClass(pv) !== cls) continue;
    if (selector && !matchesLabels(selector, pv.metadata?.labels)) continue;
    if (!hasModes(pv, claim)) continue;
    if (size < requested) continue;
    if (size < bestSize) {
      best = pv;
      bestSize = size;
    }
  }
  return best;
}
