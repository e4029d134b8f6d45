// Two storage admission plugins, after kube's: DefaultStorageClass gives a
// new PersistentVolumeClaim without a class the default StorageClass (the
// one annotated storageclass.kubernetes.io/is-default-class=true; with
// several, the newest), and StorageObjectInUseProtection puts the
// kubernetes.io/pvc-protection and kubernetes.io/pv-protection finalizers on
// new claims and volumes, which the protection controllers remove once
// nothing uses them; PersistentVolumeClaimResize lets a claim grow only when
// it is bound and its class allows volume expansion.
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Store } from '../storage/store.ts';
import { quantityNumber } from '../../shared/api/quantity-number.ts';
import { admissionForbidden, isCore } from './common.ts';
import { newestDefault } from './newest-default.ts';
import type { AdmissionPlugin } from './types.ts';

export const STORAGE_CLASSES_BUCKET = '/registry/storage.k8s.io/storageclasses';
const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** True for a class marked default (GA or beta annotation). */
export function isDefaultStorageClass(sc: StorageClass): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

/** kube's GetDefaultClass: of the default classes, the newest (then the first by name). */
export function pickDefaultClass(classes: StorageClass[]): StorageClass | undefined {
  return newestDefault(classes, isDefaultStorageClass);
}

/** The store's StorageClasses, re-read only after the bucket changed. */
function storeClasses(store: Store): () => StorageClass[] {
  let version = -1;
  let classes: StorageClass[] = [];
  return () => {
    const v = store.bucketVersion(STORAGE_CLASSES_BUCKET);
    if (v !== version) {
      version = v;
      const items = store.list({ bucket: STORAGE_CLASSES_BUCKET, keyPrefix: `${STORAGE_CLASSES_BUCKET}/` }).items;
      classes = items.map((j) => JSON.parse(j) as StorageClass);
    }
    return classes;
  };
}

function storeDefaultClass(store: Store): () => StorageClass | undefined {
  const classes = storeClasses(store);
  return () => pickDefaultClass(classes());
}

const isClaims = (rt: ResourceType) => isCore(rt, 'persistentvolumeclaims');

/** DefaultStorageClass; `defaultClass` gives the current default (the store's, by default). */
export function defaultStorageClass(store: Store, defaultClass = storeDefaultClass(store)): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    contextual: true,
    appliesTo: isClaims,
    admit(op, _rt, obj, _old, attrs) {
      if (op !== 'CREATE' || attrs?.subresource) return false;
      const pvc = obj as PersistentVolumeClaim;
      // A class given, even "" (no class), is the user's choice.
      if (pvc.spec?.storageClassName !== undefined && pvc.spec.storageClassName !== null) return false;
      if (pvc.metadata?.annotations?.[BETA_CLASS] !== undefined) return false;
      const def = defaultClass();
      if (!def?.metadata?.name) return false;
      pvc.spec = { ...pvc.spec, storageClassName: def.metadata.name };
      return true;
    },
  };
}

/** The finalizers StorageObjectInUseProtection adds. */
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION = 'kubernetes.io/pv-protection';

/** StorageObjectInUseProtection. */
export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    appliesTo: (rt) => isClaims(rt) || isCore(rt, 'persistentvolumes'),
    admit(op, rt, obj, _old, attrs) {
      if (op !== 'CREATE' || attrs?.subresource) return false;
      const finalizer = isClaims(rt) ? PVC_PROTECTION : PV_PROTECTION;
      const list = obj.metadata?.finalizers ?? [];
      if (list.includes(finalizer)) return false;
      obj.metadata = { ...obj.metadata, finalizers: [...list, finalizer] };
      return true;
    },
  };
}

const claimClassOf = (pvc: PersistentVolumeClaim): string => pvc.metadata?.annotations?.[BETA_CLASS] ?? pvc.spec?.storageClassName ?? '';
const requested = (pvc: PersistentVolumeClaim): number => quantityNumber(pvc.spec?.resources?.requests?.storage);

/** PersistentVolumeClaimResize; `classByName` reads a StorageClass (the store's, by default). */
export function persistentVolumeClaimResize(
  store: Store,
  classByName: (name: string) => StorageClass | undefined = (
    (all) => (name: string) =>
      all().find((c) => c.metadata?.name === name)
  )(storeClasses(store)),
): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    contextual: true,
    appliesTo: isClaims,
    validate(op, rt, obj, old, attrs) {
      if (op !== 'UPDATE' || attrs?.subresource || !old) return;
      const pvc = obj as PersistentVolumeClaim;
      const prev = old as unknown as PersistentVolumeClaim;
      if (!(requested(pvc) > requested(prev))) return;
      const name = pvc.metadata?.name ?? '';
      if (prev.status?.phase !== 'Bound') throw admissionForbidden(rt, name, 'Only bound persistent volume claims can be expanded');
      const cls = claimClassOf(pvc);
      const sc = cls && cls === claimClassOf(prev) ? classByName(cls) : undefined;
      if (sc?.allowVolumeExpansion !== true)
        throw admissionForbidden(
          rt,
          name,
          'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        );
    },
  };
}
