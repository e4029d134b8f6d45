// The PV binder's decisions as pure functions (kube's pv_controller.go
// syncClaim / syncVolume): what to do with one claim given the volumes and
// classes, and with one volume given its claim. The controller applies them.
import { termMatchesNode } from '../../../shared/labels/node-selector.ts';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { ANN, claimClass, findMatchingVolume, isVolumeBoundToClaim } from '../../../shared/storage/volume-matching.ts';

/** The provisioner ksim runs itself, as kind clusters run rancher's local-path-provisioner. */
export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
/** Where local-path volumes live on a node. */
export const LOCAL_PATH_ROOT = '/var/local-path-provisioner';

/** One event about the claim or volume being synced. */
export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What to do with one claim. */
export type ClaimAction =
  | { op: 'none'; event?: PlannedEvent }
  | { op: 'bind'; volume: PersistentVolume; event?: PlannedEvent }
  | { op: 'provision'; volume: PersistentVolume; events: PlannedEvent[] }
  | { op: 'selectNode'; node: string }
  | { op: 'phase'; phase: 'Pending' | 'Bound' | 'Lost'; event?: PlannedEvent };

/** What the claim's world looks like. */
export interface ClaimWorld {
  volumes: PersistentVolume[];
  classes: Map<string, StorageClass>;
  /** Pods of the claim's namespace (for the first consumer). */
  pods: Pod[];
  nodes: Map<string, Node>;
}

/** A scheduled, live Pod that mounts the claim. */
export function firstConsumer(claim: PersistentVolumeClaim, pods: Pod[]): Pod | undefined {
  const name = claim.metadata?.name;
  return pods.find(
    (p) =>
      p.spec?.nodeName &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.spec.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === name),
  );
}

/** The PV local-path creates for a claim on a node: hostPath under the per-node dir, pinned to that node. */
export function localPathVolume(
  claim: PersistentVolumeClaim,
  sc: StorageClass,
  node: Node | undefined,
  nodeName: string,
): PersistentVolume {
  const meta = claim.metadata!;
  const name = `pvc-${meta.uid}`;
  const hostname = node?.metadata?.labels?.['kubernetes.io/hostname'] ?? nodeName;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      annotations: { [ANN.provisionedBy]: sc.provisioner, 'local.path.provisioner/selected-node': nodeName },
    },
    spec: {
      accessModes: [...(claim.spec?.accessModes ?? [])],
      capacity: { storage: String(claim.spec?.resources?.requests?.storage ?? '0') },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      hostPath: { path: `${LOCAL_PATH_ROOT}/${name}_${meta.namespace}_${meta.name}`, type: 'DirectoryOrCreate' },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }] }] },
      },
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: sc.metadata!.name,
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    },
  };
}

const NO_CLASS = 'no persistent volumes available for this claim and no storage class is set';
const WAIT_FIRST = 'waiting for first consumer to be created before binding';

/** syncClaim: the next step for one claim. */
export function planClaim(claim: PersistentVolumeClaim, world: ClaimWorld): ClaimAction {
  const ann = claim.metadata?.annotations ?? {};
  const volumeName = claim.spec?.volumeName ?? '';
  const byName = (n: string) => world.volumes.find((v) => v.metadata?.name === n);
  if (claim.metadata?.deletionTimestamp && claim.status?.phase !== 'Bound') return { op: 'none' };
  if (ann[ANN.bindCompleted] !== 'yes') {
    if (volumeName) {
      // The user (or an earlier pass) named the volume.
      const pv = byName(volumeName);
      if (!pv) return claim.status?.phase === 'Pending' ? { op: 'none' } : { op: 'phase', phase: 'Pending' };
      if (!pv.spec?.claimRef || isVolumeBoundToClaim(pv, claim)) return { op: 'bind', volume: pv };
      return {
        op: 'none',
        event: { type: 'Warning', reason: 'FailedBinding', message: `volume "${volumeName}" already bound to a different claim.` },
      };
    }
    const className = claimClass(claim);
    const sc = className ? world.classes.get(className) : undefined;
    const delay = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    let selected = ann[ANN.selectedNode];
    if (delay && !selected) {
      // ksim's bridge for Pods that reached a node without the scheduler's VolumeBinding (spec.nodeName set).
      const consumer = firstConsumer(claim, world.pods);
      if (consumer) return { op: 'selectNode', node: consumer.spec!.nodeName! };
    }
    const node = selected ? world.nodes.get(selected) : undefined;
    const reachable = selected ? (pv: PersistentVolume) => volumeReachable(pv, node, selected) : undefined;
    const match = findMatchingVolume(claim, world.volumes, { delayBinding: delay, reachable });
    if (match) return { op: 'bind', volume: match };
    if (delay && !selected) return { op: 'none', event: { type: 'Normal', reason: 'WaitForFirstConsumer', message: WAIT_FIRST } };
    if (!className) return { op: 'none', event: { type: 'Normal', reason: 'FailedBinding', message: NO_CLASS } };
    if (!sc) {
      return {
        op: 'none',
        event: { type: 'Warning', reason: 'ProvisioningFailed', message: `storageclass.storage.k8s.io "${className}" not found` },
      };
    }
    if (sc.provisioner !== LOCAL_PATH_PROVISIONER) {
      return {
        op: 'none',
        event: {
          type: 'Normal',
          reason: 'ExternalProvisioning',
          message: `Waiting for a volume to be created either by the external provisioner '${sc.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
        },
      };
    }
    if (world.volumes.some((v) => v.metadata?.name === `pvc-${claim.metadata?.uid}`)) return { op: 'none' };
    selected ??= [...world.nodes.keys()].sort()[0];
    if (!selected) return { op: 'none', event: { type: 'Warning', reason: 'ProvisioningFailed', message: 'no node was specified' } };
    const pv = localPathVolume(claim, sc, world.nodes.get(selected), selected);
    const who = `${claim.metadata?.namespace}/${claim.metadata?.name}`;
    return {
      op: 'provision',
      volume: pv,
      events: [
        { type: 'Normal', reason: 'Provisioning', message: `External provisioner is provisioning volume for claim "${who}"` },
        { type: 'Normal', reason: 'ProvisioningSucceeded', message: `Successfully provisioned volume ${pv.metadata!.name}` },
      ],
    };
  }
  // A bound claim.
  if (!volumeName) {
    return {
      op: 'phase',
      phase: 'Lost',
      event: {
        type: 'Warning',
        reason: 'ClaimLost',
        message: 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
      },
    };
  }
  const pv = byName(volumeName);
  if (!pv) {
    if (claim.status?.phase === 'Lost') return { op: 'none' };
    return {
      op: 'phase',
      phase: 'Lost',
      event: { type: 'Warning', reason: 'ClaimLost', message: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!' },
    };
  }
  if (!pv.spec?.claimRef) return { op: 'bind', volume: pv };
  if (isVolumeBoundToClaim(pv, claim)) return claim.status?.phase === 'Bound' ? { op: 'none' } : { op: 'bind', volume: pv };
  return {
    op: 'phase',
    phase: 'Lost',
    event: { type: 'Warning', reason: 'ClaimMisbound', message: 'Two claims are bound to the same volume, this one is bound incorrectly' },
  };
}

/** Whether a volume's node affinity admits the node (no affinity: any node); a node not seen yet has its hostname label. */
export function volumeReachable(pv: PersistentVolume, node: Node | undefined, nodeName: string): boolean {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  const labels: Record<string, string> = { 'kubernetes.io/hostname': nodeName, ...(node?.metadata?.labels ?? {}) };
  const seen: Node = { metadata: { name: nodeName, labels } };
  return terms.some((t) => termMatchesNode(t, seen));
}

/** What to do with one volume. */
export type VolumeAction =
  | { op: 'none' }
  | { op: 'phase'; phase: 'Available' | 'Bound' | 'Released' | 'Failed'; message?: string; event?: PlannedEvent }
  | { op: 'delete' }
  | { op: 'requeueClaim'; key: string };

/** syncVolume: the next step for one volume, given the claim its claimRef names (undefined: gone). */
export function planVolume(pv: PersistentVolume, claim: PersistentVolumeClaim | undefined): VolumeAction {
  const phase = pv.status?.phase;
  const ref = pv.spec?.claimRef;
  if (!ref) return phase === 'Available' ? { op: 'none' } : { op: 'phase', phase: 'Available' };
  if (!ref.uid) {
    // Pre-bound by the user: the claim's sync binds it.
    if (claim) return { op: 'requeueClaim', key: `${ref.namespace}/${ref.name}` };
    return phase === 'Available' ? { op: 'none' } : { op: 'phase', phase: 'Available' };
  }
  const sameClaim = claim && claim.metadata?.uid === ref.uid;
  if (sameClaim) {
    if (claim.spec?.volumeName === pv.metadata?.name) return phase === 'Bound' ? { op: 'none' } : { op: 'phase', phase: 'Bound' };
    // The binder has written the volume half of the binding; the claim half follows.
    return { op: 'requeueClaim', key: `${ref.namespace}/${ref.name}` };
  }
  // The claim is gone: release, then reclaim.
  if (phase === 'Failed') return { op: 'none' };
  if (phase !== 'Released') return { op: 'phase', phase: 'Released' };
  switch (pv.spec?.persistentVolumeReclaimPolicy) {
    case 'Delete':
      if (pv.metadata?.annotations?.[ANN.provisionedBy] === LOCAL_PATH_PROVISIONER)
        return pv.metadata?.deletionTimestamp ? { op: 'none' } : { op: 'delete' };
      return {
        op: 'phase',
        phase: 'Failed',
        message: 'error getting deleter volume plugin for volume "' + pv.metadata?.name + '": no deletable volume plugin matched',
        event: {
          type: 'Warning',
          reason: 'VolumeFailedDelete',
          message: `error getting deleter volume plugin for volume "${pv.metadata?.name}": no deletable volume plugin matched`,
        },
      };
    case 'Recycle':
      return {
        op: 'phase',
        phase: 'Failed',
        message: 'No recycler plugin found for the volume!',
        event: { type: 'Warning', reason: 'VolumeFailedRecycle', message: 'No recycler plugin found for the volume!' },
      };
    default:
      return { op: 'none' };
  }
}

/** Whether a Pod that is not finished mounts the claim (pvc-protection keeps the claim while one does). */
export function claimInUse(claim: PersistentVolumeClaim, pods: Pod[]): boolean {
  const name = claim.metadata?.name;
  return pods.some(
    (p) =>
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.spec?.volumes ?? []).some(
        (v) => v.persistentVolumeClaim?.claimName === name || (v.ephemeral && `${p.metadata?.name}-${v.name}` === name),
      ),
  );
}
