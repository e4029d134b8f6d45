// Storage kinds: PersistentVolume and PersistentVolumeClaim (defaults of
// core/v1 defaults.go, ValidatePersistentVolume(Claim)(Update) of
// pkg/apis/core/validation) and StorageClass (storage/v1 defaults,
// pkg/apis/storage/validation).
import { isObject } from '../../../shared/patch/go-format.ts';
import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeSpec } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { child, fe, index, semanticEqual, show, sortedKeys, type FieldError } from './field.ts';
import { cmpQuantity, formatQuantity, type Quantity } from './quantity.ts';
import { quantityAt } from './resources.ts';
import { dns1123Subdomain, qualifiedName, validateLabelSelector } from './validators.ts';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const PV_RECLAIM = ['Delete', 'Recycle', 'Retain'];
const SC_RECLAIM = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

/** The volume sources a PersistentVolumeSpec may carry, in kube's validation order. */
export const PV_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** SetDefaults_PersistentVolume (the phase is the strategy's initial status). */
export function defaultPersistentVolume(pv: PersistentVolume): void {
  if (!isObject(pv.spec)) pv.spec = {};
  const spec = pv.spec;
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (unset(spec.volumeMode)) spec.volumeMode = 'Filesystem';
  if (isObject(spec.hostPath) && unset(spec.hostPath.type)) spec.hostPath.type = '';
}

/** SetDefaults_PersistentVolumeClaim. */
export function defaultPersistentVolumeClaim(pvc: PersistentVolumeClaim): void {
  if (!isObject(pvc.spec)) pvc.spec = {};
  if (unset(pvc.spec.volumeMode)) pvc.spec.volumeMode = 'Filesystem';
}

/** SetDefaults_StorageClass. */
export function defaultStorageClass(sc: StorageClass): void {
  if (unset(sc.reclaimPolicy) || sc.reclaimPolicy === '') sc.reclaimPolicy = 'Delete';
  if (unset(sc.volumeBindingMode) || sc.volumeBindingMode === '') sc.volumeBindingMode = 'Immediate';
}

function validateAccessModes(modes: unknown, path: string, requiredDetail: string): FieldError[] {
  const list: unknown[] = Array.isArray(modes) ? modes : [];
  const p = child(path, 'accessModes');
  if (list.length === 0) return [fe.required(p, requiredDetail)];
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const m of list) {
    if (!ACCESS_MODES.includes(String(m))) errs.push(fe.notSupported(p, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(String(m))) other = true;
  }
  if (rwop && other) errs.push(fe.forbidden(p, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function positiveQuantity(value: unknown, path: string, errs: FieldError[]): Quantity | undefined {
  const q = quantityAt(value, path, errs);
  if (!q) return undefined;
  if (q.mant <= 0n) {
    errs.push(fe.invalid(path, formatQuantity(q), 'must be greater than zero'));
    return undefined;
  }
  return q;
}

function className(name: unknown, path: string): FieldError[] {
  return typeof name === 'string' && name.length > 0 ? dns1123Subdomain(name, path) : [];
}

/** Go's %#v of a ResourceList, enough for the capacity NotSupported message. */
function showResourceList(list: unknown): string {
  const keys = sortedKeys(list);
  if (keys.length === 0) return 'core.ResourceList(nil)';
  return `core.ResourceList{${keys.map((k) => `${show(k)}:${show((list as Record<string, unknown>)[k])}`).join(', ')}}`;
}

function validatePVSpec(spec: PersistentVolumeSpec): FieldError[] {
  const path = 'spec';
  const errs = validateAccessModes(spec.accessModes, path, '');
  const cap = spec.capacity;
  const capPath = child(path, 'capacity');
  const capKeys = sortedKeys(cap);
  if (capKeys.length === 0) errs.push(fe.required(capPath));
  if (!capKeys.includes('storage') || capKeys.length > 1) {
    errs.push({
      type: 'FieldValueNotSupported',
      field: capPath,
      message: `${capPath}: Unsupported value: ${showResourceList(cap)}: supported values: "storage"`,
    });
  }
  for (const k of capKeys) positiveQuantity((cap as Record<string, unknown>)[k], index(capPath, k), errs);
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy && !PV_RECLAIM.includes(policy)) errs.push(fe.notSupported(child(path, 'persistentVolumeReclaimPolicy'), policy, PV_RECLAIM));
  const affinity = spec.nodeAffinity;
  let affinityGiven = false;
  if (isObject(affinity)) {
    const terms = affinity.required?.nodeSelectorTerms;
    if (!isObject(affinity.required))
      errs.push(fe.required(child(path, 'nodeAffinity.required'), 'must specify required node constraints'));
    else if (!Array.isArray(terms) || terms.length === 0)
      errs.push(fe.required(child(path, 'nodeAffinity.required.nodeSelectorTerms'), 'must have at least one node selector term'));
    else affinityGiven = true;
  }
  const record = spec as Record<string, unknown>;
  let sources = 0;
  for (const src of PV_SOURCES) {
    const value = record[src];
    if (!isObject(value)) continue;
    if (sources > 0 && src !== 'flexVolume') {
      errs.push(fe.forbidden(child(path, src), 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    const v = value as Record<string, unknown>;
    if (src === 'hostPath' || src === 'local') {
      const p = child(child(path, src), 'path');
      if (typeof v.path !== 'string' || v.path === '') errs.push(fe.required(p));
      else if (v.path.split('/').includes('..')) errs.push(fe.invalid(p, v.path, "must not contain '..'"));
      if (src === 'local' && !affinityGiven) errs.push(fe.required(child(path, 'nodeAffinity'), 'Local volume requires node affinity'));
    }
    if (src === 'nfs') {
      if (!v.server) errs.push(fe.required(child(path, 'nfs.server')));
      if (!v.path) errs.push(fe.required(child(path, 'nfs.path')));
    }
    if (src === 'csi') {
      if (!v.driver) errs.push(fe.required(child(path, 'csi.driver')));
      if (!v.volumeHandle) errs.push(fe.required(child(path, 'csi.volumeHandle')));
    }
  }
  if (sources === 0) errs.push(fe.required(path, 'must specify a volume type'));
  if (isObject(spec.hostPath) && spec.hostPath.path === '/' && policy === 'Recycle')
    errs.push(fe.forbidden(child(path, 'persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  errs.push(...className(spec.storageClassName, child(path, 'storageClassName')));
  if (!unset(spec.volumeMode) && !VOLUME_MODES.includes(spec.volumeMode))
    errs.push(fe.notSupported(child(path, 'volumeMode'), spec.volumeMode, VOLUME_MODES));
  return errs;
}

function immutable(next: unknown, old: unknown, path: string): FieldError[] {
  return semanticEqual(next, old) ? [] : [fe.invalid(path, next ?? null, 'field is immutable')];
}

/** ValidatePersistentVolume, and ValidatePersistentVolumeUpdate with `old`. */
export function validatePersistentVolume(pv: PersistentVolume, old?: PersistentVolume): FieldError[] {
  const spec = isObject(pv.spec) ? pv.spec : {};
  const errs = validatePVSpec(spec);
  if (!old) return errs;
  const oldSpec = (isObject(old.spec) ? old.spec : {}) as Record<string, unknown>;
  const record = spec as Record<string, unknown>;
  const changed = PV_SOURCES.filter((s) => !semanticEqual(record[s], oldSpec[s]));
  if (changed.length > 0) {
    const diff = changed
      .map((s) => `-\t${s}: ${JSON.stringify(oldSpec[s] ?? null)}\n+\t${s}: ${JSON.stringify(record[s] ?? null)}`)
      .join('\n');
    errs.push(fe.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${diff}`));
  }
  errs.push(...immutable(spec.volumeMode, oldSpec.volumeMode, 'volumeMode'));
  if (isObject(oldSpec.nodeAffinity)) errs.push(...immutable(spec.nodeAffinity, oldSpec.nodeAffinity, 'nodeAffinity'));
  return errs;
}

/** The message of kube's Forbidden for a changed claim spec. */
export const PVC_SPEC_IMMUTABLE =
  'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

function storageRequest(pvc: PersistentVolumeClaim | undefined): unknown {
  return pvc?.spec?.resources?.requests?.storage;
}

function validatePVCSpec(pvc: PersistentVolumeClaim): FieldError[] {
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  const errs = validateAccessModes(spec.accessModes, 'spec', 'at least 1 access mode is required');
  if (isObject(spec.selector)) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const p = 'spec.resources[storage]';
  const requests = spec.resources?.requests;
  if (!isObject(requests) || !('storage' in requests)) errs.push(fe.required(p));
  else positiveQuantity(requests.storage, p, errs);
  errs.push(...className(spec.storageClassName, 'spec.storageClassName'));
  if (!unset(spec.volumeMode) && !VOLUME_MODES.includes(spec.volumeMode))
    errs.push(fe.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  for (const f of ['dataSource', 'dataSourceRef'] as const) {
    const ds = spec[f];
    if (!isObject(ds)) continue;
    if (!ds.name) errs.push(fe.required(`spec.${f}.name`));
    if (!ds.kind) errs.push(fe.required(`spec.${f}.kind`));
    if (!ds.apiGroup && ds.kind && ds.kind !== 'PersistentVolumeClaim') errs.push(fe.invalid(`spec.${f}`, ds.kind, ''));
  }
  return errs;
}

function quantityOf(v: unknown): Quantity | undefined {
  const errs: FieldError[] = [];
  return v === undefined ? undefined : quantityAt(v, '', errs);
}

/** ValidatePersistentVolumeClaim, and ValidatePersistentVolumeClaimUpdate with `old`. */
export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim, old?: PersistentVolumeClaim): FieldError[] {
  const errs = validatePVCSpec(pvc);
  if (!old) return errs;
  const next = structuredClone(isObject(pvc.spec) ? pvc.spec : {});
  const prev = structuredClone(isObject(old.spec) ? old.spec : {});
  // The binder sets volumeName once.
  if (!prev.volumeName) prev.volumeName = next.volumeName;
  const bound = pvc.status?.phase === 'Bound';
  if (bound) {
    if (isObject(next.resources?.requests)) next.resources.requests.storage = prev.resources?.requests?.storage as string;
    next.volumeAttributesClassName = prev.volumeAttributesClassName;
  }
  if (!semanticEqual(next, prev)) {
    const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort();
    const lines = ['  core.PersistentVolumeClaimSpec{'];
    for (const k of keys) {
      const a = (prev as Record<string, unknown>)[k];
      const b = (next as Record<string, unknown>)[k];
      if (semanticEqual(a, b)) continue;
      const name = k.charAt(0).toUpperCase() + k.slice(1);
      if (a !== undefined) lines.push(`- \t${name}: ${JSON.stringify(a)},`);
      if (b !== undefined) lines.push(`+ \t${name}: ${JSON.stringify(b)},`);
    }
    lines.push('  }');
    errs.push(fe.forbidden('spec', `${PVC_SPEC_IMMUTABLE}\n${lines.join('\n')}\n`));
  }
  const newSize = quantityOf(storageRequest(pvc));
  const oldSize = quantityOf(storageRequest(old));
  const statusSize = quantityOf(old.status?.capacity?.storage);
  if (newSize && oldSize && cmpQuantity(newSize, oldSize) < 0) {
    if (!statusSize || cmpQuantity(newSize, statusSize) <= 0)
      errs.push(fe.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  errs.push(...immutable(pvc.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  return errs;
}

/** ValidateStorageClass, and ValidateStorageClassUpdate with `old`. */
export function validateStorageClass(sc: StorageClass, old?: StorageClass): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = typeof sc.provisioner === 'string' ? sc.provisioner : '';
  if (provisioner === '') errs.push(fe.required('provisioner'));
  else if (provisioner.length > 0) {
    for (const e of qualifiedName(provisioner.toLowerCase(), 'provisioner'))
      errs.push({ ...e, message: e.message.replace(show(provisioner.toLowerCase()), show(provisioner)) });
  }
  const params = sortedKeys(sc.parameters);
  if (params.length > 512) errs.push(fe.tooLong('parameters', 512));
  if (params.includes('')) errs.push(fe.invalid('parameters', '', 'parameter name must not be empty'));
  if (sc.reclaimPolicy && !SC_RECLAIM.includes(sc.reclaimPolicy)) errs.push(fe.notSupported('reclaimPolicy', sc.reclaimPolicy, SC_RECLAIM));
  if (!sc.volumeBindingMode) errs.push(fe.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode))
    errs.push(fe.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  if (!old) return errs;
  if (!semanticEqual(sc.parameters, old.parameters)) errs.push(fe.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(fe.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy) errs.push(fe.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...immutable(sc.volumeBindingMode, old.volumeBindingMode, 'volumeBindingMode'));
  return errs;
}
