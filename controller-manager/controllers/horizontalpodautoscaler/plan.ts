// One HPA sync as a pure function (kube's reconcileAutoscaler): from the
// target's Scale, its Pods and their PodMetrics, the replica count to scale
// to, the new status (conditions AbleToScale, ScalingActive, ScalingLimited
// with kube's reasons and messages) and the events to record. The controller
// fetches what this reads and applies what it returns; rescaled() finishes
// the status once the Scale write has succeeded or failed.
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
  MetricStatus,
} from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import { matchesLabels, parseLabelSelector } from '../../../shared/labels/label-selector.ts';
import {
  limitWithBehavior,
  limitWithRules,
  recordInitialRecommendation,
  stabilizeRecommendation,
  stabilizeWithBehavior,
  storeScaleEvent,
  type Behavior,
  type HPAMemory,
} from './behavior.ts';
import { podMetricsInfo, rawResourceReplicas, resourceReplicas, type CalculatorConfig, type PodMetrics } from './replica-calculator.ts';

/** An event to record on the HPA. */
export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The PodMetrics of the target's Pods, or why they could not be listed. */
export type MetricsResult = { items: PodMetrics[] } | { error: string };

/** What one sync reads. */
export interface Observed {
  hpa: HorizontalPodAutoscaler;
  /** The target's Scale, or the error of its GET. */
  scale: Scale | { error: string };
  /** The Pods of the namespace (the plan selects them with the Scale's selector). */
  pods: readonly Pod[];
  /** Fetches the PodMetrics for a label selector (the plan says which); called once per selector. */
  metrics: (selector: string) => MetricsResult;
  now: number;
  /** The controller's memory of this HPA (mutated: recommendations and scale events). */
  memory: HPAMemory;
  config: CalculatorConfig & { downscaleStabilizationMs: number; secondMs: number };
}

/** What one sync decides. */
export interface Plan {
  status: HorizontalPodAutoscalerStatus;
  events: PlannedEvent[];
  /** Set when the target's scale must be written. */
  rescale?: { from: number; to: number; reason: string };
  /** The sync's error (kube's reconcileAutoscaler error), for the log. */
  error?: string;
  /** How the metric path reached its count, for step-through notes (notes.ts). */
  explain?: HpaExplain;
}

/** The numbers behind a metric-based count: each metric's proposal, stabilization, then min/max limits. */
export interface HpaExplain {
  current: number;
  metrics: { metric: string; arithmetic: string; replicas: number }[];
  /** The highest proposal. */
  proposed: number;
  /** Why stabilization changed the proposal, when it did. */
  stabilized?: string;
  stabilizedReplicas: number;
  /** Why the limits (min, max, scale-up rate, policies) changed it, when they did. */
  limited?: string;
  min: number;
  max: number;
  desired: number;
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** setCondition: replaces the condition of that type, keeping its transition time while its status holds. */
export function setCondition(
  status: HorizontalPodAutoscalerStatus,
  type: string,
  value: 'True' | 'False',
  reason: string,
  message: string,
  now: number,
): void {
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === type);
  const next: HorizontalPodAutoscalerCondition = {
    type,
    status: value,
    lastTransitionTime: existing && existing.status === value ? existing.lastTransitionTime : stamp(now),
    reason,
    message,
  };
  if (existing) conditions[conditions.indexOf(existing)] = next;
  else conditions.push(next);
}

/** The metric name kube puts in the rescale reason and in ValidMetricFound. */
function metricName(spec: MetricSpec): string {
  if (spec.type === 'Resource') {
    const r = spec.resource!;
    return r.target?.averageUtilization !== undefined && r.target?.averageUtilization !== null
      ? `${r.name} resource utilization (percentage of request)`
      : `${r.name} resource`;
  }
  return `${spec.type} metric`;
}

const milli = (m: number): string => (m % 1000 === 0 ? String(m / 1000) : `${m}m`);

interface MetricProposal {
  replicas: number;
  name: string;
  status: MetricStatus;
  arithmetic: string;
}

/** computeStatusForResourceMetric: one Resource metric's proposal, or its condition and events on failure. */
function resourceProposal(
  spec: MetricSpec,
  current: number,
  obs: Observed,
  selector: string,
  pods: readonly Pod[],
): MetricProposal | { error: string; condition: [string, string]; event: PlannedEvent } {
  const src = spec.resource!;
  const fail = (msg: string, wrapped: string) => ({
    error: `failed to get ${src.name} resource metric value: ${wrapped}`,
    condition: ['FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${wrapped}`] as [string, string],
    event: { type: 'Warning' as const, reason: 'FailedGetResourceMetric', message: wrapped },
  });
  const utilizationTarget = src.target?.averageUtilization;
  const valueTarget = src.target?.averageValue;
  const got = obs.metrics(selector);
  const what = utilizationTarget !== undefined && utilizationTarget !== null ? 'utilization' : 'usage';
  try {
    if ('error' in got)
      throw new Error(`unable to get metrics for resource ${src.name}: unable to fetch metrics from resource metrics API: ${got.error}`);
    if (got.items.length === 0)
      throw new Error(`unable to get metrics for resource ${src.name}: no metrics returned from resource metrics API`);
    const info = podMetricsInfo(got.items, src.name);
    const timestamp = Date.parse(got.items[0].timestamp);
    if (utilizationTarget !== undefined && utilizationTarget !== null) {
      const r = resourceReplicas(current, utilizationTarget, src.name, pods, info, timestamp, obs.now, obs.config);
      return {
        replicas: r.replicas,
        name: metricName(spec),
        arithmetic: r.arithmetic,
        status: {
          type: 'Resource',
          resource: { name: src.name, current: { averageValue: milli(r.rawUtilization), averageUtilization: r.utilization } },
        },
      };
    }
    if (valueTarget === undefined || valueTarget === null)
      throw new Error('invalid resource metric source: neither a utilization target nor a value target was set');
    const target = Math.round(Number(parseMilli(valueTarget)));
    const r = rawResourceReplicas(current, target, src.name, pods, info, timestamp, obs.now, obs.config);
    return {
      replicas: r.replicas,
      name: metricName(spec),
      arithmetic: r.arithmetic,
      status: { type: 'Resource', resource: { name: src.name, current: { averageValue: milli(r.utilization) } } },
    };
  } catch (err) {
    const msg = (err as Error).message;
    return fail(msg, `failed to get ${src.name} ${what}: ${msg}`);
  }
}

function parseMilli(q: string): number {
  const m = /^([0-9.]+)(m|k|M|G|Ki|Mi|Gi)?$/.exec(q.trim());
  if (!m) return NaN;
  const mult: Record<string, number> = { '': 1000, m: 1, k: 1e6, M: 1e9, G: 1e12, Ki: 1024e3, Mi: 1024 ** 2 * 1e3, Gi: 1024 ** 3 * 1e3 };
  return Number(m[1]) * mult[m[2] ?? ''];
}

/** The HPA's behavior with the controller's downscale window where scaleDown has none; undefined without a behavior. */
function effectiveBehavior(hpa: HorizontalPodAutoscaler, downscaleSeconds: number): Behavior | undefined {
  const b = hpa.spec?.behavior;
  if (!b) return undefined;
  const scaleDown = { ...b.scaleDown };
  scaleDown.stabilizationWindowSeconds ??= downscaleSeconds;
  return { scaleUp: b.scaleUp ?? {}, scaleDown };
}

/** Plans one sync of `obs.hpa`. */
export function planSync(obs: Observed): Plan {
  const { hpa, now } = obs;
  const spec = hpa.spec!;
  const status: HorizontalPodAutoscalerStatus = structuredClone(hpa.status ?? { desiredReplicas: 0 });
  const events: PlannedEvent[] = [];
  const ref = spec.scaleTargetRef;
  const reference = `${ref.kind}/${hpa.metadata?.namespace}/${ref.name}`;
  const finish = (current: number, desired: number, metrics: MetricStatus[] | undefined, error?: string): Plan => {
    const next: HorizontalPodAutoscalerStatus = { lastScaleTime: status.lastScaleTime, currentReplicas: current, desiredReplicas: desired };
    if (metrics && metrics.length > 0) next.currentMetrics = metrics;
    if (status.conditions) next.conditions = status.conditions;
    if (!next.lastScaleTime) delete next.lastScaleTime;
    return { status: next, events, error };
  };

  // computeReplicasForMetrics failed: the status keeps its desired count, the sync fails.
  const metricsFailure = (err: string, metrics?: MetricStatus[]): Plan => {
    events.push({ type: 'Warning', reason: 'FailedComputeMetricsReplicas', message: err });
    const current = 'error' in obs.scale ? 0 : (obs.scale.spec?.replicas ?? 0);
    return {
      ...finish(current, status.desiredReplicas, metrics),
      error: `failed to compute desired number of replicas based on listed metrics for ${reference}: ${err}`,
    };
  };

  if ('error' in obs.scale) {
    events.push({ type: 'Warning', reason: 'FailedGetScale', message: obs.scale.error });
    setCondition(
      status,
      'AbleToScale',
      'False',
      'FailedGetScale',
      `the HPA controller was unable to get the target's current scale: ${obs.scale.error}`,
      now,
    );
    return { status, events, error: `failed to query scale subresource for ${reference}: ${obs.scale.error}` };
  }
  const scale = obs.scale;
  setCondition(status, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
  const current = scale.spec?.replicas ?? 0;
  recordInitialRecommendation(obs.memory, current, now);
  const minReplicas = spec.minReplicas ?? 1;
  let desired = 0;
  let reason = '';
  let metricStatuses: MetricStatus[] | undefined;
  let rescale = true;
  let retErr: string | undefined;
  let explain: HpaExplain | undefined;

  if (current === 0 && minReplicas !== 0) {
    desired = 0;
    rescale = false;
    setCondition(
      status,
      'ScalingActive',
      'False',
      'ScalingDisabled',
      'scaling is disabled since the replica count of the target is zero',
      now,
    );
  } else if (current > spec.maxReplicas) {
    reason = 'Current number of replicas above Spec.MaxReplicas';
    desired = spec.maxReplicas;
  } else if (current < minReplicas) {
    reason = 'Current number of replicas below Spec.MinReplicas';
    desired = minReplicas;
  } else {
    // computeReplicasForMetrics
    const selectorText = scale.status?.selector ?? '';
    if (selectorText === '') {
      events.push({ type: 'Warning', reason: 'SelectorRequired', message: 'selector is required' });
      setCondition(status, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now);
      return metricsFailure('selector is required');
    }
    let selector;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      const msg = (err as Error).message;
      events.push({ type: 'Warning', reason: 'InvalidSelector', message: msg });
      setCondition(
        status,
        'ScalingActive',
        'False',
        'InvalidSelector',
        `couldn't convert selector into a corresponding internal selector object: ${msg}`,
        now,
      );
      return metricsFailure(msg);
    }
    const pods = obs.pods.filter((p) => matchesLabels(selector, p.metadata?.labels));
    const metrics = spec.metrics ?? [];
    let best = 0;
    let bestName = '';
    let invalid = 0;
    let firstError = '';
    let invalidCondition: [string, string] | undefined;
    metricStatuses = [];
    const proposals: HpaExplain['metrics'] = [];
    for (const m of metrics) {
      if (m.type !== 'Resource' || !m.resource) {
        // ksim serves resource metrics only (metrics.k8s.io); the custom and external APIs are not there.
        const msg = `unable to get metric ${metricName(m)}: no ${m.type === 'External' ? 'external' : 'custom'} metrics API is served`;
        invalid++;
        firstError ||= msg;
        invalidCondition ??= [`FailedGet${m.type}Metric`, `the HPA was unable to compute the replica count: ${msg}`];
        events.push({ type: 'Warning', reason: `FailedGet${m.type}Metric`, message: msg });
        metricStatuses.push({ type: '' });
        continue;
      }
      const p = resourceProposal(m, current, obs, selectorText, pods);
      if ('error' in p) {
        invalid++;
        firstError ||= p.error;
        invalidCondition ??= p.condition;
        events.push(p.event);
        metricStatuses.push({ type: '' });
        continue;
      }
      metricStatuses.push(p.status);
      proposals.push({ metric: p.name, arithmetic: p.arithmetic, replicas: p.replicas });
      if (best === 0 || p.replicas > best) {
        best = p.replicas;
        bestName = p.name;
      }
    }
    // As in kube, a metric that failed keeps an empty entry ({type: ""}) at its index.
    if (invalid >= metrics.length || (invalid > 0 && best < current)) {
      const [r, msg] = invalidCondition!;
      setCondition(status, 'ScalingActive', 'False', r, msg, now);
      return metricsFailure(`invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstError}`, metricStatuses);
    }
    if (invalid > 0) retErr = `invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstError}`;
    setCondition(
      status,
      'ScalingActive',
      'True',
      'ValidMetricFound',
      `the HPA was able to successfully calculate a replica count from ${bestName}`,
      now,
    );

    let rescaleMetric = '';
    if (best > desired) {
      desired = best;
      rescaleMetric = bestName;
    }
    if (desired > current) reason = `${rescaleMetric} above target`;
    if (desired < current) reason = 'All metrics below target';
    const behavior = effectiveBehavior(hpa, obs.config.downscaleStabilizationMs / obs.config.secondMs);
    let stabilized: { replicas: number; reason: string; message: string };
    let limited: { replicas: number; reason: string; message: string };
    if (!behavior) {
      const s = stabilizeRecommendation(obs.memory, desired, now, obs.config.downscaleStabilizationMs);
      stabilized = {
        replicas: s,
        reason: 'ScaleDownStabilized',
        message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
      };
      limited = limitWithRules(current, s, minReplicas, spec.maxReplicas);
    } else {
      stabilized = stabilizeWithBehavior(obs.memory, current, desired, behavior, now, obs.config.secondMs);
      limited = limitWithBehavior(
        obs.memory,
        current,
        stabilized.replicas,
        minReplicas,
        spec.maxReplicas,
        behavior,
        now,
        obs.config.secondMs,
      );
    }
    if (stabilized.replicas !== desired) setCondition(status, 'AbleToScale', 'True', stabilized.reason, stabilized.message, now);
    else setCondition(status, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
    setCondition(
      status,
      'ScalingLimited',
      limited.replicas === stabilized.replicas ? 'False' : 'True',
      limited.reason,
      limited.message,
      now,
    );
    explain = {
      current,
      metrics: proposals,
      proposed: best,
      stabilized: stabilized.replicas === desired ? undefined : `${stabilized.reason}: ${stabilized.message}`,
      stabilizedReplicas: stabilized.replicas,
      limited: limited.replicas === stabilized.replicas ? undefined : `${limited.reason}: ${limited.message}`,
      min: minReplicas,
      max: spec.maxReplicas,
      desired: limited.replicas,
    };
    desired = limited.replicas;
    rescale = desired !== current;
  }

  const withExplain = (plan: Plan): Plan => (explain ? { ...plan, explain } : plan);
  if (!rescale) return withExplain(finish(current, current, metricStatuses, retErr));
  const plan = withExplain(finish(current, desired, metricStatuses, retErr));
  plan.rescale = { from: current, to: desired, reason };
  return plan;
}

/** Completes a plan once its Scale write is done: kube's SucceededRescale or FailedUpdateScale, the event and the scale event memory. */
export function rescaled(plan: Plan, obs: Pick<Observed, 'hpa' | 'now' | 'memory' | 'config'>, writeError?: string): Plan {
  const r = plan.rescale!;
  const status = structuredClone(plan.status);
  const events = [...plan.events];
  if (writeError !== undefined) {
    events.push({ type: 'Warning', reason: 'FailedRescale', message: `New size: ${r.to}; reason: ${r.reason}; error: ${writeError}` });
    setCondition(
      status,
      'AbleToScale',
      'False',
      'FailedUpdateScale',
      `the HPA controller was unable to update the target scale: ${writeError}`,
      obs.now,
    );
    // The status keeps the desired count it had.
    status.desiredReplicas = obs.hpa.status?.desiredReplicas ?? 0;
    const ref = obs.hpa.spec!.scaleTargetRef;
    return { status, events, error: `failed to rescale ${ref.kind}/${obs.hpa.metadata?.namespace}/${ref.name}: ${writeError}` };
  }
  setCondition(
    status,
    'AbleToScale',
    'True',
    'SucceededRescale',
    `the HPA controller was able to update the target scale to ${r.to}`,
    obs.now,
  );
  events.push({ type: 'Normal', reason: 'SuccessfulRescale', message: `New size: ${r.to}; reason: ${r.reason}` });
  storeScaleEvent(
    obs.memory,
    effectiveBehavior(obs.hpa, obs.config.downscaleStabilizationMs / obs.config.secondMs),
    r.from,
    r.to,
    obs.now,
    obs.config.secondMs,
  );
  status.lastScaleTime = stamp(obs.now);
  // lastScaleTime comes before currentReplicas in kube's JSON.
  const { lastScaleTime, ...rest } = status;
  return { status: { lastScaleTime, ...rest }, events, error: plan.error };
}
