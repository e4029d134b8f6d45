// Kinds that kubectl, helm and `kubectl cluster-info dump` list and ksim
// serves as plain objects (no controller acts on them): RuntimeClass, the
// admission webhook configurations (stored and validated, never called: ksim
// has no admission webhooks), CSIDriver, CSINode, VolumeAttachment,
// CSIStorageCapacity, VolumeAttributesClass, PodTemplate, APIService,
// ServiceCIDR and IPAddress.
// Defaults as kube's v1 SetDefaults_* functions; validation as the checks of
// kube's pkg/apis/*/validation that a learner meets first, with kube's messages.
import { isObject } from '../../../shared/patch/go-format.ts';
import { nameProblems } from '../names.ts';
import { child, fe, goStringSlice, index, type FieldError } from './field.ts';
import { dns1123Label, dns1123Subdomain, qualifiedName, validCIDR, validateLabelSelector } from './validators.ts';
import { isIP } from 'node:net';

/** A generic object as the rules read it: everything optional, nothing trusted. */
type Obj = Record<string, any> & { metadata?: { name?: string } };

const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const has = (v: unknown): boolean => v !== undefined && v !== null;

/** ValidateImmutableField. */
function immutable(next: unknown, old: unknown, path: string): FieldError[] {
  return JSON.stringify(next ?? null) === JSON.stringify(old ?? null) ? [] : [fe.invalid(path, next ?? null, 'field is immutable')];
}

// ---------------------------------------------------------------------------
// node.k8s.io/v1 RuntimeClass

/** ValidateRuntimeClass: the handler is a DNS label; ValidateRuntimeClassUpdate: and immutable. */
export function validateRuntimeClass(rc: Obj, old?: Obj): FieldError[] {
  const handler = typeof rc.handler === 'string' ? rc.handler : '';
  const errs = nameProblems(handler, 'label').map((m) => fe.invalid('handler', handler, m));
  if (isObject(rc.scheduling)) {
    const sel = rc.scheduling.nodeSelector;
    if (isObject(sel)) {
      for (const k of Object.keys(sel).sort()) {
        errs.push(...qualifiedName(k, 'scheduling.nodeSelector'));
      }
    }
  }
  if (old) errs.push(...immutable(rc.handler, old.handler, 'handler'));
  return errs;
}

// ---------------------------------------------------------------------------
// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration / MutatingWebhookConfiguration

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook, SetDefaults_Rule and SetDefaults_ServiceReference. */
function defaultWebhook(w: Obj, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  for (const r of list(w.rules)) if (isObject(r)) r.scope ??= '*';
  const svc = isObject(w.clientConfig) ? w.clientConfig.service : undefined;
  if (isObject(svc)) svc.port ??= 443;
}

export function defaultValidatingWebhookConfiguration(c: Obj): void {
  for (const w of list(c.webhooks)) if (isObject(w)) defaultWebhook(w, false);
}

export function defaultMutatingWebhookConfiguration(c: Obj): void {
  for (const w of list(c.webhooks)) if (isObject(w)) defaultWebhook(w, true);
}

function validateRule(r: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (list(r.apiGroups).length === 0) errs.push(fe.required(child(path, 'apiGroups')));
  if (list(r.apiVersions).length === 0) errs.push(fe.required(child(path, 'apiVersions')));
  if (list(r.resources).length === 0) errs.push(fe.required(child(path, 'resources')));
  list(r.operations).forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fe.notSupported(index(child(path, 'operations'), i), op, OPERATIONS));
  });
  if (has(r.scope) && !SCOPES.includes(r.scope)) errs.push(fe.notSupported(child(path, 'scope'), r.scope, SCOPES));
  return errs;
}

function validateClientConfig(cc: Obj | undefined, path: string): FieldError[] {
  const url = isObject(cc) ? cc.url : undefined;
  const svc = isObject(cc) ? cc.service : undefined;
  if (has(url) === has(svc)) return [fe.required(path, 'exactly one of url or service is required')];
  if (has(url)) {
    let u: URL | undefined;
    try {
      u = new URL(String(url));
    } catch {
      u = undefined;
    }
    if (!u || !u.host) return [fe.invalid(child(path, 'url'), url, 'host must be specified')];
    if (u.protocol !== 'https:') return [fe.invalid(child(path, 'url'), url, `'https' is the only allowed URL scheme`)];
    return [];
  }
  const errs: FieldError[] = [];
  const sp = child(path, 'service');
  if (!svc.name) errs.push(fe.required(child(sp, 'name'), 'service name is required'));
  if (!svc.namespace) errs.push(fe.required(child(sp, 'namespace'), 'service namespace is required'));
  if (has(svc.port) && (!Number.isInteger(svc.port) || svc.port < 1 || svc.port > 65535)) {
    errs.push(fe.invalid(child(sp, 'port'), svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  return errs;
}

/** validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration on create. */
function validateWebhookConfiguration(c: Obj, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(c.webhooks).forEach((w: Obj, i) => {
    const p = index('webhooks', i);
    if (!isObject(w)) return;
    const name = typeof w.name === 'string' ? w.name : '';
    if (!name) errs.push(fe.required(child(p, 'name')));
    else {
      if (seen.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
      seen.add(name);
      if (name.split('.').length < 3) {
        errs.push(fe.invalid(child(p, 'name'), name, 'should be a domain with at least three segments separated by dots'));
      }
      errs.push(...dns1123Subdomain(name, child(p, 'name')));
    }
    list(w.rules).forEach((r, j) => errs.push(...(isObject(r) ? validateRule(r, index(child(p, 'rules'), j)) : [])));
    if (has(w.failurePolicy) && !FAILURE_POLICIES.includes(w.failurePolicy)) {
      errs.push(fe.notSupported(child(p, 'failurePolicy'), w.failurePolicy, FAILURE_POLICIES));
    }
    if (has(w.matchPolicy) && !MATCH_POLICIES.includes(w.matchPolicy)) {
      errs.push(fe.notSupported(child(p, 'matchPolicy'), w.matchPolicy, MATCH_POLICIES));
    }
    if (!has(w.sideEffects)) errs.push(fe.required(child(p, 'sideEffects'), 'must specify one of None, NoneOnDryRun'));
    else if (!SIDE_EFFECTS.includes(w.sideEffects)) errs.push(fe.notSupported(child(p, 'sideEffects'), w.sideEffects, SIDE_EFFECTS));
    if (has(w.timeoutSeconds) && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) {
      errs.push(fe.invalid(child(p, 'timeoutSeconds'), w.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
    }
    if (mutating && has(w.reinvocationPolicy) && !REINVOCATION.includes(w.reinvocationPolicy)) {
      errs.push(fe.notSupported(child(p, 'reinvocationPolicy'), w.reinvocationPolicy, REINVOCATION));
    }
    errs.push(...validateLabelSelector(w.namespaceSelector, child(p, 'namespaceSelector')));
    errs.push(...validateLabelSelector(w.objectSelector, child(p, 'objectSelector')));
    errs.push(...validateClientConfig(w.clientConfig, child(p, 'clientConfig')));
    const versions = list(w.admissionReviewVersions);
    const vp = child(p, 'admissionReviewVersions');
    if (versions.length === 0) errs.push(fe.required(vp, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
    else if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) {
      errs.push(fe.invalidShown(vp, goStringSlice(versions), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
    }
  });
  return errs;
}

export const validateValidatingWebhookConfiguration = (c: Obj): FieldError[] => validateWebhookConfiguration(c, false);
export const validateMutatingWebhookConfiguration = (c: Obj): FieldError[] => validateWebhookConfiguration(c, true);

// ---------------------------------------------------------------------------
// storage.k8s.io/v1 CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity, VolumeAttributesClass

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Ephemeral', 'Persistent'];

/** SetDefaults_CSIDriver. */
export function defaultCSIDriver(d: Obj): void {
  if (!isObject(d.spec)) d.spec = {};
  const s = d.spec;
  s.attachRequired ??= true;
  s.podInfoOnMount ??= false;
  s.storageCapacity ??= false;
  s.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (list(s.volumeLifecycleModes).length === 0) s.volumeLifecycleModes = ['Persistent'];
  s.requiresRepublish ??= false;
  s.seLinuxMount ??= false;
}

/** ValidateCSIDriverName: at most 63 characters, a DNS subdomain (compared in lower case). */
function csiDriverName(name: string, path: string): FieldError[] {
  if (!name) return [fe.required(path)];
  const errs: FieldError[] = [];
  if (name.length > 63) errs.push(fe.tooLong(path, 63));
  errs.push(...nameProblems(name.toLowerCase(), 'subdomain').map((m) => fe.invalid(path, name, m)));
  return errs;
}

/** ValidateCSIDriver: the spec's enums; ValidateCSIDriverUpdate: attachRequired, podInfoOnMount, volumeLifecycleModes immutable. */
export function validateCSIDriver(d: Obj, old?: Obj): FieldError[] {
  const s = isObject(d.spec) ? d.spec : {};
  const errs = csiDriverName(d.metadata?.name ?? '', 'name');
  if (has(s.fsGroupPolicy) && !FS_GROUP_POLICIES.includes(s.fsGroupPolicy)) {
    errs.push(fe.notSupported('spec.fsGroupPolicy', s.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  list(s.volumeLifecycleModes).forEach((m) => {
    if (!LIFECYCLE_MODES.includes(m)) errs.push(fe.notSupported('spec.volumeLifecycleModes', m, LIFECYCLE_MODES));
  });
  const audiences = new Set<string>();
  list(s.tokenRequests).forEach((t, i) => {
    const a = isObject(t) ? String(t.audience ?? '') : '';
    if (audiences.has(a)) errs.push(fe.duplicate(child(index('spec.tokenRequests', i), 'audience'), a));
    audiences.add(a);
  });
  if (old) {
    const o = isObject(old.spec) ? old.spec : {};
    errs.push(...immutable(s.attachRequired, o.attachRequired, 'spec.attachRequired'));
    errs.push(...immutable(s.volumeLifecycleModes, o.volumeLifecycleModes, 'spec.volumeLifecycleModes'));
  }
  return errs;
}

/** ValidateCSINode: each driver named as a CSI driver, once, with a node ID. */
export function validateCSINode(n: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(n.spec?.drivers).forEach((d: Obj, i) => {
    const p = index('spec.drivers', i);
    const name = String(d?.name ?? '');
    errs.push(...csiDriverName(name, child(p, 'name')));
    if (name && seen.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
    seen.add(name);
    const nodeID = String(d?.nodeID ?? '');
    if (!nodeID) errs.push(fe.required(child(p, 'nodeID'), 'nodeID must be provided'));
    else if (nodeID.length > 256) errs.push(fe.tooLong(child(p, 'nodeID'), 256));
  });
  return errs;
}

/** ValidateVolumeAttachment: attacher, source (exactly one kind) and nodeName; ValidateVolumeAttachmentUpdate: the spec is immutable. */
export function validateVolumeAttachment(va: Obj, old?: Obj): FieldError[] {
  const s = isObject(va.spec) ? va.spec : {};
  const errs: FieldError[] = [];
  const attacher = String(s.attacher ?? '');
  if (!attacher) errs.push(fe.required('spec.attacher'));
  else errs.push(...csiDriverName(attacher, 'spec.attacher'));
  const src = isObject(s.source) ? s.source : {};
  if (!has(src.inlineVolumeSpec) && !has(src.persistentVolumeName)) {
    errs.push(fe.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  } else if (has(src.inlineVolumeSpec) && has(src.persistentVolumeName)) {
    errs.push(fe.forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  } else if (has(src.persistentVolumeName) && !src.persistentVolumeName) {
    errs.push(fe.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  }
  errs.push(...dns1123Subdomain(String(s.nodeName ?? ''), 'spec.nodeName'));
  if (old) errs.push(...immutable(va.spec, old.spec, 'spec'));
  return errs;
}

/** ValidateCSIStorageCapacity: storageClassName a DNS subdomain, nodeTopology a valid selector. */
export function validateCSIStorageCapacity(c: Obj, old?: Obj): FieldError[] {
  const errs = dns1123Subdomain(String(c.storageClassName ?? ''), 'storageClassName');
  errs.push(...validateLabelSelector(c.nodeTopology, 'nodeTopology'));
  if (old) {
    errs.push(...immutable(c.storageClassName, old.storageClassName, 'storageClassName'));
    errs.push(...immutable(c.nodeTopology, old.nodeTopology, 'nodeTopology'));
  }
  return errs;
}

/** ValidateVolumeAttributesClass: a driver name, at least one parameter; driverName and parameters immutable. */
export function validateVolumeAttributesClass(c: Obj, old?: Obj): FieldError[] {
  const errs = csiDriverName(String(c.driverName ?? ''), 'driverName');
  if (!isObject(c.parameters) || Object.keys(c.parameters).length === 0) {
    errs.push(fe.required('parameters', 'must contain at least one key/value pair'));
  }
  if (old) {
    errs.push(...immutable(c.driverName, old.driverName, 'driverName'));
    errs.push(...immutable(c.parameters, old.parameters, 'parameters'));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// core/v1 PodTemplate

/** ValidatePodTemplate's first checks: the template's labels are valid and its spec has containers. */
export function validatePodTemplate(t: Obj): FieldError[] {
  const tpl = isObject(t.template) ? t.template : undefined;
  if (!tpl) return [];
  const errs: FieldError[] = [];
  const containers = list(tpl.spec?.containers);
  if (containers.length === 0) errs.push(fe.required('template.spec.containers'));
  containers.forEach((c, i) => {
    const p = index('template.spec.containers', i);
    if (!c?.name) errs.push(fe.required(child(p, 'name')));
    else errs.push(...dns1123Label(String(c.name), child(p, 'name')));
    if (!c?.image) errs.push(fe.required(child(p, 'image')));
  });
  return errs;
}

// ---------------------------------------------------------------------------
// apiregistration.k8s.io/v1 APIService

/** ValidateAPIService: the name is version.group, and a local service (no spec.service) needs no CA. */
export function validateAPIService(s: Obj): FieldError[] {
  const spec = isObject(s.spec) ? s.spec : {};
  const errs: FieldError[] = [];
  const name = s.metadata?.name ?? '';
  const version = String(spec.version ?? '');
  const group = String(spec.group ?? '');
  if (name && name !== `${version}.${group}`) {
    errs.push(fe.invalid('metadata.name', name, 'must be `spec.version+"."+spec.group`'));
  }
  if (!version) errs.push(fe.required('spec.version'));
  else errs.push(...dns1123Label(version, 'spec.version'));
  if (!Number.isInteger(spec.groupPriorityMinimum) || spec.groupPriorityMinimum <= 0 || spec.groupPriorityMinimum > 20000) {
    errs.push(fe.invalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum ?? 0, 'must be positive and less than 20000'));
  }
  if (!Number.isInteger(spec.versionPriority) || spec.versionPriority <= 0 || spec.versionPriority > 1000) {
    errs.push(fe.invalid('spec.versionPriority', spec.versionPriority ?? 0, 'must be positive and less than 1000'));
  }
  if (!has(spec.service)) {
    if (spec.caBundle) {
      const bytes = Buffer.from(String(spec.caBundle), 'base64').length;
      errs.push(fe.invalid('spec.caBundle', `${bytes} bytes`, 'local APIServices may not have a caBundle'));
    }
    if (spec.insecureSkipTLSVerify)
      errs.push(fe.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// networking.k8s.io/v1 ServiceCIDR and IPAddress

/** ValidateServiceCIDR: one or two CIDRs, each valid; ValidateServiceCIDRUpdate: an existing CIDR does not change. */
export function validateServiceCIDR(c: Obj, old?: Obj): FieldError[] {
  const cidrs = list(c.spec?.cidrs);
  if (cidrs.length === 0) return [fe.required('spec.cidrs', 'at least one CIDR required')];
  const errs: FieldError[] = [];
  if (cidrs.length > 2) errs.push(fe.tooMany('spec.cidrs', cidrs.length, 2));
  cidrs.forEach((cidr, i) => errs.push(...validCIDR(String(cidr), index('spec.cidrs', i))));
  if (old) {
    list(old.spec?.cidrs).forEach((was, i) => {
      if (cidrs[i] !== was) errs.push(fe.invalid(index('spec.cidrs', i), cidrs[i] ?? '', 'field is immutable'));
    });
  }
  return errs;
}

/** ValidateIPAddress: the name is an IP address; a parent reference with a resource and a name; the spec is immutable. */
export function validateIPAddress(a: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = a.metadata?.name ?? '';
  if (name && !isIP(name)) errs.push(fe.invalid('metadata.name', name, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  const ref = a.spec?.parentRef;
  if (!isObject(ref)) errs.push(fe.required('spec.parentRef'));
  else {
    if (!ref.resource) errs.push(fe.required('spec.parentRef.resource'));
    if (!ref.name) errs.push(fe.required('spec.parentRef.name'));
  }
  if (old) errs.push(...immutable(a.spec?.parentRef, old.spec?.parentRef, 'spec.parentRef'));
  return errs;
}
