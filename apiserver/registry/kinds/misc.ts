// The smaller kinds: Namespace, Node, Endpoints, Lease, Events (core and
// events.k8s.io), PodDisruptionBudget, ResourceQuota, LimitRange and
// CertificateSigningRequest: their defaults and kube's validation.
import { isObject } from '../../../shared/patch/go-format.ts';
import { child, fe, goBytes, goIntOrString, goLabelSelector, goStringSlice, index, semanticEqual, type FieldError } from './field.ts';
import { notMoreThan100Percent, positiveIntOrPercent } from './intstr.ts';
import { canonicalizeResourceList, cmpQuantity, formatQuantity, type Quantity } from './quantity.ts';
import {
  isOvercommitAllowed,
  validateContainerResourceName,
  validateQuotaResourceName,
  validateResourceList,
  validateResourceName,
} from './resources.ts';
import { dns1123Label, portNumProblems, qualifiedName, validCIDR, validIP, validateLabelSelector } from './validators.ts';
import { base64Problem } from './config.ts';
import { isLabelValue } from '../../../shared/labels/index.ts';
import { nameProblems } from '../names.ts';
import type { Endpoints, Event as CoreV1Event, EventSource, LimitRange, Namespace, Node, ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import type { Lease, LeaseSpec } from 'kubernetes-types/coordination/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetSpec } from 'kubernetes-types/policy/v1.js';
import type { CertificateSigningRequest, CertificateSigningRequestSpec } from 'kubernetes-types/certificates/v1.js';

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** `T` with fields `K` that may be null: Go serializes a nil metav1.Time so, which kubernetes-types has no room for. */
type NullTimes<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | null };

/** A core/v1 Event as stored and served. */
export type CoreEventJSON = NullTimes<CoreV1Event, 'firstTimestamp' | 'lastTimestamp' | 'eventTime'>;

/** An events.k8s.io/v1 Event as served. */
export type EventsV1JSON = NullTimes<EventsV1Event, 'deprecatedFirstTimestamp' | 'deprecatedLastTimestamp' | 'eventTime'>;

/** A Lease spec with the coordinated leader election fields (Kubernetes 1.31), newer than kubernetes-types. */
type LeaseSpecJSON = LeaseSpec & { strategy?: string; preferredHolder?: string };

// ------------------------------------------------------------------ time

/** metav1.MicroTime as kube serializes it: UTC with six fractional digits. */
export function canonicalMicroTime<T>(v: T): T | string {
  return canonicalTime(v, 6);
}

/** metav1.Time as kube serializes it: UTC, whole seconds. */
export function canonicalTime<T>(v: T, digits = 0): T | string {
  if (typeof v !== 'string') return v;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:\d{2})$/.exec(v);
  if (!m) return v;
  const base = new Date(`${m[1]}${m[3].toUpperCase()}`);
  if (Number.isNaN(base.getTime())) return v;
  const whole = base.toISOString().slice(0, 19);
  if (digits === 0) return `${whole}Z`;
  return `${whole}.${(m[2] ?? '').slice(0, digits).padEnd(digits, '0')}Z`;
}

// ------------------------------------------------------------------ Namespace

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** Namespace defaults: the kubernetes finalizer and the kubernetes.io/metadata.name label. */
export function defaultNamespace(ns: Namespace): void {
  if (!isObject(ns.spec)) ns.spec = {};
  ns.spec.finalizers ??= ['kubernetes'];
  if (isObject(ns.metadata) && ns.metadata.name) {
    ns.metadata.labels = { ...(ns.metadata.labels ?? {}), 'kubernetes.io/metadata.name': ns.metadata.name };
  }
}

/** ValidateNamespace: spec.finalizers are qualified and, unprefixed, standard. */
export function validateNamespace(ns: Namespace): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of Array.isArray(ns.spec?.finalizers) ? ns.spec.finalizers : []) {
    const v = String(f);
    errs.push(...qualifiedName(v, 'spec.finalizers'));
    if (!v.includes('/') && !STANDARD_FINALIZERS.has(v))
      errs.push(fe.invalid('spec.finalizers', v, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

// ------------------------------------------------------------------ Node

/** Node defaults: podCIDR/podCIDRs kept in step, quantities canonical, allocatable from capacity. */
export function defaultNode(node: Node): void {
  const spec = isObject(node.spec) ? node.spec : (node.spec = {});
  if (spec.podCIDR && !(Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0)) spec.podCIDRs = [spec.podCIDR];
  if (!spec.podCIDR && Array.isArray(spec.podCIDRs) && spec.podCIDRs.length > 0) spec.podCIDR = spec.podCIDRs[0];
  if (isObject(node.status)) {
    canonicalizeResourceList(node.status.capacity);
    canonicalizeResourceList(node.status.allocatable);
    if (unset(node.status.allocatable) && isObject(node.status.capacity)) node.status.allocatable = { ...node.status.capacity };
  }
}

/** ValidateNode / ValidateNodeUpdate. */
export function validateNode(node: Node, old?: Node): FieldError[] {
  const errs: FieldError[] = [];
  const spec = node.spec ?? {};
  const taints = Array.isArray(spec.taints) ? spec.taints : [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    // kube reports node taints under metadata.taints.
    const p = index('metadata.taints', i);
    errs.push(...qualifiedName(String(t?.key ?? ''), child(p, 'key')));
    const m = isLabelValue(String(t?.value ?? ''));
    if (m.length > 0) errs.push(fe.invalid(child(p, 'value'), t?.value ?? '', m.join(';')));
    if (!t?.effect) errs.push(fe.required(child(p, 'effect')));
    else if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect))
      errs.push(fe.notSupported(child(p, 'effect'), t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    const key = `${t?.effect}\u0000${t?.key}`;
    if (seen.has(key)) {
      const shown = `core.Taint{Key:${JSON.stringify(String(t?.key ?? ''))}, Value:${JSON.stringify(String(t?.value ?? ''))}, Effect:${JSON.stringify(String(t?.effect ?? ''))}, TimeAdded:<nil>}`;
      errs.push({
        ...fe.duplicateShown(p, shown),
        message: `${p}: Duplicate value: ${shown}: taints must be unique by key and effect pair`,
      });
    }
    seen.add(key);
  });
  for (const [k, list] of [
    ['capacity', node.status?.capacity],
    ['allocatable', node.status?.allocatable],
  ] as const) {
    validateResourceList(list, `status.${k}`, () => [], errs);
  }
  const cidrs: string[] = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : [];
  cidrs.forEach((c, i) => errs.push(...validCIDR(String(c), index('spec.podCIDRs', i))));
  if (cidrs.length > 1) {
    const fams = new Set(cidrs.map((c) => (String(c).includes(':') ? 6 : 4)));
    if (fams.size !== cidrs.length || cidrs.length > 2)
      errs.push(fe.invalidShown('spec.podCIDRs', goStringSlice(cidrs), 'may specify no more than one CIDR for each IP family'));
  }
  if (old) {
    const oldList = old.spec?.podCIDRs;
    const oldCidrs: string[] = Array.isArray(oldList) ? oldList : [];
    if (oldCidrs.length > 0 && (oldCidrs.length !== cidrs.length || oldCidrs.some((c, i) => c !== cidrs[i]))) {
      errs.push(fe.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
    }
    if (old.spec?.providerID && old.spec.providerID !== spec.providerID) {
      errs.push(fe.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
    }
  }
  return errs;
}

// ------------------------------------------------------------------ Endpoints

/** SetDefaults_Endpoints: ports default to TCP. */
export function defaultEndpoints(ep: Endpoints): void {
  for (const s of Array.isArray(ep.subsets) ? ep.subsets : []) {
    for (const p of Array.isArray(s?.ports) ? s.ports : []) if (isObject(p) && !p.protocol) p.protocol = 'TCP';
  }
}

/** ValidateEndpoints (addresses and ports of each subset). */
export function validateEndpoints(ep: Endpoints): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(ep.subsets) ? ep.subsets : []).forEach((s, i) => {
    const sp = index('subsets', i);
    for (const key of ['addresses', 'notReadyAddresses'] as const) {
      const list = s?.[key];
      (Array.isArray(list) ? list : []).forEach((a, j) => {
        const ap = index(child(sp, key), j);
        errs.push(...validIP(String(a?.ip ?? ''), child(ap, 'ip')));
        if (a?.hostname) errs.push(...dns1123Label(String(a.hostname), child(ap, 'hostname')));
      });
    }
    const given = s?.ports;
    const ports = Array.isArray(given) ? given : [];
    ports.forEach((p, j) => {
      const pp = index(child(sp, 'ports'), j);
      if (ports.length > 1 && !p?.name) errs.push(fe.required(child(pp, 'name')));
      else if (p?.name) errs.push(...dns1123Label(String(p.name), child(pp, 'name')));
      errs.push(...portNumProblems(p?.port).map((m) => fe.invalid(child(pp, 'port'), p?.port ?? 0, m)));
      if (!p?.protocol) errs.push(fe.required(child(pp, 'protocol')));
      else if (!['SCTP', 'TCP', 'UDP'].includes(p.protocol))
        errs.push(fe.notSupported(child(pp, 'protocol'), p.protocol, ['SCTP', 'TCP', 'UDP']));
    });
  });
  return errs;
}

// ------------------------------------------------------------------ Lease

/** Lease defaults: MicroTimes in kube's canonical form. */
export function defaultLease(lease: Lease): void {
  const spec = lease.spec;
  if (!isObject(spec)) return;
  for (const f of ['acquireTime', 'renewTime'] as const) {
    const v = spec[f];
    if (!unset(v)) spec[f] = canonicalMicroTime(v);
  }
}

/** ValidateLease. */
export function validateLease(lease: Lease): FieldError[] {
  const spec: LeaseSpecJSON = lease.spec ?? {};
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push(fe.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push(fe.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (!unset(spec.strategy)) {
    const s = String(spec.strategy);
    if (!s.includes('/')) {
      if (s !== 'OldestEmulationVersion') errs.push(fe.notSupported('spec.strategy', s, ['OldestEmulationVersion']));
    } else {
      errs.push(...qualifiedName(s, 'spec.strategy'));
    }
  }
  if (spec.preferredHolder && !spec.strategy)
    errs.push(fe.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

// ------------------------------------------------------------------ Events

/** Core v1 Event defaults: the zero-valued structs and strings kube always serializes. */
export function defaultCoreEvent(ev: CoreEventJSON): void {
  if (!isObject(ev.involvedObject)) ev.involvedObject = {};
  if (!isObject(ev.source)) ev.source = {};
  ev.firstTimestamp = unset(ev.firstTimestamp) ? null : canonicalTime(ev.firstTimestamp);
  ev.lastTimestamp = unset(ev.lastTimestamp) ? null : canonicalTime(ev.lastTimestamp);
  ev.eventTime = unset(ev.eventTime) ? null : canonicalMicroTime(ev.eventTime);
  if (isObject(ev.series) && !unset(ev.series.lastObservedTime))
    ev.series.lastObservedTime = canonicalMicroTime(ev.series.lastObservedTime);
  ev.reportingComponent ??= '';
  ev.reportingInstance ??= '';
}

/** events.k8s.io/v1 Event defaults (the same zero values under that API's names). */
export function defaultEventsV1(ev: EventsV1JSON): void {
  ev.eventTime = unset(ev.eventTime) ? null : canonicalMicroTime(ev.eventTime);
  if (!isObject(ev.regarding)) ev.regarding = {};
  if (!isObject(ev.deprecatedSource)) ev.deprecatedSource = {};
  ev.deprecatedFirstTimestamp = unset(ev.deprecatedFirstTimestamp) ? null : canonicalTime(ev.deprecatedFirstTimestamp);
  ev.deprecatedLastTimestamp = unset(ev.deprecatedLastTimestamp) ? null : canonicalTime(ev.deprecatedLastTimestamp);
  if (isObject(ev.series) && !unset(ev.series.lastObservedTime))
    ev.series.lastObservedTime = canonicalMicroTime(ev.series.lastObservedTime);
}

/** An Event in core's internal shape, whichever API it came through. */
interface CoreEvent {
  namespace: string;
  involvedNamespace: string;
  eventTime: unknown;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  message: string;
  type: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  count: number;
  source: EventSource | undefined;
  series: unknown;
}

function legacyValidateEvent(e: CoreEvent, reportingField: string): FieldError[] {
  const errs: FieldError[] = [];
  if (unset(e.eventTime)) {
    if (!e.involvedNamespace) {
      if (e.namespace !== '' && e.namespace !== 'default')
        errs.push(fe.invalid('involvedObject.namespace', e.involvedNamespace, 'does not match event.namespace'));
    } else if (e.namespace !== e.involvedNamespace) {
      errs.push(fe.invalid('involvedObject.namespace', e.involvedNamespace, 'does not match event.namespace'));
    }
  } else {
    if (!e.involvedNamespace && e.namespace !== 'default' && e.namespace !== 'kube-system') {
      errs.push(fe.invalid('involvedObject.namespace', e.involvedNamespace, 'does not match event.namespace'));
    }
    if (!e.reportingController) errs.push(fe.required(reportingField));
    errs.push(...qualifiedName(e.reportingController, reportingField));
    if (!e.reportingInstance) errs.push(fe.required('reportingInstance'));
    if (e.reportingInstance.length > 128) errs.push(fe.invalid('reportingInstance', '', 'can have at most 128 characters'));
    if (!e.action) errs.push(fe.required('action'));
    if (e.action.length > 128) errs.push(fe.invalid('action', '', 'can have at most 128 characters'));
    if (!e.reason) errs.push(fe.required('reason'));
    if (e.reason.length > 128) errs.push(fe.invalid('reason', '', 'can have at most 128 characters'));
    if (e.message.length > 1024) errs.push(fe.invalid('message', '', 'can have at most 1024 characters'));
  }
  for (const m of nameProblems(e.namespace, 'subdomain')) errs.push(fe.invalid('namespace', e.namespace, m));
  return errs;
}

function fromCore(ev: CoreEventJSON): CoreEvent {
  return {
    namespace: String(ev.metadata?.namespace ?? ''),
    involvedNamespace: String(ev.involvedObject?.namespace ?? ''),
    eventTime: ev.eventTime,
    reportingController: String(ev.reportingComponent ?? ''),
    reportingInstance: String(ev.reportingInstance ?? ''),
    action: String(ev.action ?? ''),
    reason: String(ev.reason ?? ''),
    message: String(ev.message ?? ''),
    type: String(ev.type ?? ''),
    firstTimestamp: ev.firstTimestamp,
    lastTimestamp: ev.lastTimestamp,
    count: Number(ev.count ?? 0),
    source: ev.source,
    series: ev.series,
  };
}

function fromEventsV1(ev: EventsV1JSON): CoreEvent {
  return {
    namespace: String(ev.metadata?.namespace ?? ''),
    involvedNamespace: String(ev.regarding?.namespace ?? ''),
    eventTime: ev.eventTime,
    reportingController: String(ev.reportingController ?? ''),
    reportingInstance: String(ev.reportingInstance ?? ''),
    action: String(ev.action ?? ''),
    reason: String(ev.reason ?? ''),
    message: String(ev.note ?? ''),
    type: String(ev.type ?? ''),
    firstTimestamp: ev.deprecatedFirstTimestamp,
    lastTimestamp: ev.deprecatedLastTimestamp,
    count: Number(ev.deprecatedCount ?? 0),
    source: ev.deprecatedSource,
    series: ev.series,
  };
}

/** ValidateEventCreate/Update for the core v1 API: the legacy rules only. */
export function validateCoreEvent(ev: CoreEventJSON): FieldError[] {
  return legacyValidateEvent(fromCore(ev), 'reportingComponent');
}

/** ValidateEventCreate/Update for events.k8s.io/v1: legacy plus the strict rules. */
export function validateEventsV1(ev: EventsV1JSON, old?: EventsV1JSON): FieldError[] {
  const e = fromEventsV1(ev);
  const errs = legacyValidateEvent(e, 'reportingController');
  const series = (s: unknown): FieldError[] => {
    if (!isObject(s)) return [];
    const out: FieldError[] = [];
    if (!(Number(s.count ?? 0) >= 2)) out.push(fe.invalid('series.count', '', 'should be at least 2'));
    if (unset(s.lastObservedTime)) out.push(fe.required('series.lastObservedTime'));
    return out;
  };
  if (!old) {
    errs.push(...series(e.series));
    if (unset(e.eventTime)) errs.push(fe.required('eventTime'));
    if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(fe.invalid('type', '', `has invalid value: ${e.type}`));
    if (!unset(e.firstTimestamp)) errs.push(fe.invalid('firstTimestamp', '', 'needs to be unset'));
    if (!unset(e.lastTimestamp)) errs.push(fe.invalid('lastTimestamp', '', 'needs to be unset'));
    if (e.count !== 0) errs.push(fe.invalid('count', '', 'needs to be unset'));
    if (e.source?.component || e.source?.host) errs.push(fe.invalid('source', '', 'needs to be unset'));
    return errs;
  }
  if (!semanticEqual(ev.series, old.series)) errs.push(...series(e.series));
  const pairs: [string, keyof EventsV1JSON][] = [
    ['involvedObject', 'regarding'],
    ['reason', 'reason'],
    ['message', 'note'],
    ['source', 'deprecatedSource'],
    ['firstTimestamp', 'deprecatedFirstTimestamp'],
    ['lastTimestamp', 'deprecatedLastTimestamp'],
    ['count', 'deprecatedCount'],
    ['type', 'type'],
    ['eventTime', 'eventTime'],
    ['action', 'action'],
    ['related', 'related'],
    ['reportingController', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ];
  for (const [path, key] of pairs) {
    if (!semanticEqual(ev[key], old[key])) errs.push(fe.invalid(path, ev[key] ?? '', 'field is immutable'));
  }
  return errs;
}

// ------------------------------------------------------------------ PodDisruptionBudget

/** PDB defaults: the status counters kube always serializes. */
export function defaultPDB(pdb: PodDisruptionBudget): void {
  const status = pdb.status;
  if (!isObject(status)) return;
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) if (unset(status[f])) status[f] = 0;
}

/** An approximation of Go's `%#v` of a PodDisruptionBudgetSpec (kube's shows pointer addresses). */
function goPDBSpec(spec: PodDisruptionBudgetSpec): string {
  const ptr = (v: unknown) => (unset(v) ? '(*intstr.IntOrString)(nil)' : `&${goIntOrString(v)}`);
  const sel = unset(spec.selector) ? '(*v1.LabelSelector)(nil)' : `&${goLabelSelector(spec.selector)}`;
  const policy = unset(spec.unhealthyPodEvictionPolicy)
    ? '(*policy.UnhealthyPodEvictionPolicyType)(nil)'
    : `&${JSON.stringify(String(spec.unhealthyPodEvictionPolicy))}`;
  return `policy.PodDisruptionBudgetSpec{MinAvailable:${ptr(spec.minAvailable)}, Selector:${sel}, MaxUnavailable:${ptr(spec.maxUnavailable)}, UnhealthyPodEvictionPolicy:${policy}}`;
}

/** ValidatePodDisruptionBudget (policy/v1). */
export function validatePDB(pdb: PodDisruptionBudget): FieldError[] {
  const spec: PodDisruptionBudgetSpec = pdb.spec ?? {};
  const errs: FieldError[] = [];
  if (!unset(spec.minAvailable) && !unset(spec.maxUnavailable)) {
    errs.push(fe.invalidShown('spec', goPDBSpec(spec), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable'] as const) {
    if (unset(spec[f])) continue;
    errs.push(...positiveIntOrPercent(spec[f], `spec.${f}`));
    errs.push(...notMoreThan100Percent(spec[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  if (!unset(spec.unhealthyPodEvictionPolicy) && !['AlwaysAllow', 'IfHealthyBudget'].includes(spec.unhealthyPodEvictionPolicy)) {
    errs.push(fe.notSupported('spec.unhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy, ['AlwaysAllow', 'IfHealthyBudget']));
  }
  return errs;
}

// ------------------------------------------------------------------ ResourceQuota

const QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
];

/** ResourceQuota defaults: quantities in canonical form. */
export function defaultResourceQuota(q: ResourceQuota): void {
  canonicalizeResourceList(q.spec?.hard);
  canonicalizeResourceList(q.status?.hard);
  canonicalizeResourceList(q.status?.used);
}

/** ValidateResourceQuota. */
export function validateResourceQuota(q: ResourceQuota): FieldError[] {
  const errs: FieldError[] = [];
  validateResourceList(q.spec?.hard, 'spec.hard', validateQuotaResourceName, errs);
  const givenScopes = q.spec?.scopes;
  const scopes: string[] = Array.isArray(givenScopes) ? givenScopes : [];
  const shownScopes = `[]core.ResourceQuotaScope{${scopes.map((s) => JSON.stringify(s)).join(', ')}}`;
  for (const s of scopes) if (!QUOTA_SCOPES.includes(s)) errs.push(fe.invalidShown('spec.scopes', shownScopes, 'unsupported scope'));
  const has = (a: string, b: string) => scopes.includes(a) && scopes.includes(b);
  if (has('BestEffort', 'NotBestEffort') || has('Terminating', 'NotTerminating'))
    errs.push(fe.invalidShown('spec.scopes', shownScopes, 'conflicting scopes'));
  const exprs = q.spec?.scopeSelector?.matchExpressions;
  (Array.isArray(exprs) ? exprs : []).forEach((req) => {
    const p = 'spec.scopeSelector.matchExpressions';
    if (!QUOTA_SCOPES.includes(req?.scopeName)) errs.push(fe.invalid(`${p}.scopeName`, req?.scopeName ?? '', 'unsupported scope'));
    const values: unknown[] = Array.isArray(req?.values) ? req.values : [];
    switch (req?.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          errs.push(fe.required(`${p}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          errs.push(
            fe.invalidShown(
              `${p}.values`,
              goStringSlice(values),
              "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            ),
          );
        break;
      default:
        errs.push(fe.invalid(`${p}.operator`, req?.operator ?? '', 'not a valid selector operator'));
    }
  });
  validateResourceList(q.status?.hard, 'status.hard', validateQuotaResourceName, errs);
  validateResourceList(q.status?.used, 'status.used', validateQuotaResourceName, errs);
  return errs;
}

// ------------------------------------------------------------------ LimitRange

/** SetDefaults_LimitRangeItem (Container items) and canonical quantities. */
export function defaultLimitRange(lr: LimitRange): void {
  const limits = lr.spec?.limits;
  for (const item of Array.isArray(limits) ? limits : []) {
    if (!isObject(item)) continue;
    for (const k of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const) canonicalizeResourceList(item[k]);
    if (item.type !== 'Container') continue;
    if (!isObject(item.default)) item.default = {};
    if (!isObject(item.defaultRequest)) item.defaultRequest = {};
    const def = item.default;
    const defReq = item.defaultRequest;
    const max = item.max ?? {};
    const min = item.min ?? {};
    for (const k of Object.keys(max)) if (!(k in def)) def[k] = max[k];
    for (const k of Object.keys(def)) if (!(k in defReq)) defReq[k] = def[k];
    for (const k of Object.keys(min)) if (!(k in defReq)) defReq[k] = min[k];
  }
}

/** ValidateLimitRange. */
export function validateLimitRange(lr: LimitRange): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  const limits = lr.spec?.limits;
  (Array.isArray(limits) ? limits : []).forEach((item, i) => {
    const p = index('spec.limits', i);
    const type = String(item?.type ?? '');
    const typeErrs = qualifiedName(type, child(p, 'type'));
    if (typeErrs.length === 0 && !type.includes('/') && !['Pod', 'Container', 'PersistentVolumeClaim'].includes(type)) {
      typeErrs.push(fe.invalid(child(p, 'type'), type, 'must be a standard limit type or fully qualified'));
    }
    errs.push(...typeErrs);
    if (types.has(type)) errs.push(fe.duplicate(child(p, 'type'), type));
    types.add(type);
    const nameCheck = type === 'Pod' || type === 'Container' ? validateContainerResourceName : validateResourceName;
    const noValue = () => [] as FieldError[];
    const lists: Record<string, Map<string, Quantity>> = {};
    const parse = (k: 'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio') => {
      const local: FieldError[] = [];
      lists[k] = validateResourceList(item?.[k], child(p, k), nameCheck, local);
      // kube checks only the names here; quantities meet only the comparisons below.
      errs.push(...local.filter((e) => !/: (must be greater than or equal to 0|must be an integer)$/.test(e.message)));
    };
    parse('max');
    parse('min');
    if (type === 'Pod') {
      if (Object.keys(item?.default ?? {}).length > 0)
        errs.push(fe.forbidden(child(p, 'default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item?.defaultRequest ?? {}).length > 0)
        errs.push(fe.forbidden(child(p, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
      lists.default = validateResourceList(undefined, '', noValue, []);
      lists.defaultRequest = validateResourceList(undefined, '', noValue, []);
    } else {
      parse('default');
      parse('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !lists.min.has('storage') && !lists.max.has('storage')) {
      errs.push(fe.required(child(p, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    parse('maxLimitRequestRatio');
    const keys = new Set<string>();
    for (const k of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) for (const n of lists[k].keys()) keys.add(n);
    for (const k of [...keys].sort()) {
      const min = lists.min.get(k);
      const max = lists.max.get(k);
      const def = lists.default.get(k);
      const req = lists.defaultRequest.get(k);
      const ratio = lists.maxLimitRequestRatio.get(k);
      const s = (q: Quantity) => formatQuantity(q);
      const key = (f: string) => index(child(p, f), k);
      if (min && max && cmpQuantity(min, max) > 0)
        errs.push(fe.invalid(key('min'), s(min), `min value ${s(min)} is greater than max value ${s(max)}`));
      if (req && min && cmpQuantity(min, req) > 0)
        errs.push(fe.invalid(key('defaultRequest'), s(req), `min value ${s(min)} is greater than default request value ${s(req)}`));
      if (req && max && cmpQuantity(req, max) > 0)
        errs.push(fe.invalid(key('defaultRequest'), s(req), `default request value ${s(req)} is greater than max value ${s(max)}`));
      if (req && def && cmpQuantity(req, def) > 0)
        errs.push(
          fe.invalid(key('defaultRequest'), s(req), `default request value ${s(req)} is greater than default limit value ${s(def)}`),
        );
      if (def && min && cmpQuantity(min, def) > 0)
        errs.push(fe.invalid(key('default'), s(min), `min value ${s(min)} is greater than default value ${s(def)}`));
      if (def && max && cmpQuantity(def, max) > 0)
        errs.push(fe.invalid(key('default'), s(max), `default value ${s(def)} is greater than max value ${s(max)}`));
      if (ratio && cmpQuantity(ratio, { mant: 1n, exp: 0, format: 'DecimalSI' }) < 0)
        errs.push(fe.invalid(key('maxLimitRequestRatio'), s(ratio), `ratio ${s(ratio)} is less than 1`));
      if (!isOvercommitAllowed(k) && def && req && cmpQuantity(def, req) !== 0) {
        errs.push(
          fe.invalid(key('defaultRequest'), s(req), `default value ${s(def)} must equal to defaultRequest value ${s(req)} in ${k}`),
        );
      }
    }
  });
  return errs;
}

// ------------------------------------------------------------------ CertificateSigningRequest

const KEY_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

/** `ValidateSignerName`. */
function validateSignerName(name: string, path: string): FieldError[] {
  if (!name) return [fe.required(path)];
  const segs = name.split('/');
  if (segs.length !== 2) return [fe.invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, rest] = segs;
  if (domain.length > 253) errs.push(fe.tooLong(path, 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const probs = nameProblems(l, 'label');
    if (probs.length > 0) {
      errs.push(...probs.map((m) => fe.invalid(path, domain, `validating label ${JSON.stringify(l)}: ${m}`)));
      break;
    }
  }
  if (labels.length < 2) errs.push(fe.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  if (rest.length > 253 - domain.length - 1) errs.push(fe.tooLong(path, 253 - domain.length - 1));
  for (const c of rest.split('.')) {
    const probs = nameProblems(c, 'subdomain');
    if (probs.length > 0) {
      errs.push(...probs.map((m) => fe.invalid(path, rest, `validating component ${JSON.stringify(c)}: ${m}`)));
      break;
    }
  }
  return errs;
}

/** ValidateCertificateSigningRequestCreate (the request must be a PEM CERTIFICATE REQUEST; its signature is not checked). */
export function validateCSR(csr: CertificateSigningRequest): FieldError[] {
  const spec: Partial<CertificateSigningRequestSpec> = csr.spec ?? {};
  const errs: FieldError[] = [];
  let bytes: Buffer | undefined;
  if (typeof spec.request === 'string') {
    const problem = base64Problem(spec.request);
    if (problem) errs.push(fe.invalid('spec.request', '<request>', problem));
    else bytes = Buffer.from(spec.request.replace(/[\r\n]/g, ''), 'base64');
  }
  const pem = bytes?.toString('latin1') ?? '';
  if (!/-----BEGIN CERTIFICATE REQUEST-----[\s\S]+-----END CERTIFICATE REQUEST-----/.test(pem)) {
    errs.push(
      fe.invalidShown('spec.request', goBytes(bytes && bytes.length > 0 ? bytes : undefined), 'PEM block type must be CERTIFICATE REQUEST'),
    );
  }
  const usages: unknown[] = Array.isArray(spec.usages) ? spec.usages : [];
  if (usages.length === 0) errs.push(fe.required('spec.usages'));
  usages.forEach((u, i) => {
    if (!KEY_USAGES.includes(String(u))) errs.push(fe.notSupported(index('spec.usages', i), u, KEY_USAGES));
  });
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (seen.has(String(u))) errs.push(fe.duplicate(index('spec.usages', i), u));
    seen.add(String(u));
  });
  if (spec.signerName === 'kubernetes.io/legacy-unknown') {
    errs.push(fe.invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName(String(spec.signerName ?? ''), 'spec.signerName'));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(
      fe.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'),
    );
  }
  return errs;
}
