// Printers for the storage kinds, with kube's columns: PersistentVolume,
// PersistentVolumeClaim and StorageClass (whose default class prints
// "NAME (default)").
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { since } from './duration.ts';
import { canonicalQuantity } from './quantity.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

const MODE_SHORT: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** kube's GetAccessModesAsString: the short names, in kube's fixed order, once each. */
export function accessModesString(modes: string[] | undefined): string {
  const set = new Set(modes ?? []);
  return MODE_SHORT.filter(([m]) => set.has(m))
    .map(([, s]) => s)
    .join(',');
}

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** True for the class marked default (GA or beta annotation). */
export function isDefaultClass(sc: StorageClass): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

/** v1 PersistentVolume: Name, Capacity, Access Modes, Reclaim Policy, Status, Claim, StorageClass, VolumeAttributesClass, Reason, Age, VolumeMode. */
export const persistentVolumePrinter: Printer<PersistentVolume> = {
  columns: [
    nameColumn(),
    column('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
    column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    column(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    ),
    column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    column('StorageClass', 'string', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
    column('VolumeAttributesClass', 'string', 'Name of VolumeAttributesClass to which this persistent volume belongs.'),
    column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure.'),
    ageColumn(),
    wide(
      column(
        'VolumeMode',
        'string',
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      ),
    ),
  ],
  row(pv: PersistentVolume, ctx: PrintContext): PrintedRow {
    const spec = pv.spec ?? {};
    const ref = spec.claimRef;
    const claim = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
    const phase = pv.metadata?.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '');
    const storage = spec.capacity?.storage;
    return {
      cells: [
        pv.metadata?.name ?? '',
        storage === undefined ? '0' : canonicalQuantity(storage),
        accessModesString(spec.accessModes),
        spec.persistentVolumeReclaimPolicy ?? '',
        phase,
        claim,
        spec.storageClassName || pv.metadata?.annotations?.[BETA_CLASS] || '',
        spec.volumeAttributesClassName || '<unset>',
        pv.status?.reason ?? '',
        since(pv.metadata?.creationTimestamp, ctx.now),
        spec.volumeMode || '<unset>',
      ],
    };
  },
};

/** v1 PersistentVolumeClaim: Name, Status, Volume, Capacity, Access Modes, StorageClass, VolumeAttributesClass, Age, VolumeMode. */
export const persistentVolumeClaimPrinter: Printer<PersistentVolumeClaim> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'string', 'accessModes contains the desired access modes the volume should have.'),
    column('StorageClass', 'string', 'storageClassName is the name of the StorageClass required by the claim.'),
    column('VolumeAttributesClass', 'string', 'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.'),
    ageColumn(),
    wide(column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.')),
  ],
  row(pvc: PersistentVolumeClaim, ctx: PrintContext): PrintedRow {
    const spec = pvc.spec ?? {};
    const phase = pvc.metadata?.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? '');
    let capacity = '';
    let modes = '';
    if (spec.volumeName) {
      const storage = pvc.status?.capacity?.storage;
      capacity = storage === undefined ? '0' : canonicalQuantity(storage);
      modes = accessModesString(pvc.status?.accessModes);
    }
    return {
      cells: [
        pvc.metadata?.name ?? '',
        phase,
        spec.volumeName ?? '',
        capacity,
        modes,
        pvc.metadata?.annotations?.[BETA_CLASS] || spec.storageClassName || '',
        spec.volumeAttributesClassName || '<unset>',
        since(pvc.metadata?.creationTimestamp, ctx.now),
        spec.volumeMode || '<unset>',
      ],
    };
  },
};

/** storage.k8s.io/v1 StorageClass: Name, Provisioner, ReclaimPolicy, VolumeBindingMode, AllowVolumeExpansion, Age. */
export const storageClassPrinter: Printer<StorageClass> = {
  columns: [
    nameColumn(),
    column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    column(
      'ReclaimPolicy',
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
    ),
    column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
    column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    ageColumn(),
  ],
  row(sc: StorageClass, ctx: PrintContext): PrintedRow {
    const name = sc.metadata?.name ?? '';
    return {
      cells: [
        isDefaultClass(sc) ? `${name} (default)` : name,
        sc.provisioner ?? '',
        sc.reclaimPolicy || 'Delete',
        sc.volumeBindingMode || 'Immediate',
        String(sc.allowVolumeExpansion === true),
        since(sc.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
