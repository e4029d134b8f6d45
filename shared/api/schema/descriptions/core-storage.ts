// core/v1, persistent storage: PersistentVolume and PersistentVolumeClaim,
// with their specs, statuses and the references they use.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const accessModes =
  'How the volume may be mounted: ReadWriteOnce (read-write by one node), ReadOnlyMany (read-only by many nodes), ReadWriteMany (read-write by many nodes) or ReadWriteOncePod (read-write by a single pod).';
const volumeMode = 'Filesystem (a formatted filesystem mounted in the pod, the default) or Block (a raw device, used with volumeDevices).';
const legacy = (what: string): string => `Deprecated in-tree plugin: ${what}. New clusters use csi instead.`;

export const coreStorage: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    PersistentVolumeClaim: {
      spec: 'What storage is asked for: size, access modes, storage class, optionally a specific volume or data source.',
      status: 'Whether the claim is bound, and the capacity and access modes of the volume it got.',
    },
    PersistentVolumeClaimSpec: {
      $: 'A request for storage: how much, how it is accessed and from which class.',
      accessModes: accessModes,
      selector: 'Only bind to existing volumes whose labels match. Cannot be used with dynamic provisioning.',
      resources: 'How much storage is wanted, as requests.storage (e.g. "10Gi"). Only requests.storage and limits.storage are used.',
      volumeName: 'Bind to this PersistentVolume by name instead of letting the binder choose.',
      storageClassName:
        'The StorageClass to provision from or match. Unset means the default class (if the cluster has one); "" asks for a volume with no class, never provisioned.',
      volumeMode,
      dataSource: 'Fill the new volume from an existing VolumeSnapshot or PersistentVolumeClaim (a clone). Same namespace only.',
      dataSourceRef:
        'Like dataSource but may name any object a populator understands, and (with a feature gate) one in another namespace. Set it or dataSource, or both to the same object.',
      volumeAttributesClassName:
        'The VolumeAttributesClass for mutable settings of the volume (such as IOPS), which can be changed later to modify the volume.',
    },
    PersistentVolumeClaimStatus: {
      $: 'The observed state of a claim.',
      phase: 'Pending (not yet bound), Bound (bound to a volume) or Lost (the bound volume has disappeared).',
      accessModes: 'The access modes of the volume the claim is bound to.',
      capacity: 'The size of the bound volume, e.g. {storage: 10Gi}.',
      conditions: 'Observations about the claim, e.g. Resizing or FileSystemResizePending while it grows.',
      allocatedResources: 'The size being given to the claim by an ongoing or finished resize.',
      allocatedResourceStatuses:
        'Progress of a resize, per resource: ControllerResizeInProgress, NodeResizePending, NodeResizeInProgress, or a failure.',
      currentVolumeAttributesClassName: 'The VolumeAttributesClass currently applied to the volume.',
      modifyVolumeStatus: 'Progress of a change of volumeAttributesClassName.',
    },
    PersistentVolumeClaimCondition: conditionFields('claim', 'Resizing, FileSystemResizePending, ModifyingVolume, ModifyVolumeError', {
      lastProbeTime: 'When the condition was last checked.',
    }),
    ModifyVolumeStatus: {
      $: "Progress of a change to a volume's attributes class.",
      targetVolumeAttributesClassName: 'The class being applied.',
      status: 'Pending (waiting, e.g. for the class to exist), InProgress or Infeasible (the driver rejected it).',
    },
    VolumeResourceRequirements: {
      $: 'Storage wanted by a claim.',
      requests: 'The minimum size, as storage, e.g. {storage: 1Gi}. A claim can be grown by raising it, if its class allows expansion.',
      limits: 'The maximum size, as storage. Rarely used.',
    },
    TypedLocalObjectReference: {
      $: 'An object in the same namespace, by group, kind and name.',
      apiGroup: 'The API group of the object, e.g. snapshot.storage.k8s.io; empty for the core group.',
      kind: 'The kind of the object, e.g. VolumeSnapshot or PersistentVolumeClaim.',
      name: 'The name of the object.',
    },
    TypedObjectReference: {
      $: 'An object by group, kind, name and optionally namespace.',
      apiGroup: 'The API group of the object; empty for the core group.',
      kind: 'The kind of the object.',
      name: 'The name of the object.',
      namespace: "The namespace of the object, when it is not the claim's own (needs a ReferenceGrant there).",
    },
    PersistentVolume: {
      spec: 'The storage itself: its capacity, access modes, reclaim policy, class and where it lives (one volume source).',
      status: "The volume's phase (Available, Bound, Released, Failed).",
    },
    PersistentVolumeSpec: {
      $: 'A piece of storage and how it may be used. Exactly one volume source field is set.',
      capacity: 'The size of the volume, e.g. {storage: 10Gi}.',
      accessModes: accessModes,
      claimRef: 'The claim this volume is bound to (set by the binder, or by you to reserve the volume for one claim).',
      persistentVolumeReclaimPolicy:
        'What happens to the volume when its claim is deleted: Retain (keep it and its data for manual cleanup, the default for volumes made by hand), Delete (delete it and the storage, the default for provisioned ones) or Recycle (deprecated: wipe and reuse).',
      storageClassName: 'The StorageClass this volume belongs to; only claims asking for the same class bind to it. Empty means no class.',
      mountOptions: 'Mount options used when the volume is mounted, e.g. ["nfsvers=4.1"]. Not checked: a wrong one makes mounting fail.',
      volumeMode,
      nodeAffinity: 'Which nodes can reach the volume; pods that use it are scheduled only there. Required for local volumes.',
      volumeAttributesClassName: 'The VolumeAttributesClass the volume belongs to.',
      hostPath: 'A directory on a node. Only for single-node test clusters.',
      local: 'A disk, partition or directory on one node (set nodeAffinity too).',
      nfs: 'An NFS export.',
      csi: 'A volume managed by a CSI driver (how real clusters provision storage today).',
      iscsi: 'An iSCSI disk.',
      fc: 'A Fibre Channel disk.',
      awsElasticBlockStore: legacy('an AWS EBS disk'),
      gcePersistentDisk: legacy('a Google Compute Engine persistent disk'),
      azureDisk: legacy('an Azure data disk'),
      azureFile: legacy('an Azure Files share'),
      cinder: legacy('an OpenStack Cinder volume'),
      cephfs: legacy('a CephFS mount'),
      rbd: legacy('a Ceph RBD block device'),
      glusterfs: legacy('a GlusterFS mount'),
      flexVolume: legacy('a volume from a FlexVolume driver'),
      flocker: legacy('a Flocker dataset'),
      vsphereVolume: legacy('a vSphere VMDK volume'),
      quobyte: legacy('a Quobyte mount'),
      photonPersistentDisk: legacy('a VMware Photon disk'),
      portworxVolume: legacy('a Portworx volume'),
      scaleIO: legacy('a ScaleIO volume'),
      storageos: legacy('a StorageOS volume'),
    },
    PersistentVolumeStatus: {
      $: 'The observed state of a persistent volume.',
      phase:
        'Pending (not yet usable), Available (free, not bound), Bound (bound to a claim), Released (its claim was deleted, the volume not yet reclaimed) or Failed (reclaiming failed).',
      message: "A human-readable note on the volume's state.",
      reason: 'A short CamelCase reason for a failure.',
      lastPhaseTransitionTime: 'When the phase last changed.',
    },
    VolumeNodeAffinity: {
      $: 'The nodes a persistent volume can be used from.',
      required: 'Node selector terms a node must match to use the volume.',
    },
  },
};
