// autoscaling/v2 <-> autoscaling/v1 HorizontalPodAutoscalers. kube stores
// HPAs once, as v2, and serves v1 through conversion
// (pkg/apis/autoscaling/v1/conversion.go): v1 has one CPU utilization target
// (spec.targetCPUUtilizationPercentage, status.currentCPUUtilizationPercentage);
// whatever else the v2 object holds rides in annotations, so a v1 client's
// round trip keeps it: the other metrics (v1's MetricSpec shape), the current
// metrics and the conditions as v1 JSON, the behavior as the internal type's
// JSON (Go field names, as kube marshals it).
import type {
  HorizontalPodAutoscaler as HPAv1,
  HorizontalPodAutoscalerSpec as SpecV1,
  HorizontalPodAutoscalerStatus as StatusV1,
} from 'kubernetes-types/autoscaling/v1.js';
import type {
  HorizontalPodAutoscaler as HPAv2,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerSpec as SpecV2,
  HorizontalPodAutoscalerStatus as StatusV2,
  HPAScalingRules,
  MetricSpec,
  MetricStatus,
  MetricTarget,
} from 'kubernetes-types/autoscaling/v2.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const ROUND_TRIP = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (v: unknown): boolean => v !== undefined && v !== null;
/** Drops undefined fields, as omitempty would. */
const clean = <T extends Json>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The metadata without the round-trip annotations (DropRoundTripHorizontalPodAutoscalerAnnotations). */
function dropRoundTrip(meta: Json | undefined): Json {
  const out: Json = { ...meta };
  if (isObj(out.annotations)) {
    const a = { ...(out.annotations as Record<string, string>) };
    for (const k of ROUND_TRIP) delete a[k];
    if (Object.keys(a).length > 0) out.annotations = a;
    else delete out.annotations;
  }
  return out;
}

const isCPUUtilization = (m: MetricSpec): boolean =>
  m?.type === 'Resource' && m.resource?.name === 'cpu' && has(m.resource?.target?.averageUtilization);

// ---------------------------------------------------------------- metric specs

/** A v2 MetricSpec as autoscaling/v1's (v2beta1-shaped) MetricSpec. */
function specToV1(m: MetricSpec): Json {
  const t: Partial<MetricTarget> =
    m.object?.target ?? m.pods?.target ?? m.resource?.target ?? m.containerResource?.target ?? m.external?.target ?? {};
  const out: Json = { type: m.type };
  if (m.object)
    out.object = clean({
      target: m.object.describedObject,
      metricName: m.object.metric?.name,
      targetValue: t.value ?? undefined,
      selector: m.object.metric?.selector,
      averageValue: t.averageValue ?? undefined,
    });
  if (m.pods) out.pods = clean({ metricName: m.pods.metric?.name, targetAverageValue: t.averageValue, selector: m.pods.metric?.selector });
  if (m.resource)
    out.resource = clean({
      name: m.resource.name,
      targetAverageUtilization: t.averageUtilization ?? undefined,
      targetAverageValue: t.averageValue ?? undefined,
    });
  if (m.containerResource)
    out.containerResource = clean({
      name: m.containerResource.name,
      targetAverageUtilization: t.averageUtilization ?? undefined,
      targetAverageValue: t.averageValue ?? undefined,
      container: m.containerResource.container,
    });
  if (m.external)
    out.external = clean({
      metricName: m.external.metric?.name,
      metricSelector: m.external.metric?.selector,
      targetValue: t.value ?? undefined,
      targetAverageValue: t.averageValue ?? undefined,
    });
  return out;
}

/** The MetricTarget of a v1 source: Utilization, then AverageValue, then Value, as kube's conversion picks. */
function targetFromV1(utilization: unknown, averageValue: unknown, value?: unknown): MetricTarget {
  if (has(utilization)) return { type: 'Utilization', averageUtilization: utilization as number };
  if (has(averageValue)) return { type: 'AverageValue', averageValue: averageValue as string };
  if (has(value)) return { type: 'Value', value: value as string };
  return { type: '' };
}

/** An autoscaling/v1 MetricSpec (from the annotation) as v2's. */
function specFromV1(m: Json): MetricSpec {
  const out: Json = { type: m.type };
  const metric = (name: unknown, selector: unknown) => clean({ name, selector });
  if (isObj(m.object)) {
    const o = m.object;
    const target = has(o.averageValue) ? { type: 'AverageValue', averageValue: o.averageValue } : { type: 'Value', value: o.targetValue };
    out.object = { describedObject: o.target, target, metric: metric(o.metricName, o.selector) };
  }
  if (isObj(m.pods))
    out.pods = { metric: metric(m.pods.metricName, m.pods.selector), target: targetFromV1(undefined, m.pods.targetAverageValue) };
  if (isObj(m.resource))
    out.resource = { name: m.resource.name, target: targetFromV1(m.resource.targetAverageUtilization, m.resource.targetAverageValue) };
  if (isObj(m.containerResource)) {
    const c = m.containerResource;
    out.containerResource = {
      name: c.name,
      target: targetFromV1(c.targetAverageUtilization, c.targetAverageValue),
      container: c.container,
    };
  }
  if (isObj(m.external)) {
    const e = m.external;
    out.external = { metric: metric(e.metricName, e.metricSelector), target: targetFromV1(undefined, e.targetAverageValue, e.targetValue) };
  }
  return out as unknown as MetricSpec;
}

// ---------------------------------------------------------------- metric statuses

function statusToV1(m: MetricStatus): Json {
  const out: Json = { type: m.type };
  if (m.object)
    out.object = clean({
      target: m.object.describedObject,
      metricName: m.object.metric?.name,
      currentValue: m.object.current?.value ?? '0',
      selector: m.object.metric?.selector,
      averageValue: m.object.current?.averageValue ?? undefined,
    });
  if (m.pods)
    out.pods = clean({
      metricName: m.pods.metric?.name,
      currentAverageValue: m.pods.current?.averageValue ?? '0',
      selector: m.pods.metric?.selector,
    });
  if (m.resource)
    out.resource = clean({
      name: m.resource.name,
      currentAverageUtilization: m.resource.current?.averageUtilization ?? undefined,
      currentAverageValue: m.resource.current?.averageValue ?? '0',
    });
  if (m.containerResource)
    out.containerResource = clean({
      name: m.containerResource.name,
      currentAverageUtilization: m.containerResource.current?.averageUtilization ?? undefined,
      currentAverageValue: m.containerResource.current?.averageValue ?? '0',
      container: m.containerResource.container,
    });
  if (m.external)
    out.external = clean({
      metricName: m.external.metric?.name,
      metricSelector: m.external.metric?.selector,
      currentValue: m.external.current?.value ?? '0',
      currentAverageValue: m.external.current?.averageValue ?? undefined,
    });
  return out;
}

function statusFromV1(m: Json): MetricStatus {
  const out: Json = { type: m.type };
  const metric = (name: unknown, selector: unknown) => clean({ name, selector });
  if (isObj(m.object)) {
    const o = m.object;
    out.object = {
      metric: metric(o.metricName, o.selector),
      current: clean({ value: o.currentValue, averageValue: o.averageValue }),
      describedObject: o.target,
    };
  }
  if (isObj(m.pods))
    out.pods = { metric: metric(m.pods.metricName, m.pods.selector), current: clean({ averageValue: m.pods.currentAverageValue }) };
  if (isObj(m.resource))
    out.resource = {
      name: m.resource.name,
      current: clean({ averageValue: m.resource.currentAverageValue, averageUtilization: m.resource.currentAverageUtilization }),
    };
  if (isObj(m.containerResource)) {
    const c = m.containerResource;
    out.containerResource = {
      name: c.name,
      current: clean({ averageValue: c.currentAverageValue, averageUtilization: c.currentAverageUtilization }),
      container: c.container,
    };
  }
  if (isObj(m.external))
    out.external = {
      metric: metric(m.external.metricName, m.external.metricSelector),
      current: clean({ value: m.external.currentValue, averageValue: m.external.currentAverageValue }),
    };
  return out as unknown as MetricStatus;
}

// ---------------------------------------------------------------- behavior (internal Go JSON)

/** The rules with kube's alpha tolerance, which kubernetes-types does not have yet. */
export type ScalingRules = HPAScalingRules & { tolerance?: string };

function rulesToInternal(r: ScalingRules | undefined): Json | null {
  if (!r) return null;
  return {
    StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
    SelectPolicy: r.selectPolicy ?? null,
    Policies: r.policies ? r.policies.map((p) => ({ Type: p.type, Value: p.value, PeriodSeconds: p.periodSeconds })) : null,
    Tolerance: r.tolerance ?? null,
  };
}

function rulesFromInternal(r: unknown): ScalingRules | undefined {
  if (!isObj(r)) return undefined;
  const policies = Array.isArray(r.Policies)
    ? (r.Policies as Json[]).map((p) => ({ type: p.Type as string, value: p.Value as number, periodSeconds: p.PeriodSeconds as number }))
    : undefined;
  return clean({
    stabilizationWindowSeconds: (r.StabilizationWindowSeconds ?? undefined) as number | undefined,
    selectPolicy: (r.SelectPolicy ?? undefined) as string | undefined,
    policies,
    tolerance: (r.Tolerance ?? undefined) as string | undefined,
  });
}

// ---------------------------------------------------------------- objects

const json = (v: unknown): string => JSON.stringify(v);
function parseAnnotation(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The autoscaling/v1 view of a stored (v2) HorizontalPodAutoscaler. */
export function hpaV2ToV1(v2: HPAv2): HPAv1 {
  const meta = dropRoundTrip(v2.metadata as Json);
  const annotations: Record<string, string> = { ...(meta.annotations as Record<string, string> | undefined) };
  const spec: Partial<SpecV2> = v2.spec ?? {};
  const metrics = spec.metrics ?? [];
  const cpu = metrics.find(isCPUUtilization);
  const others = metrics.filter((m) => !isCPUUtilization(m));
  if (others.length > 0) annotations[METRIC_SPECS_ANNOTATION] = json(others.map(specToV1));
  const status: Partial<StatusV2> = v2.status ?? {};
  const current = status.currentMetrics ?? [];
  if (current.length > 0) annotations[METRIC_STATUSES_ANNOTATION] = json(current.map(statusToV1));
  if (spec.behavior)
    annotations[BEHAVIOR_ANNOTATION] = json({
      ScaleUp: rulesToInternal(spec.behavior.scaleUp),
      ScaleDown: rulesToInternal(spec.behavior.scaleDown),
    });
  const conditions = status.conditions ?? [];
  if (conditions.length > 0)
    annotations[CONDITIONS_ANNOTATION] = json(
      conditions.map((c) =>
        clean({ type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message }),
      ),
    );
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  const cpuStatus = current.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && has(m.resource.current?.averageUtilization));
  const v1Spec: SpecV1 = clean({
    scaleTargetRef: spec.scaleTargetRef as SpecV1['scaleTargetRef'],
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas as number,
    targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization,
  });
  const v1Status: StatusV1 = clean({
    observedGeneration: status.observedGeneration,
    lastScaleTime: status.lastScaleTime,
    currentReplicas: status.currentReplicas ?? 0,
    desiredReplicas: status.desiredReplicas ?? 0,
    currentCPUUtilizationPercentage: cpuStatus?.resource?.current?.averageUtilization,
  });
  return clean<HPAv1 & Json>({
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v1',
    metadata: meta,
    spec: v1Spec,
    status: v2.status === undefined ? undefined : v1Status,
  });
}

/** The autoscaling/v2 object stored for an autoscaling/v1 one (before v2's defaults). */
export function hpaV1ToV2(v1: HPAv1): HPAv2 {
  const annotations = (v1.metadata?.annotations ?? {}) as Record<string, string>;
  const meta = dropRoundTrip(v1.metadata as Json);
  const spec: Partial<SpecV1> = v1.spec ?? {};
  const metrics: MetricSpec[] = [];
  const others = parseAnnotation(annotations[METRIC_SPECS_ANNOTATION]);
  if (Array.isArray(others)) metrics.push(...others.filter(isObj).map(specFromV1));
  if (has(spec.targetCPUUtilizationPercentage))
    metrics.push({
      type: 'Resource',
      resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } },
    });
  // v1 had an implicit CPU default in the controller; the conversion makes it explicit.
  if (metrics.length === 0)
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } });
  let behavior: HorizontalPodAutoscalerBehavior | undefined;
  const b = parseAnnotation(annotations[BEHAVIOR_ANNOTATION]);
  if (isObj(b)) behavior = clean({ scaleUp: rulesFromInternal(b.ScaleUp), scaleDown: rulesFromInternal(b.ScaleDown) });
  const v2Spec: SpecV2 = clean({
    scaleTargetRef: spec.scaleTargetRef as SpecV2['scaleTargetRef'],
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas as number,
    metrics,
    behavior,
  });
  let status: StatusV2 | undefined;
  if (v1.status) {
    const s = v1.status;
    let currentMetrics: MetricStatus[] | undefined;
    const cur = parseAnnotation(annotations[METRIC_STATUSES_ANNOTATION]);
    if (Array.isArray(cur)) currentMetrics = cur.filter(isObj).map(statusFromV1);
    else if (has(s.currentCPUUtilizationPercentage))
      currentMetrics = [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: s.currentCPUUtilizationPercentage } } },
      ];
    const conds = parseAnnotation(annotations[CONDITIONS_ANNOTATION]);
    const conditions = Array.isArray(conds) ? (conds.filter(isObj) as unknown as HorizontalPodAutoscalerCondition[]) : undefined;
    status = clean({
      observedGeneration: s.observedGeneration,
      lastScaleTime: s.lastScaleTime,
      currentReplicas: s.currentReplicas,
      desiredReplicas: s.desiredReplicas ?? 0,
      currentMetrics,
      conditions,
    });
  }
  return clean<HPAv2 & Json>({
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v2',
    metadata: meta,
    spec: v2Spec,
    status,
  });
}
