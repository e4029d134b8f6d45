// apps/v1 workloads: defaults (pkg/apis/apps/v1/defaults.go) and validation
// (pkg/apis/apps/validation plus the apps/v1 selector immutability their
// registries add on update) for Deployments, ReplicaSets, DaemonSets and
// StatefulSets.
import { isObject } from '../../../shared/patch/go-format.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/index.ts';
import { nameProblems } from '../names.ts';
import { fe, goIntOrString, goLabelSelector, goStringMap, nonNegative, semanticEqual, zero, type FieldError } from './field.ts';
import { intOrPercentValue, notMoreThan100Percent, positiveIntOrPercent } from './intstr.ts';
import { canonicalizeResourceList } from './quantity.ts';
import { defaultPodTemplateSpec, validatePodTemplateSpec, type PodTemplateJSON } from './pod-spec.ts';
import { validateLabelSelector, validateLabels } from './validators.ts';
import type {
  DaemonSet,
  DaemonSetSpec,
  Deployment,
  DeploymentSpec,
  ReplicaSet,
  ReplicaSetSpec,
  StatefulSet,
  StatefulSetSpec,
} from 'kubernetes-types/apps/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { PersistentVolumeClaimStatus } from 'kubernetes-types/core/v1.js';

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** The object's spec, Go's zero value when it has none. */
function specOf<S extends object>(obj: { spec?: S }): S {
  if (!isObject(obj.spec)) obj.spec = zero<S>();
  return obj.spec;
}

function statusZeros(obj: { status?: object }, fields: string[]): void {
  // These status fields are not omitempty in kube's types, so a zero still shows.
  const status = obj.status;
  if (!isObject(status)) return;
  for (const f of fields) if (unset(status[f])) status[f] = 0;
}

/** SetDefaults_Deployment. */
export function defaultDeployment(obj: Deployment): void {
  const spec = specOf(obj);
  if (unset(spec.replicas)) spec.replicas = 1;
  if (!isObject(spec.strategy)) spec.strategy = {};
  if (!spec.strategy.type) spec.strategy.type = 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    if (!isObject(spec.strategy.rollingUpdate)) spec.strategy.rollingUpdate = {};
    if (unset(spec.strategy.rollingUpdate.maxUnavailable)) spec.strategy.rollingUpdate.maxUnavailable = '25%';
    if (unset(spec.strategy.rollingUpdate.maxSurge)) spec.strategy.rollingUpdate.maxSurge = '25%';
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (unset(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
  if (!isObject(spec.template)) spec.template = {};
  defaultPodTemplateSpec(spec.template);
}

/** SetDefaults_ReplicaSet. */
export function defaultReplicaSet(obj: ReplicaSet): void {
  const spec = specOf(obj);
  if (unset(spec.replicas)) spec.replicas = 1;
  if (!isObject(spec.template)) spec.template = {};
  defaultPodTemplateSpec(spec.template);
  statusZeros(obj, ['replicas']);
}

/** The annotation apps/v1 DaemonSets carry their (internal) templateGeneration in. */
export const DAEMONSET_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/** SetDefaults_DaemonSet, plus the templateGeneration 1 the registry gives a new DaemonSet. */
export function defaultDaemonSet(obj: DaemonSet): void {
  const spec = specOf(obj);
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const us = spec.updateStrategy;
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    if (!isObject(us.rollingUpdate)) us.rollingUpdate = {};
    if (unset(us.rollingUpdate.maxUnavailable)) us.rollingUpdate.maxUnavailable = 1;
    if (unset(us.rollingUpdate.maxSurge)) us.rollingUpdate.maxSurge = 0;
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (!isObject(spec.template)) spec.template = {};
  defaultPodTemplateSpec(spec.template);
  if (isObject(obj.metadata)) {
    const ann: Record<string, string> = isObject(obj.metadata.annotations) ? obj.metadata.annotations : {};
    if (unset(ann[DAEMONSET_TEMPLATE_GENERATION])) obj.metadata.annotations = { ...ann, [DAEMONSET_TEMPLATE_GENERATION]: '1' };
  }
  statusZeros(obj, ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady']);
}

/**
 * What the DaemonSet registry does on update: the templateGeneration is the
 * stored one (a client cannot set it), plus one when the template changed.
 * Mutates `next`.
 */
export function prepareDaemonSetUpdate(next: DaemonSet, old: DaemonSet): void {
  const prev = Number(old?.metadata?.annotations?.[DAEMONSET_TEMPLATE_GENERATION] ?? '0') || 0;
  const gen = semanticEqual(next?.spec?.template, old?.spec?.template) ? prev : prev + 1;
  if (gen === 0) return;
  if (!isObject(next.metadata)) next.metadata = {};
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [DAEMONSET_TEMPLATE_GENERATION]: String(gen) };
}

/** SetDefaults_StatefulSet, with the PVC defaults of its volumeClaimTemplates. */
export function defaultStatefulSet(obj: StatefulSet): void {
  const spec = specOf(obj);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const us = spec.updateStrategy;
  if (!us.type) {
    us.type = 'RollingUpdate';
    if (!isObject(us.rollingUpdate)) us.rollingUpdate = {};
  }
  if (us.type === 'RollingUpdate' && isObject(us.rollingUpdate) && unset(us.rollingUpdate.partition)) us.rollingUpdate.partition = 0;
  if (!isObject(spec.persistentVolumeClaimRetentionPolicy)) spec.persistentVolumeClaimRetentionPolicy = {};
  const rp = spec.persistentVolumeClaimRetentionPolicy;
  if (!rp.whenDeleted) rp.whenDeleted = 'Retain';
  if (!rp.whenScaled) rp.whenScaled = 'Retain';
  if (unset(spec.replicas)) spec.replicas = 1;
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (!isObject(spec.template)) spec.template = {};
  defaultPodTemplateSpec(spec.template);
  for (const pvc of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) {
    if (!isObject(pvc)) continue;
    pvc.apiVersion ??= 'v1';
    pvc.kind ??= 'PersistentVolumeClaim';
    if (!isObject(pvc.spec)) pvc.spec = {};
    if (!pvc.spec.volumeMode) pvc.spec.volumeMode = 'Filesystem';
    canonicalizeResourceList(pvc.spec.resources?.requests);
    canonicalizeResourceList(pvc.spec.resources?.limits);
    // kubernetes-types marks a PVC's status read-only, for clients; these defaults are the server's.
    const server: { status?: PersistentVolumeClaimStatus } = pvc;
    if (!isObject(server.status)) server.status = {};
    if (!server.status.phase) server.status.phase = 'Pending';
  }
  statusZeros(obj, ['replicas', 'availableReplicas']);
}

/** The selector as a matcher, or undefined when it does not convert (LabelSelectorAsSelector's error). */
function asSelector(sel: LabelSelector | null | undefined) {
  try {
    return selectorFromLabelSelector(sel);
  } catch {
    return undefined;
  }
}

function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length + (Array.isArray(sel?.matchExpressions) ? sel.matchExpressions.length : 0) === 0;
}

/** A workload, as far as the selector immutability check reads it. */
interface Selected {
  spec?: { selector?: LabelSelector };
}

/** `selector` does not match template `labels`, with kube's rendering of the labels. */
export function selectorMismatch(path: string, labels: unknown): FieldError {
  return fe.invalidShown(path, goStringMap(labels as Record<string, unknown>), '`selector` does not match template `labels`');
}

function restartAlways(spec: { template?: PodTemplateJSON }, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const rp = spec.template?.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(fe.notSupported('spec.template.spec.restartPolicy', rp, ['Always']));
  if (!unset(spec.template?.spec?.activeDeadlineSeconds)) {
    errs.push(fe.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

function immutableSelector(obj: Selected, old: Selected | undefined): FieldError[] {
  if (!old || semanticEqual(obj.spec?.selector, old.spec?.selector)) return [];
  return [fe.invalidShown('spec.selector', goLabelSelector(obj.spec?.selector), 'field is immutable')];
}

/**
 * The selector checks Deployments and ReplicaSets share: required, valid,
 * not empty (kube says "for deployment" for both), and the template's.
 */
function selectorAndTemplate(spec: Partial<DeploymentSpec | ReplicaSetSpec>, kind: 'Deployment' | 'ReplicaSet'): FieldError[] {
  const errs: FieldError[] = [];
  if (unset(spec.selector)) {
    errs.push(fe.required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector))
      errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for deployment'));
  }
  const sel = asSelector(unset(spec.selector) ? null : spec.selector);
  if (!sel) errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  else errs.push(...templateForReplicaSet(spec, kind));
  return errs;
}

/** ValidateDeployment / ValidateDeploymentUpdate (+ apps/v1 selector immutability). */
export function validateDeployment(obj: Deployment, old?: Deployment): FieldError[] {
  const spec: Partial<DeploymentSpec> = obj.spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...selectorAndTemplate(spec, 'Deployment'));
  const strategy = spec.strategy ?? {};
  switch (strategy.type) {
    case 'Recreate':
      if (!unset(strategy.rollingUpdate))
        errs.push(fe.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (!isObject(ru)) {
        errs.push(fe.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
        break;
      }
      errs.push(...positiveIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      errs.push(...positiveIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(
          fe.invalidShown(
            'spec.strategy.rollingUpdate.maxUnavailable',
            goIntOrString(ru.maxUnavailable),
            'may not be 0 when `maxSurge` is 0',
          ),
        );
      }
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      break;
    }
    default:
      errs.push(fe.notSupported('spec.strategy', strategy.type ?? '', ['Recreate', 'RollingUpdate']));
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (!unset(spec.revisionHistoryLimit)) errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (!unset(spec.progressDeadlineSeconds)) {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(fe.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  errs.push(...immutableSelector(obj, old));
  return errs;
}

/** `ValidatePodTemplateSpecForReplicaSet` when the selector converted. */
function templateForReplicaSet(spec: Partial<DeploymentSpec | ReplicaSetSpec>, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const sel = asSelector(unset(spec.selector) ? null : spec.selector);
  // A nil selector converts to "nothing", which is not Empty() and matches no labels.
  if (sel && (unset(spec.selector) || !isEmptySelector(spec.selector))) {
    const labels = spec.template?.metadata?.labels;
    if (!matchesLabels(sel, labels)) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...restartAlways(spec, kind));
  return errs;
}

/** ValidateReplicaSet / ValidateReplicaSetUpdate (+ apps/v1 selector immutability). */
export function validateReplicaSet(obj: ReplicaSet, old?: ReplicaSet): FieldError[] {
  const spec: Partial<ReplicaSetSpec> = obj.spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...selectorAndTemplate(spec, 'ReplicaSet'));
  errs.push(...immutableSelector(obj, old));
  return errs;
}

/** ValidateDaemonSet / ValidateDaemonSetUpdate (+ apps/v1 selector immutability). */
export function validateDaemonSet(obj: DaemonSet, old?: DaemonSet): FieldError[] {
  const spec: Partial<DaemonSetSpec> = obj.spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const sel = asSelector(unset(spec.selector) ? null : spec.selector);
  const labels = spec.template?.metadata?.labels;
  if (sel && !matchesLabels(sel, labels)) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  if (!unset(spec.selector) && isEmptySelector(spec.selector)) {
    errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...restartAlways(spec, 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  const us = spec.updateStrategy ?? {};
  switch (us.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!isObject(ru)) {
        errs.push(fe.required('spec.updateStrategy.rollingUpdate'));
        break;
      }
      const p = 'spec.updateStrategy.rollingUpdate';
      errs.push(...positiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`));
      errs.push(...positiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
      errs.push(...notMoreThan100Percent(ru.maxSurge, `${p}.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge)
        errs.push(fe.invalidShown(`${p}.maxSurge`, goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(fe.required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      errs.push(fe.notSupported('spec.updateStrategy', us.type ?? '', ['RollingUpdate', 'OnDelete']));
  }
  if (!unset(spec.revisionHistoryLimit)) errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  errs.push(...immutableSelector(obj, old));
  return errs;
}

const STS_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
] as const satisfies readonly (keyof StatefulSetSpec)[];

/** ValidateStatefulSet / ValidateStatefulSetUpdate. */
export function validateStatefulSet(obj: StatefulSet, old?: StatefulSet): FieldError[] {
  const spec: Partial<StatefulSetSpec> = obj.spec ?? {};
  const errs: FieldError[] = [];
  const name = obj.metadata?.name;
  // apps/v1 StatefulSet names are DNS labels; the generic name check only knows subdomains.
  if (!old && typeof name === 'string' && name && nameProblems(name, 'subdomain').length === 0) {
    errs.push(...nameProblems(name, 'label').map((m) => fe.invalid('metadata.name', name, m)));
  }
  switch (spec.podManagementPolicy ?? '') {
    case '':
      errs.push(fe.required('spec.podManagementPolicy'));
      break;
    case 'OrderedReady':
    case 'Parallel':
      break;
    default:
      errs.push(fe.invalid('spec.podManagementPolicy', spec.podManagementPolicy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us = spec.updateStrategy ?? {};
  switch (us.type ?? '') {
    case '':
      errs.push(fe.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (!unset(us.rollingUpdate))
        errs.push(fe.invalid('spec.updateStrategy.rollingUpdate', us.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (isObject(us.rollingUpdate)) {
        const p = 'spec.updateStrategy.rollingUpdate';
        errs.push(...nonNegative(us.rollingUpdate.partition, `${p}.partition`));
        if (!unset(us.rollingUpdate.maxUnavailable)) {
          errs.push(...positiveIntOrPercent(us.rollingUpdate.maxUnavailable, `${p}.maxUnavailable`));
          if (intOrPercentValue(us.rollingUpdate.maxUnavailable) === 0)
            errs.push(fe.invalidShown(`${p}.maxUnavailable`, goIntOrString(us.rollingUpdate.maxUnavailable), 'cannot be 0'));
          errs.push(...notMoreThan100Percent(us.rollingUpdate.maxUnavailable, `${p}.maxUnavailable`));
        }
      }
      break;
    default:
      errs.push(fe.invalid('spec.updateStrategy', us, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const rp = spec.persistentVolumeClaimRetentionPolicy;
  if (isObject(rp)) {
    for (const f of ['whenDeleted', 'whenScaled'] as const) {
      if (rp[f] !== 'Retain' && rp[f] !== 'Delete')
        errs.push(fe.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, rp[f] ?? '', ['Retain', 'Delete']));
    }
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isObject(spec.ordinals)) errs.push(...nonNegative(spec.ordinals.start, 'spec.ordinals.start'));
  if (unset(spec.selector)) {
    errs.push(fe.required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector))
      errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for statefulset'));
  }
  const sel = asSelector(unset(spec.selector) ? null : spec.selector);
  if (!sel) {
    errs.push(fe.invalidShown('spec.selector', goLabelSelector(spec.selector), ''));
  } else {
    const labels = spec.template?.metadata?.labels;
    if ((unset(spec.selector) || !isEmptySelector(spec.selector)) && !matchesLabels(sel, labels)) {
      errs.push(selectorMismatch('spec.template.metadata.labels', labels));
    }
    // kube validates only the labels of a StatefulSet's template, not its PodSpec.
    errs.push(...validateLabels(labels, 'spec.template.labels'));
  }
  errs.push(...restartAlways(spec, 'StatefulSet'));
  if (old) {
    const a = { ...spec };
    const b: Partial<StatefulSetSpec> = { ...(old.spec ?? {}) };
    for (const f of STS_MUTABLE) {
      delete a[f];
      delete b[f];
    }
    if (!semanticEqual(a, b)) {
      errs.push(
        fe.forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
    }
  }
  return errs;
}
