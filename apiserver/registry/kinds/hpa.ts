// autoscaling HorizontalPodAutoscalers: kube's v2 SetDefaults_HorizontalPodAutoscaler
// (one replica at least, an 80% CPU target when no metric is given, a given
// behavior completed with the default rules), v1's (minReplicas only), and
// ValidateHorizontalPodAutoscaler with kube's messages. Both versions share one
// rule (their storage key is the same): a v1 object is validated as the v2
// object it is stored as, so errors name the v2 fields, as kube's internal
// validation does.
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import type {
  HorizontalPodAutoscaler as HPAv2,
  HorizontalPodAutoscalerSpec,
  HPAScalingRules,
  MetricSpec,
  MetricTarget,
} from 'kubernetes-types/autoscaling/v2.js';
import { isObject } from '../../../shared/patch/go-format.ts';
import { nameProblems } from '../names.ts';
import type { KubeObject } from '../object.ts';
import { child, fe, index, nonNegative, type FieldError } from './field.ts';
import { hpaV1ToV2, type ScalingRules } from './hpa-conversion.ts';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from './quantity.ts';

/** kube's MaxStabilizationWindowSeconds and MaxPeriodSeconds. */
export const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
export const MAX_PERIOD_SECONDS = 1800;
/** autoscaling.DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** The default scale-up rules: 4 Pods or 100% per 15 s, whichever is more, no stabilization. */
export function defaultScaleUpRules(): HPAScalingRules {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
}

/** The default scale-down rules: 100% per 15 s; the window is left to the controller's --horizontal-pod-autoscaler-downscale-stabilization. */
export function defaultScaleDownRules(): HPAScalingRules {
  return { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
}

/** copyHPAScalingRules: the given fields over the defaults. */
function completeRules(given: unknown, defaults: HPAScalingRules): HPAScalingRules {
  if (!isObject(given)) return defaults;
  const g = given as ScalingRules;
  const out: ScalingRules = { ...defaults };
  if (!unset(g.selectPolicy)) out.selectPolicy = g.selectPolicy;
  if (!unset(g.stabilizationWindowSeconds)) out.stabilizationWindowSeconds = g.stabilizationWindowSeconds;
  if (!unset(g.policies)) out.policies = g.policies;
  if (!unset(g.tolerance)) out.tolerance = g.tolerance;
  return out;
}

/** The 80% CPU utilization metric kube puts in an HPA without metrics. */
export function defaultCPUMetric(): MetricSpec {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } };
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler. */
export function defaultHPAv2(obj: HPAv2): void {
  if (!isObject(obj.spec)) obj.spec = {} as HorizontalPodAutoscalerSpec;
  const spec = obj.spec;
  if (unset(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [defaultCPUMetric()];
  if (isObject(spec.behavior)) {
    spec.behavior = {
      scaleUp: completeRules(spec.behavior.scaleUp, defaultScaleUpRules()),
      scaleDown: completeRules(spec.behavior.scaleDown, defaultScaleDownRules()),
    };
  }
}

/** autoscaling/v1 SetDefaults_HorizontalPodAutoscaler. */
export function defaultHPAv1(obj: HPAv1): void {
  if (!isObject(obj.spec)) obj.spec = {} as HPAv1['spec'] & object;
  if (unset(obj.spec.minReplicas)) obj.spec.minReplicas = 1;
}

/** The rule's defaults, for either version (told apart by the apiVersion the endpoint set). */
export function defaultHPA(obj: KubeObject): void {
  if (obj.apiVersion === 'autoscaling/v1') defaultHPAv1(obj as HPAv1);
  else defaultHPAv2(obj as HPAv2);
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function pathSegment(value: string, path: string): FieldError[] {
  return nameProblems(value, 'path-segment').map((m) => fe.invalid(path, value, m));
}

/** ValidateCrossVersionObjectReference. */
function validateRef(ref: unknown, path: string): FieldError[] {
  const r = isObject(ref) ? ref : {};
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name'] as const) {
    const v = str(r[f]);
    if (v === '') errs.push(fe.required(child(path, f)));
    else errs.push(...pathSegment(v, child(path, f)));
  }
  return errs;
}

/** A quantity's sign (1, 0, -1), or undefined when it does not parse. */
function sign(q: unknown): number | undefined {
  const p = parseQuantity(q);
  if (typeof p === 'string') return undefined;
  return p.mant > 0n ? 1 : p.mant < 0n ? -1 : 0;
}

function validateTarget(t: unknown, path: string): FieldError[] {
  const mt: MetricTarget = isObject(t) ? (t as unknown as MetricTarget) : ({} as MetricTarget);
  const errs: FieldError[] = [];
  const type = str(mt.type);
  if (type === '') errs.push(fe.required(child(path, 'type'), 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type))
    errs.push(fe.invalid(child(path, 'type'), type, 'must be either Utilization, Value, or AverageValue'));
  for (const f of ['value', 'averageValue'] as const) {
    if (unset(mt[f])) continue;
    const s = sign(mt[f]);
    if (s === undefined) errs.push(fe.invalid(child(path, f), mt[f], QUANTITY_FORMAT_ERROR));
    else if (s !== 1) errs.push(fe.invalid(child(path, f), mt[f], 'must be positive'));
  }
  if (!unset(mt.averageUtilization) && num(mt.averageUtilization) < 1)
    errs.push(fe.invalid(child(path, 'averageUtilization'), mt.averageUtilization, 'must be greater than 0'));
  return errs;
}

function validateIdentifier(id: unknown, path: string): FieldError[] {
  const name = str(isObject(id) ? id.name : undefined);
  if (name === '') return [fe.required(child(path, 'name'), 'must specify a metric name')];
  return pathSegment(name, child(path, 'name'));
}

type Source = Record<string, unknown> & { target?: MetricTarget };

function validateSource(kind: string, src: Source, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const target: Partial<MetricTarget> = isObject(src.target) ? src.target : {};
  const tpath = child(path, 'target');
  switch (kind) {
    case 'object':
      errs.push(...validateRef(src.describedObject, child(path, 'describedObject')));
      errs.push(...validateIdentifier(src.metric, child(path, 'metric')), ...validateTarget(src.target, tpath));
      if (unset(target.value) && unset(target.averageValue))
        errs.push(fe.required(child(tpath, 'averageValue'), 'must set either a target value or averageValue'));
      break;
    case 'external':
      errs.push(...validateIdentifier(src.metric, child(path, 'metric')), ...validateTarget(src.target, tpath));
      if (unset(target.value) && unset(target.averageValue))
        errs.push(fe.required(child(tpath, 'averageValue'), 'must set either a target value for metric or a per-pod target'));
      if (!unset(target.value) && !unset(target.averageValue))
        errs.push(fe.forbidden(child(tpath, 'value'), 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      errs.push(...validateIdentifier(src.metric, child(path, 'metric')), ...validateTarget(src.target, tpath));
      if (unset(target.averageValue)) errs.push(fe.required(child(tpath, 'averageValue'), 'must specify a positive target averageValue'));
      break;
    default: {
      // resource and containerResource
      if (str(src.name) === '') errs.push(fe.required(child(path, 'name'), 'must specify a resource name'));
      if (kind === 'containerResource') {
        const c = str(src.container);
        if (c === '') errs.push(fe.required(child(path, 'container'), 'must specify a container'));
        else errs.push(...nameProblems(c, 'label').map((m) => fe.invalid(child(path, 'container'), c, m)));
      }
      errs.push(...validateTarget(src.target, tpath));
      if (unset(target.averageUtilization) && unset(target.averageValue))
        errs.push(fe.required(child(tpath, 'averageUtilization'), 'must set either a target raw value or a target utilization'));
      if (!unset(target.averageUtilization) && !unset(target.averageValue))
        errs.push(fe.forbidden(child(tpath, 'averageValue'), 'may not set both a target raw value and a target utilization'));
    }
  }
  return errs;
}

const SOURCE_TYPES: Record<string, string> = {
  Object: 'object',
  External: 'external',
  Pods: 'pods',
  Resource: 'resource',
  ContainerResource: 'containerResource',
};
const SOURCE_TYPE_LIST = Object.keys(SOURCE_TYPES).sort();

/** validateMetricSpec. */
function validateMetric(m: unknown, path: string): FieldError[] {
  const spec: Record<string, unknown> = isObject(m) ? m : {};
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (type === '') errs.push(fe.required(child(path, 'type'), 'must specify a metric source type'));
  if (!Object.hasOwn(SOURCE_TYPES, type)) errs.push(fe.notSupported(child(path, 'type'), type, SOURCE_TYPE_LIST));
  // Only the first source present (in kube's order) is validated.
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((f) => isObject(spec[f]));
  if (present.length > 0) errs.push(...validateSource(present[0], spec[present[0]] as Source, child(path, present[0])));
  const expected = SOURCE_TYPES[type];
  if (expected && !present.includes(expected))
    errs.push(fe.required(child(path, expected), 'must populate information for the given metric source'));
  else if (!expected && type !== '') errs.push(fe.notSupported(child(path, 'type'), type, SOURCE_TYPE_LIST));
  if (present.length > 1)
    for (const f of present.filter((p) => p !== expected))
      errs.push(fe.forbidden(child(path, f), 'must populate the given metric source only'));
  return errs;
}

function validateRules(rules: unknown, path: string): FieldError[] {
  if (!isObject(rules)) return [];
  const r = rules as HPAScalingRules;
  const errs: FieldError[] = [];
  const w = r.stabilizationWindowSeconds;
  if (!unset(w) && num(w) < 0) errs.push(fe.invalid(child(path, 'stabilizationWindowSeconds'), w, 'must be greater than or equal to zero'));
  if (!unset(w) && num(w) > MAX_STABILIZATION_WINDOW_SECONDS)
    errs.push(
      fe.invalid(child(path, 'stabilizationWindowSeconds'), w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`),
    );
  if (!unset(r.selectPolicy) && !['Disabled', 'Max', 'Min'].includes(r.selectPolicy))
    errs.push(fe.notSupported(child(path, 'selectPolicy'), r.selectPolicy, ['Disabled', 'Max', 'Min']));
  const ppath = child(path, 'policies');
  const policies = Array.isArray(r.policies) ? r.policies : [];
  if (policies.length === 0) errs.push(fe.required(ppath, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const pp = index(ppath, i);
    const policy = isObject(p) ? p : ({} as Record<string, unknown>);
    if (policy.type !== 'Pods' && policy.type !== 'Percent')
      errs.push(fe.notSupported(child(pp, 'type'), str(policy.type), ['Percent', 'Pods']));
    if (num(policy.value) <= 0) errs.push(fe.invalid(child(pp, 'value'), num(policy.value), 'must be greater than zero'));
    const period = num(policy.periodSeconds);
    if (period <= 0) errs.push(fe.invalid(child(pp, 'periodSeconds'), period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS)
      errs.push(fe.invalid(child(pp, 'periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec (HPAScaleToZero off: minReplicas >= 1, unless the old object had 0). */
export function validateHPAv2(obj: HPAv2, old?: HPAv2): FieldError[] {
  const spec: Partial<HorizontalPodAutoscalerSpec> = isObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const lower = old?.spec?.minReplicas === 0 ? 0 : 1;
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (!unset(min) && num(min) < lower) errs.push(fe.invalid('spec.minReplicas', min, `must be greater than or equal to ${lower}`));
  if (max < 1) errs.push(fe.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (!unset(min) && max < num(min)) errs.push(fe.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateRef(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  metrics.forEach((m, i) => errs.push(...validateMetric(m, index('spec.metrics', i))));
  if (min === 0 && !metrics.some((m) => m?.type === 'Object' || m?.type === 'External'))
    errs.push(fe.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  if (isObject(spec.behavior)) {
    errs.push(...validateRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'));
    errs.push(...validateRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  if (isObject(obj.status)) {
    errs.push(...nonNegative(obj.status.currentReplicas, 'status.currentReplicas'));
    errs.push(...nonNegative(obj.status.desiredReplicas, 'status.desiredReplicas'));
  }
  return errs;
}

/** The rule's validation, for either version: a v1 object as the v2 object it is stored as. */
export function validateHPA(obj: KubeObject, old?: KubeObject): FieldError[] {
  const asV2 = (o: KubeObject): HPAv2 => (o.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(o as HPAv1) : (o as HPAv2));
  return validateHPAv2(asV2(obj), old && asV2(old));
}
