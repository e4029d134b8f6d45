// PodSpec defaulting and validation (k8s.io/kubernetes pkg/apis/core/v1
// defaults.go and pkg/apis/core/validation ValidatePodSpec and friends),
// used by Pods and by every workload's spec.template.
import { quantityNumber } from '../../../shared/api/quantity-number.ts';
import { isObject } from '../../../shared/patch/go-format.ts';
import { canonicalQuantity, canonicalizeResourceList } from './quantity.ts';
import { child, fe, index, type FieldError } from './field.ts';
import { validateResourceRequirements } from './resources.ts';
import {
  configMapKeyProblems,
  dns1123Label,
  dns1123Subdomain,
  envVarNameProblems,
  inclusiveRange,
  portNameProblems,
  portNumOrName,
  portNumProblems,
  qualifiedName,
  validIP,
  validateLabels,
} from './validators.ts';
import { isLabelValue } from '../../../shared/labels/index.ts';
import { nameProblems } from '../names.ts';
import type {
  ConfigMapKeySelector,
  Container,
  ContainerPort,
  DownwardAPIVolumeFile,
  EnvFromSource,
  EnvVar,
  EphemeralContainer,
  HTTPGetAction,
  KeyToPath,
  LifecycleHandler,
  ObjectFieldSelector,
  Pod,
  PodDNSConfig,
  PodSpec,
  PodTemplateSpec,
  Probe,
  ResourceFieldSelector,
  ResourceRequirements,
  SecretKeySelector,
  Toleration,
  Volume,
  VolumeMount,
} from 'kubernetes-types/core/v1.js';

/** A Volume with the image source (Kubernetes 1.31), newer than kubernetes-types' Volume. */
export type VolumeJSON = Volume & { image?: { reference?: string; pullPolicy?: string } };

/** A PodSpec with the fields newer than kubernetes-types' PodSpec: pod-level resources (1.32) and image volumes. */
export type PodSpecJSON = Partial<Omit<PodSpec, 'volumes'>> & { volumes?: VolumeJSON[]; resources?: ResourceRequirements };

/** A PodTemplateSpec whose spec may be a partial one (as decoded JSON may be). */
export type PodTemplateJSON = Omit<PodTemplateSpec, 'spec'> & { spec?: PodSpecJSON };

/** A Pod whose spec may be a partial one (as decoded JSON may be). */
export type PodJSON = Omit<Pod, 'spec'> & { spec?: PodSpecJSON };

/** A container of any of a PodSpec's three lists. */
type AnyContainer = Container | EphemeralContainer;

// ---------------------------------------------------------------- defaulting

const NAME_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/** The tag kube's parsers.ParseImageName finds ("latest" when neither tag nor digest), or "" when the reference does not parse. */
export function imageTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m || m[1].length > 255 || /^[a-f0-9]{64}$/.test(image)) return '';
  if (m[2]) return m[2];
  return m[3] ? '' : 'latest';
}

/** The pull policy kube defaults for an image: Always for :latest (or no tag), else IfNotPresent. */
export function defaultPullPolicy(image: unknown): string {
  return typeof image === 'string' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHTTPGet(h: HTTPGetAction | undefined): void {
  if (!isObject(h)) return;
  if (!h.path) h.path = '/';
  if (!h.scheme) h.scheme = 'HTTP';
}

function defaultProbe(p: Probe | undefined): void {
  if (!isObject(p)) return;
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  defaultHTTPGet(p.httpGet);
}

function defaultFieldRef(ref: ObjectFieldSelector | undefined): void {
  if (isObject(ref) && !ref.apiVersion) ref.apiVersion = 'v1';
}

function defaultResourceFieldRef(ref: ResourceFieldSelector | undefined): void {
  if (!isObject(ref)) return;
  // Quantity is a struct, so a missing divisor is serialized as "0".
  ref.divisor = ref.divisor === undefined || ref.divisor === null ? '0' : canonicalQuantity(ref.divisor);
}

/** SetDefaults_Container plus the generated defaults of its sub-structures. */
export function defaultContainer(c: AnyContainer | undefined): void {
  if (!isObject(c)) return;
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(c.image);
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  if (!isObject(c.resources)) c.resources = {};
  canonicalizeResourceList(c.resources.limits);
  canonicalizeResourceList(c.resources.requests);
  for (const p of Array.isArray(c.ports) ? c.ports : []) if (isObject(p) && !p.protocol) p.protocol = 'TCP';
  for (const e of Array.isArray(c.env) ? c.env : []) {
    defaultFieldRef(e?.valueFrom?.fieldRef);
    defaultResourceFieldRef(e?.valueFrom?.resourceFieldRef);
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHTTPGet(c.lifecycle?.postStart?.httpGet);
  defaultHTTPGet(c.lifecycle?.preStop?.httpGet);
}

const VOLUME_SOURCES: (keyof VolumeJSON)[] = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
];

function defaultDownwardAPIItems(items: DownwardAPIVolumeFile[] | undefined): void {
  for (const it of Array.isArray(items) ? items : []) {
    defaultFieldRef(it?.fieldRef);
    defaultResourceFieldRef(it?.resourceFieldRef);
  }
}

/** SetDefaults_Volume and the defaults of each volume source. */
export function defaultVolume(v: VolumeJSON | undefined): void {
  if (!isObject(v)) return;
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined && v[k] !== null)) v.emptyDir = {};
  if (isObject(v.emptyDir) && v.emptyDir.sizeLimit !== undefined) v.emptyDir.sizeLimit = canonicalQuantity(v.emptyDir.sizeLimit);
  if (isObject(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = '';
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected'] as const) {
    const src = v[k];
    if (isObject(src) && (src.defaultMode === undefined || src.defaultMode === null)) src.defaultMode = 420;
  }
  if (isObject(v.downwardAPI)) defaultDownwardAPIItems(v.downwardAPI.items);
  for (const s of Array.isArray(v.projected?.sources) ? v.projected.sources : []) {
    if (isObject(s?.serviceAccountToken) && !s.serviceAccountToken.expirationSeconds) s.serviceAccountToken.expirationSeconds = 3600;
    if (isObject(s?.downwardAPI)) defaultDownwardAPIItems(s.downwardAPI.items);
  }
  const claimSpec = v.ephemeral?.volumeClaimTemplate?.spec;
  if (isObject(claimSpec)) {
    if (!claimSpec.volumeMode) claimSpec.volumeMode = 'Filesystem';
    canonicalizeResourceList(claimSpec.resources?.requests);
    canonicalizeResourceList(claimSpec.resources?.limits);
  }
  if (isObject(v.image) && !v.image.pullPolicy) v.image.pullPolicy = defaultPullPolicy(v.image.reference);
}

/** SetDefaults_PodSpec plus the generated defaults of containers and volumes. */
export function defaultPodSpec(spec: PodSpecJSON | undefined): void {
  if (!isObject(spec)) return;
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null)
    spec.terminationGracePeriodSeconds = 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  for (const key of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const list = spec[key];
    for (const c of Array.isArray(list) ? list : []) defaultContainer(c);
  }
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) defaultVolume(v);
  canonicalizeResourceList(spec.overhead);
  if (isObject(spec.resources)) {
    canonicalizeResourceList(spec.resources.limits);
    canonicalizeResourceList(spec.resources.requests);
  }
}

/** Defaults of a PodTemplateSpec: Go's zero-value metadata and spec, then the PodSpec's. */
export function defaultPodTemplateSpec(tpl: PodTemplateJSON | undefined): void {
  if (!isObject(tpl)) return;
  if (!isObject(tpl.metadata)) tpl.metadata = {};
  if (!isObject(tpl.spec)) tpl.spec = {};
  defaultPodSpec(tpl.spec);
}

/** `ComputePodQOS`: BestEffort, Burstable or Guaranteed. */
export function podQOSClass(spec: PodSpecJSON | undefined): string {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const add = (m: Map<string, number>, name: string, v: unknown): boolean => {
    const n = canonicalNumber(v);
    if (!(n > 0)) return false;
    m.set(name, (m.get(name) ?? 0) + n);
    return true;
  };
  if (isObject(spec?.resources) && (isObject(spec.resources.requests) || isObject(spec.resources.limits))) {
    for (const name of ['cpu', 'memory']) {
      add(requests, name, spec.resources.requests?.[name]);
      if (!add(limits, name, spec.resources.limits?.[name])) guaranteed = false;
    }
  } else {
    const all = [
      ...(Array.isArray(spec?.containers) ? spec.containers : []),
      ...(Array.isArray(spec?.initContainers) ? spec.initContainers : []),
    ];
    for (const c of all) {
      const found = new Set<string>();
      for (const name of ['cpu', 'memory']) {
        add(requests, name, c?.resources?.requests?.[name]);
        if (add(limits, name, c?.resources?.limits?.[name])) found.add(name);
      }
      if (found.size < 2) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, r] of requests) if (limits.get(name) !== r) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** A quantity in its canonical form, as a number of base units (NaN when it is none). */
function canonicalNumber(v: unknown): number {
  const s = canonicalQuantity(v);
  return typeof s === 'string' ? quantityNumber(s) : NaN;
}

/** SetDefaults_Pod (Pod-only defaults) on top of the PodSpec's, plus the QoS class the Pod registry records. */
export function defaultPod(pod: PodJSON): void {
  if (!isObject(pod)) return;
  if (!isObject(pod.spec)) pod.spec = {};
  const spec = pod.spec;
  defaultPodSpec(spec);
  for (const key of ['containers', 'initContainers'] as const) {
    const list = spec[key];
    for (const c of Array.isArray(list) ? list : []) {
      const res = c?.resources;
      const lim = res?.limits;
      if (!res || !isObject(lim)) continue;
      if (!isObject(res.requests)) res.requests = {};
      const requests = res.requests;
      for (const k of Object.keys(lim)) if (!(k in requests)) requests[k] = lim[k];
    }
  }
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true) {
    for (const key of ['containers', 'initContainers'] as const) {
      const list = spec[key];
      for (const c of Array.isArray(list) ? list : []) {
        for (const p of Array.isArray(c?.ports) ? c.ports : []) if (isObject(p) && !p.hostPort) p.hostPort = p.containerPort;
      }
    }
  }
  const status = pod.status;
  if (isObject(status)) {
    if (!status.qosClass) status.qosClass = podQOSClass(spec);
    // The v1 conversion keeps the singular and plural IP fields in step.
    for (const [one, many] of [
      ['podIP', 'podIPs'],
      ['hostIP', 'hostIPs'],
    ] as const) {
      const ip = status[one];
      const list = status[many];
      if (ip && !(Array.isArray(list) && list.length > 0)) status[many] = [{ ip }];
      else if (!ip && Array.isArray(list) && list.length > 0 && list[0]?.ip) status[one] = list[0].ip;
    }
  }
}

// ---------------------------------------------------------------- validation

/** Options of ValidatePodSpec. */
export interface PodSpecOptions {
  /** The spec belongs to a Pod (not a template): stricter image and hostPort checks. */
  isPod?: boolean;
}

function validateLocalDescendingPath(p: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(fe.invalid(path, p, 'must be a relative path'));
  if (p.split('/').includes('..')) errs.push(fe.invalid(path, p, "must not contain '..'"));
  return errs;
}

function validateLocalNonReservedPath(p: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(p, path);
  if (p.startsWith('..') && !p.startsWith('../')) errs.push(fe.invalid(path, p, "must not start with '..'"));
  return errs;
}

const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

function validateMode(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'number' && (mode > 0o777 || mode < 0) ? [fe.invalid(path, mode, FILE_MODE_MSG)] : [];
}

function validateKeyToPaths(items: KeyToPath[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(items) ? items : []).forEach((kp, i) => {
    const p = index(path, i);
    if (!kp?.key) errs.push(fe.required(child(p, 'key')));
    if (!kp?.path) errs.push(fe.required(child(p, 'path')));
    errs.push(...validateLocalNonReservedPath(String(kp?.path ?? ''), child(p, 'path')));
    errs.push(...validateMode(kp?.mode, child(p, 'mode')));
  });
  return errs;
}

function validateVolumeSource(v: VolumeJSON, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of VOLUME_SOURCES) {
    if (v[key] === undefined || v[key] === null) continue;
    const p = child(path, key);
    if (count > 0) {
      errs.push(fe.forbidden(p, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    // Each case reads its own source, which the check above found set.
    switch (key) {
      case 'hostPath': {
        const src = v.hostPath!;
        if (!src.path) errs.push(fe.required(child(p, 'path')));
        else if (String(src.path).split('/').includes('..')) errs.push(fe.invalid(child(p, 'path'), src.path, "must not contain '..'"));
        break;
      }
      case 'secret': {
        const src = v.secret!;
        if (!src.secretName) errs.push(fe.required(child(p, 'secretName')));
        errs.push(...validateMode(src.defaultMode, child(p, 'defaultMode')), ...validateKeyToPaths(src.items, child(p, 'items')));
        break;
      }
      case 'configMap': {
        const src = v.configMap!;
        if (!src.name) errs.push(fe.required(child(p, 'name')));
        errs.push(...validateMode(src.defaultMode, child(p, 'defaultMode')), ...validateKeyToPaths(src.items, child(p, 'items')));
        break;
      }
      case 'persistentVolumeClaim': {
        const src = v.persistentVolumeClaim!;
        if (!src.claimName) errs.push(fe.required(child(p, 'claimName')));
        break;
      }
      case 'nfs': {
        const src = v.nfs!;
        if (!src.server) errs.push(fe.required(child(p, 'server')));
        if (!src.path) errs.push(fe.required(child(p, 'path')));
        if (!String(src.path ?? '').startsWith('/')) errs.push(fe.invalid(child(p, 'path'), src.path ?? '', 'must be an absolute path'));
        break;
      }
      case 'csi': {
        const src = v.csi!;
        if (!src.driver) errs.push(fe.required(child(p, 'driver')));
        break;
      }
      case 'downwardAPI': {
        const src = v.downwardAPI!;
        errs.push(...validateMode(src.defaultMode, child(p, 'defaultMode')));
        break;
      }
      case 'projected': {
        const src = v.projected!;
        errs.push(...validateMode(src.defaultMode, child(p, 'defaultMode')));
        break;
      }
      case 'emptyDir': {
        const src = v.emptyDir!;
        if (typeof src.sizeLimit === 'string' && src.sizeLimit.trim().startsWith('-')) {
          errs.push(fe.forbidden(child(p, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
        }
        break;
      }
    }
  }
  if (count === 0) errs.push(fe.required(path, 'must specify a volume type'));
  return errs;
}

/** `ValidateVolumes`: returns the names of valid volumes and the errors. */
export function validateVolumes(volumes: VolumeJSON[] | undefined, path: string): { names: Map<string, VolumeJSON>; errs: FieldError[] } {
  const names = new Map<string, VolumeJSON>();
  const errs: FieldError[] = [];
  (Array.isArray(volumes) ? volumes : []).forEach((v, i) => {
    const p = index(path, i);
    const namePath = child(p, 'name');
    const name = String(v?.name ?? '');
    const el = isObject(v) ? validateVolumeSource(v, p) : [fe.required(p, 'must specify a volume type')];
    if (!name) el.push(fe.required(namePath));
    else el.push(...dns1123Label(name, namePath));
    if (names.has(name)) el.push(fe.duplicate(namePath, name));
    if (el.length === 0) names.set(name, v);
    else errs.push(...el);
  });
  return { names, errs };
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);
const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];

function validateObjectFieldSelector(ref: ObjectFieldSelector, allowed: string[], path: string): FieldError[] {
  if (!ref.apiVersion) return [fe.required(child(path, 'apiVersion'))];
  const fp = String(ref.fieldPath ?? '');
  if (!fp) return [fe.required(child(path, 'fieldPath'))];
  const sub = /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fp) ?? /^([^[]+)\[(.*)\]$/.exec(fp);
  const base = sub ? sub[1] : fp;
  if (!CONVERTIBLE_FIELD_PATHS.has(base)) {
    return [fe.invalid(child(path, 'fieldPath'), fp, `error converting fieldPath: field label not supported: ${fp}`)];
  }
  if (sub) {
    if (base === 'metadata.annotations') return qualifiedName(sub[2].toLowerCase(), path);
    if (base === 'metadata.labels') return qualifiedName(sub[2], path);
    return [fe.invalid(path, base, 'does not support subscript')];
  }
  return allowed.includes(fp) ? [] : [fe.notSupported(child(path, 'fieldPath'), fp, allowed)];
}

function validateKeySelector(s: ConfigMapKeySelector | SecretKeySelector, path: string): FieldError[] {
  const errs = nameProblems(String(s.name ?? ''), 'subdomain').map((m) => fe.invalid(child(path, 'name'), s.name ?? '', m));
  if (!s.key) errs.push(fe.required(child(path, 'key')));
  else errs.push(...configMapKeyProblems(String(s.key)).map((m) => fe.invalid(child(path, 'key'), s.key, m)));
  return errs;
}

function validateEnv(env: EnvVar[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(env) ? env : []).forEach((ev, i) => {
    const p = index(path, i);
    const name = String(ev?.name ?? '');
    if (!name) errs.push(fe.required(child(p, 'name')));
    else errs.push(...envVarNameProblems(name).map((m) => fe.invalid(child(p, 'name'), name, m)));
    const vf = ev?.valueFrom;
    if (!isObject(vf)) return;
    const vp = child(p, 'valueFrom');
    let n = 0;
    if (isObject(vf.fieldRef)) {
      n++;
      errs.push(...validateObjectFieldSelector(vf.fieldRef, ENV_FIELD_PATHS, child(vp, 'fieldRef')));
    }
    if (isObject(vf.resourceFieldRef)) {
      n++;
      const r = String(vf.resourceFieldRef.resource ?? '');
      const rp = child(vp, 'resourceFieldRef');
      if (!r) errs.push(fe.required(child(rp, 'resource')));
      else if (!RESOURCE_FIELD_PATHS.includes(r) && !r.startsWith('requests.hugepages-') && !r.startsWith('limits.hugepages-')) {
        errs.push(fe.notSupported(child(rp, 'resource'), r, RESOURCE_FIELD_PATHS));
      }
    }
    if (isObject(vf.configMapKeyRef)) {
      n++;
      errs.push(...validateKeySelector(vf.configMapKeyRef, child(vp, 'configMapKeyRef')));
    }
    if (isObject(vf.secretKeyRef)) {
      n++;
      errs.push(...validateKeySelector(vf.secretKeyRef, child(vp, 'secretKeyRef')));
    }
    if (n === 0) errs.push(fe.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (ev.value) errs.push(fe.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (n > 1) errs.push(fe.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(envFrom: EnvFromSource[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(envFrom) ? envFrom : []).forEach((ev, i) => {
    const p = index(path, i);
    if (ev?.prefix) errs.push(...envVarNameProblems(String(ev.prefix)).map((m) => fe.invalid(child(p, 'prefix'), ev.prefix, m)));
    let n = 0;
    for (const key of ['configMapRef', 'secretRef'] as const) {
      const ref = ev?.[key];
      if (!isObject(ref)) continue;
      n++;
      const np = child(child(p, key), 'name');
      const name = String(ref.name ?? '');
      if (!name) errs.push(fe.required(np));
      else errs.push(...nameProblems(name, 'subdomain').map((m) => fe.invalid(np, name, m)));
    }
    if (n === 0) errs.push(fe.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(fe.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateContainerPorts(ports: ContainerPort[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (Array.isArray(ports) ? ports : []).forEach((port, i) => {
    const p = index(path, i);
    const name = String(port?.name ?? '');
    if (name) {
      const msgs = portNameProblems(name);
      if (msgs.length > 0) errs.push(...msgs.map((m) => fe.invalid(child(p, 'name'), name, m)));
      else if (names.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
      else names.add(name);
    }
    if (!port?.containerPort) errs.push(fe.required(child(p, 'containerPort')));
    else errs.push(...portNumProblems(port.containerPort).map((m) => fe.invalid(child(p, 'containerPort'), port.containerPort, m)));
    if (port?.hostPort) errs.push(...portNumProblems(port.hostPort).map((m) => fe.invalid(child(p, 'hostPort'), port.hostPort, m)));
    if (!port?.protocol) errs.push(fe.required(child(p, 'protocol')));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol))
      errs.push(fe.notSupported(child(p, 'protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

function validateVolumeMounts(mounts: VolumeMount[] | undefined, volumes: Map<string, VolumeJSON>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(mounts) ? mounts : []).forEach((m, i) => {
    const p = index(path, i);
    const name = String(m?.name ?? '');
    if (!name) errs.push(fe.required(child(p, 'name')));
    if (!volumes.has(name)) errs.push(fe.notFound(child(p, 'name'), name));
    const mountPath = String(m?.mountPath ?? '');
    if (!mountPath) errs.push(fe.required(child(p, 'mountPath')));
    if (seen.has(mountPath)) errs.push(fe.invalid(child(p, 'mountPath'), mountPath, 'must be unique'));
    seen.add(mountPath);
    if (m?.subPath) errs.push(...validateLocalDescendingPath(String(m.subPath), child(path, 'subPath')));
    if (m?.subPathExpr) {
      if (m?.subPath) errs.push(fe.invalid(child(p, 'subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(String(m.subPathExpr), child(path, 'subPathExpr')));
    }
    if (m?.mountPropagation !== undefined && !['None', 'HostToContainer', 'Bidirectional'].includes(m.mountPropagation)) {
      errs.push(fe.notSupported(child(path, 'mountPropagation'), m.mountPropagation, ['Bidirectional', 'HostToContainer', 'None']));
    }
  });
  return errs;
}

function validateHandler(h: Probe & LifecycleHandler, path: string, probe: boolean, grace: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  const kinds = probe ? (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const) : (['exec', 'httpGet', 'tcpSocket', 'sleep'] as const);
  for (const k of kinds) {
    // Any handler's fields, read as the client sent them.
    const a: unknown = h[k];
    if (!isObject(a)) continue;
    const p = child(path, k);
    if (n > 0) {
      errs.push(fe.forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    n++;
    if (k === 'exec' && !(Array.isArray(a.command) && a.command.length > 0)) errs.push(fe.required(child(p, 'command')));
    if (k === 'httpGet') {
      if (!a.path) errs.push(fe.required(child(p, 'path')));
      errs.push(...portNumOrName(a.port, child(p, 'port')));
      if (typeof a.scheme !== 'string' || !['HTTP', 'HTTPS'].includes(a.scheme))
        errs.push(fe.notSupported(child(p, 'scheme'), a.scheme ?? '', ['HTTP', 'HTTPS']));
    }
    if (k === 'tcpSocket') errs.push(...portNumOrName(a.port, child(p, 'port')));
    if (k === 'grpc') errs.push(...portNumOrName(typeof a.port === 'number' ? a.port : 0, child(p, 'port')));
    if (k === 'sleep' && grace !== undefined && (typeof a.seconds !== 'number' || a.seconds < 0 || a.seconds > grace)) {
      errs.push(fe.invalid(p, a.seconds ?? 0, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`));
    }
  }
  if (n === 0) errs.push(fe.required(path, 'must specify a handler type'));
  return errs;
}

function validateProbe(probe: Probe | undefined, path: string, kind: 'liveness' | 'readiness' | 'startup'): FieldError[] {
  if (!isObject(probe)) return [];
  const errs = validateHandler(probe, path, true, undefined);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const v = probe[f];
    if (typeof v === 'number' && v < 0) errs.push(fe.invalid(child(path, f), v, 'must be greater than or equal to 0'));
  }
  if (typeof probe.terminationGracePeriodSeconds === 'number' && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(fe.invalid(child(path, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  if (kind !== 'readiness' && (probe.successThreshold ?? 0) !== 1)
    errs.push(fe.invalid(child(path, 'successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  if (kind === 'readiness' && probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds !== null) {
    errs.push(
      fe.invalid(child(path, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'),
    );
  }
  return errs;
}

function validateLifecycleAndProbes(c: Container, path: string, grace: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = c.lifecycle;
  if (isObject(lifecycle)) {
    for (const k of ['postStart', 'preStop'] as const) {
      const h = lifecycle[k];
      if (isObject(h)) errs.push(...validateHandler(h, child(child(path, 'lifecycle'), k), false, grace));
    }
  }
  errs.push(...validateProbe(c.livenessProbe, child(path, 'livenessProbe'), 'liveness'));
  errs.push(...validateProbe(c.readinessProbe, child(path, 'readinessProbe'), 'readiness'));
  errs.push(...validateProbe(c.startupProbe, child(path, 'startupProbe'), 'startup'));
  return errs;
}

function validateContainerCommon(
  c: Container | undefined,
  volumes: Map<string, VolumeJSON>,
  claims: Set<string>,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(c?.name ?? '');
  if (!name) errs.push(fe.required(child(path, 'name')));
  else errs.push(...dns1123Label(name, child(path, 'name')));
  if (!c?.image) errs.push(fe.required(child(path, 'image')));
  const tmp = c?.terminationMessagePolicy;
  if (!tmp) errs.push(fe.required(child(path, 'terminationMessagePolicy')));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError')
    errs.push(fe.notSupported(child(path, 'terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  errs.push(...validateContainerPorts(c?.ports, child(path, 'ports')));
  errs.push(...validateEnv(c?.env, child(path, 'env')));
  errs.push(...validateEnvFrom(c?.envFrom, child(path, 'envFrom')));
  errs.push(...validateVolumeMounts(c?.volumeMounts, volumes, child(path, 'volumeMounts')));
  const pp = c?.imagePullPolicy;
  if (!pp) errs.push(fe.required(child(path, 'imagePullPolicy')));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pp))
    errs.push(fe.notSupported(child(path, 'imagePullPolicy'), pp, ['Always', 'IfNotPresent', 'Never']));
  errs.push(...validateResourceRequirements(c?.resources, child(path, 'resources'), claims));
  return errs;
}

function hostPortConflicts(containers: Container[], path: string, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    (Array.isArray(c?.ports) ? c.ports : []).forEach((p, pi) => {
      if (!p?.hostPort) return;
      const key = `${p.protocol ?? ''}/${p.hostIP ?? ''}/${p.hostPort}`;
      if (seen.has(key)) errs.push(fe.duplicate(child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}

function validateContainers(
  list: Container[] | undefined,
  volumes: Map<string, VolumeJSON>,
  claims: Set<string>,
  grace: number | undefined,
  path: string,
): FieldError[] {
  if (!Array.isArray(list) || list.length === 0) return [fe.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, volumes, claims, p));
    const name = String(c?.name ?? '');
    if (names.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
    else names.add(name);
    if (isObject(c)) errs.push(...validateLifecycleAndProbes(c, p, grace));
    if (c?.restartPolicy !== undefined && c?.restartPolicy !== null)
      errs.push(fe.forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(list, path));
  return errs;
}

function validateInitContainers(
  list: Container[] | undefined,
  regular: Container[] | undefined,
  volumes: Map<string, VolumeJSON>,
  claims: Set<string>,
  grace: number | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>((Array.isArray(regular) ? regular : []).map((c) => String(c?.name ?? '')));
  (Array.isArray(list) ? list : []).forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, volumes, claims, p));
    let restartAlways = false;
    if (c?.restartPolicy !== undefined && c?.restartPolicy !== null) {
      if (c.restartPolicy !== 'Always') errs.push(fe.notSupported(child(p, 'restartPolicy'), c.restartPolicy, ['Always']));
      restartAlways = c.restartPolicy === 'Always';
    }
    const name = String(c?.name ?? '');
    if (names.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
    else if (name) names.add(name);
    errs.push(...hostPortConflicts([c], path));
    if (restartAlways) {
      errs.push(...validateLifecycleAndProbes(c, p, grace));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (c?.[f] !== undefined && c?.[f] !== null)
          errs.push(fe.forbidden(child(p, f), 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

function validateTolerations(tols: Toleration[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(tols) ? tols : []).forEach((t, i) => {
    const p = index(path, i);
    const key = String(t?.key ?? '');
    if (key) errs.push(...qualifiedName(key, child(p, 'key')));
    if (!key && t?.operator !== 'Exists') {
      errs.push(
        fe.invalid(
          child(p, 'operator'),
          t?.operator ?? '',
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t?.tolerationSeconds !== undefined && t?.tolerationSeconds !== null && t?.effect !== 'NoExecute') {
      errs.push(fe.invalid(child(p, 'effect'), t?.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    const value = String(t?.value ?? '');
    switch (t?.operator ?? '') {
      case 'Equal':
      case '': {
        const m = isLabelValue(value);
        if (m.length > 0) errs.push(fe.invalid(child(p, 'operator'), value, m.join(';')));
        break;
      }
      case 'Exists':
        if (value) errs.push(fe.invalid(child(p, 'operator'), value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fe.notSupported(child(p, 'operator'), t.operator, ['Equal', 'Exists']));
    }
    if (t?.effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      errs.push(fe.notSupported(child(p, 'effect'), t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function validateDNSConfig(cfg: PodDNSConfig | undefined, policy: string, path: string): FieldError[] {
  if (policy === 'None') {
    if (!isObject(cfg)) return [fe.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!Array.isArray(cfg.nameservers) || cfg.nameservers.length === 0) {
      return [fe.required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
    }
  }
  if (!isObject(cfg)) return [];
  const errs: FieldError[] = [];
  const ns: string[] = Array.isArray(cfg.nameservers) ? cfg.nameservers : [];
  if (ns.length > 3)
    errs.push(
      fe.invalidShown(
        child(path, 'nameservers'),
        `[]string{${ns.map((s) => JSON.stringify(s)).join(', ')}}`,
        'must not have more than 3 nameservers',
      ),
    );
  ns.forEach((s, i) => errs.push(...validIP(String(s), index(child(path, 'nameservers'), i))));
  const searches: string[] = Array.isArray(cfg.searches) ? cfg.searches : [];
  searches.forEach((s, i) => {
    const v = String(s);
    if (v === '.') return;
    errs.push(
      ...nameProblems(v.replace(/\.$/, '').replace(/_/g, 'a'), 'subdomain').map((m) =>
        fe.invalid(index(child(path, 'searches'), i), v.replace(/\.$/, ''), m),
      ),
    );
  });
  (Array.isArray(cfg.options) ? cfg.options : []).forEach((o, i) => {
    if (!o?.name) errs.push(fe.required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return errs;
}

/** `ValidatePodSpec`. */
export function validatePodSpec(spec: PodSpecJSON | undefined, path: string, opts: PodSpecOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(spec)) spec = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(fe.required(child(path, 'terminationGracePeriodSeconds')));
  }
  const grace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : undefined;
  const { names: volumes, errs: vErrs } = validateVolumes(spec.volumes, child(path, 'volumes'));
  errs.push(...vErrs);
  const claims = new Set<string>();
  (Array.isArray(spec.resourceClaims) ? spec.resourceClaims : []).forEach((c, i) => {
    const p = index(child(path, 'resourceClaims'), i);
    const name = String(c?.name ?? '');
    if (!name) errs.push(fe.required(child(p, 'name')));
    else if (claims.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
    else {
      errs.push(...dns1123Label(name, child(p, 'name')));
      claims.add(name);
    }
  });
  errs.push(...validateContainers(spec.containers, volumes, claims, grace, child(path, 'containers')));
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, volumes, claims, grace, child(path, 'initContainers')));
  if (isObject(spec.resources)) {
    errs.push(...validateResourceRequirements({ ...spec.resources, claims: undefined }, child(path, 'resources'), claims, podResourceName));
  }
  if (spec.hostNetwork === true) {
    (Array.isArray(spec.containers) ? spec.containers : []).forEach((c, i) => {
      (Array.isArray(c?.ports) ? c.ports : []).forEach((p, j) => {
        const hp = p?.hostPort ?? 0;
        if ((opts.isPod || hp !== 0) && hp !== p?.containerPort) {
          errs.push(
            fe.invalid(
              child(index(child(index(child(path, 'containers'), i), 'ports'), j), 'hostPort'),
              hp,
              'must match `containerPort` when `hostNetwork` is true',
            ),
          );
        }
      });
    });
  }
  const rp = spec.restartPolicy ?? '';
  if (!rp) errs.push(fe.required(child(path, 'restartPolicy')));
  else if (!['Always', 'OnFailure', 'Never'].includes(rp))
    errs.push(fe.notSupported(child(path, 'restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  const dp = spec.dnsPolicy ?? '';
  if (!dp) errs.push(fe.required(child(path, 'dnsPolicy')));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dp)) {
    errs.push(fe.notSupported(child(path, 'dnsPolicy'), dp, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  errs.push(...validateLabels(spec.nodeSelector, child(path, 'nodeSelector')));
  (Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : []).forEach((s, i) => {
    if (isObject(s) && Object.keys(s).some((k) => k !== 'name')) {
      errs.push(
        fe.invalidShown(
          index(child(path, 'imagePullSecrets'), i),
          `core.LocalObjectReference{Name:${JSON.stringify(String(s.name ?? ''))}}`,
          'only name may be set',
        ),
      );
    }
  });
  errs.push(...validateDNSConfig(spec.dnsConfig, dp, child(path, 'dnsConfig')));
  (Array.isArray(spec.readinessGates) ? spec.readinessGates : []).forEach((g, i) => {
    errs.push(...qualifiedName(String(g?.conditionType ?? ''), child(index(child(path, 'readinessGates'), i), 'conditionType')));
  });
  const gates = new Set<string>();
  (Array.isArray(spec.schedulingGates) ? spec.schedulingGates : []).forEach((g, i) => {
    const name = String(g?.name ?? '');
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...qualifiedName(name, p));
    if (gates.has(name)) errs.push(fe.duplicate(p, name));
    gates.add(name);
  });
  if (spec.serviceAccountName) errs.push(...dns1123Subdomain(String(spec.serviceAccountName), child(path, 'serviceAccountName')));
  if (spec.nodeName) errs.push(...dns1123Subdomain(String(spec.nodeName), child(path, 'nodeName')));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    const v = spec.activeDeadlineSeconds;
    if (typeof v !== 'number' || v < 1 || v > 2147483647)
      errs.push(fe.invalid(child(path, 'activeDeadlineSeconds'), v, inclusiveRange(1, 2147483647)));
  }
  if (spec.hostname) errs.push(...dns1123Label(String(spec.hostname), child(path, 'hostname')));
  if (spec.subdomain) errs.push(...dns1123Label(String(spec.subdomain), child(path, 'subdomain')));
  errs.push(...validateTolerations(spec.tolerations, child(path, 'tolerations')));
  (Array.isArray(spec.hostAliases) ? spec.hostAliases : []).forEach((h, i) => {
    const p = index(child(path, 'hostAliases'), i);
    errs.push(...validIP(String(h?.ip ?? ''), child(p, 'ip')));
    (Array.isArray(h?.hostnames) ? h.hostnames : []).forEach((n, j) =>
      errs.push(...dns1123Subdomain(String(n), index(child(p, 'hostnames'), j))),
    );
  });
  if (spec.priorityClassName) errs.push(...dns1123Subdomain(String(spec.priorityClassName), child(path, 'priorityClassName')));
  if (spec.runtimeClassName !== undefined && spec.runtimeClassName !== null)
    errs.push(...dns1123Subdomain(String(spec.runtimeClassName), child(path, 'runtimeClassName')));
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null) {
    if (!spec.preemptionPolicy) errs.push(fe.required(child(path, 'preemptionPolicy')));
    else if (!['PreemptLowerPriority', 'Never'].includes(spec.preemptionPolicy)) {
      errs.push(fe.notSupported(child(path, 'preemptionPolicy'), spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
    }
  }
  if (isObject(spec.os) && !['linux', 'windows'].includes(spec.os.name)) {
    errs.push(fe.notSupported(child(child(path, 'os'), 'name'), spec.os.name ?? '', ['linux', 'windows']));
  }
  if (opts.isPod) {
    for (const key of ['containers', 'initContainers'] as const) {
      const list = spec[key];
      (Array.isArray(list) ? list : []).forEach((c, i) => {
        const img = typeof c?.image === 'string' ? c.image : '';
        if (img !== img.trim())
          errs.push(fe.invalid(child(index(child(path, key), i), 'image'), img, 'must not have leading or trailing whitespace'));
      });
    }
  }
  return errs;
}

function podResourceName(name: string, path: string): FieldError[] {
  if (name === 'cpu' || name === 'memory' || name.startsWith('hugepages-')) return [];
  return [fe.notSupported(path, name, ['cpu', 'memory'])];
}

/** `ValidatePodTemplateSpec`. */
export function validatePodTemplateSpec(tpl: PodTemplateJSON | undefined, path: string): FieldError[] {
  if (!isObject(tpl)) tpl = {};
  // kube validates template labels at `<path>.labels`, not `<path>.metadata.labels`.
  const errs = validateLabels(tpl.metadata?.labels, child(path, 'labels'));
  errs.push(...validatePodSpec(tpl.spec, child(path, 'spec')));
  if (Array.isArray(tpl.spec?.ephemeralContainers) && tpl.spec.ephemeralContainers.length > 0) {
    errs.push(fe.forbidden(child(child(path, 'spec'), 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}
