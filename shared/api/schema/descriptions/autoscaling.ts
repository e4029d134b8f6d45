// autoscaling/v2: HorizontalPodAutoscaler, which sets a workload's replicas
// from observed metrics (CPU, memory, custom and external metrics).
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const target = 'The value to aim for.';
const current = 'The value observed now.';
const metricName = 'The metric, by name and optional label selector.';

export const autoscaling: GroupTable = {
  prefix: 'io.k8s.api.autoscaling.v2',
  types: {
    HorizontalPodAutoscaler: {
      spec: 'The workload to scale, its replica bounds, the metrics to follow and how fast to scale.',
      status: 'The current and desired replica counts, the metric values observed and conditions.',
    },
    HorizontalPodAutoscalerSpec: {
      $: 'The desired behaviour of an autoscaler. Every interval (15 s by default) it computes replicas = ceil(current × observed / target) for each metric and takes the largest.',
      scaleTargetRef: 'The workload to scale (a Deployment, StatefulSet, ... with a scale subresource), in the same namespace.',
      minReplicas: 'The fewest replicas to scale down to. Defaults to 1.',
      maxReplicas: 'The most replicas to scale up to. Required, at least minReplicas.',
      metrics: 'The metrics to follow. Defaults to 80% average CPU utilisation. Resource metrics need the metrics API (metrics-server).',
      behavior: 'How fast to scale up and down (policies and stabilization windows). Unset uses the defaults.',
    },
    CrossVersionObjectReference: {
      $: 'An object to scale, by kind and name.',
      apiVersion: 'The API version of the object, e.g. apps/v1.',
      kind: 'The kind of the object, e.g. Deployment.',
      name: 'The name of the object.',
    },
    MetricSpec: {
      $: 'One metric to scale on; type says which of the other fields is set.',
      type: 'Resource, ContainerResource, Pods, Object or External.',
      resource: 'CPU or memory of the pods (summed over their containers), as known from their requests.',
      containerResource: 'CPU or memory of one container of the pods, e.g. leaving out a sidecar.',
      pods: 'A custom metric of each pod, averaged over the pods, such as requests per second.',
      object: 'A metric of one other object in the namespace, such as the hits per second of an Ingress.',
      external: 'A metric from outside the cluster, such as the length of a queue.',
    },
    ResourceMetricSource: {
      $: 'A CPU or memory target for the pods.',
      name: 'The resource: cpu or memory.',
      target: 'The target, usually averageUtilization (percent of the requests) or averageValue.',
    },
    ContainerResourceMetricSource: {
      $: 'A CPU or memory target for one container of the pods.',
      name: 'The resource: cpu or memory.',
      container: 'The container name.',
      target,
    },
    PodsMetricSource: { $: 'A custom per-pod metric target.', metric: metricName, target: 'The target; only averageValue is allowed.' },
    ObjectMetricSource: {
      $: 'A metric of another object.',
      describedObject: 'The object the metric describes.',
      metric: metricName,
      target: 'The target, value or averageValue.',
    },
    ExternalMetricSource: { $: 'A metric from outside the cluster.', metric: metricName, target: 'The target, value or averageValue.' },
    MetricIdentifier: {
      $: 'A metric by name, with an optional selector of its labels.',
      name: "The metric's name.",
      selector: 'Labels of the metric to narrow it down; unset uses the metric name alone.',
    },
    MetricTarget: {
      $: 'The value an autoscaler aims for.',
      type: 'Utilization, Value or AverageValue: which of the other fields is set.',
      value: 'The total value to aim for (with type Value).',
      averageValue: 'The value per pod to aim for, e.g. "100m" or "500Mi" (with type AverageValue).',
      averageUtilization: "The percentage of the pods' requests to aim for, e.g. 70 (with type Utilization; resource metrics only).",
    },
    MetricStatus: {
      $: 'The observed value of one metric; type says which field is set.',
      type: 'Resource, ContainerResource, Pods, Object or External.',
      resource: 'The observed CPU or memory of the pods.',
      containerResource: 'The observed CPU or memory of one container.',
      pods: 'The observed custom per-pod metric.',
      object: 'The observed metric of another object.',
      external: 'The observed external metric.',
    },
    ResourceMetricStatus: { $: 'Observed CPU or memory of the pods.', name: 'cpu or memory.', current },
    ContainerResourceMetricStatus: {
      $: 'Observed CPU or memory of one container.',
      name: 'cpu or memory.',
      container: 'The container name.',
      current,
    },
    PodsMetricStatus: { $: 'An observed per-pod metric.', metric: metricName, current },
    ObjectMetricStatus: {
      $: 'An observed metric of another object.',
      metric: metricName,
      current,
      describedObject: 'The object the metric describes.',
    },
    ExternalMetricStatus: { $: 'An observed external metric.', metric: metricName, current },
    MetricValueStatus: {
      $: 'An observed metric value.',
      value: 'The total value.',
      averageValue: 'The value per pod.',
      averageUtilization: "The value as a percentage of the pods' requests.",
    },
    HorizontalPodAutoscalerBehavior: {
      $: 'How fast an autoscaler may change the replica count.',
      scaleUp: 'Rules for scaling up. Default: no stabilization; at most double, or add 4 pods, per 15 s, whichever is more.',
      scaleDown: 'Rules for scaling down. Default: a 300 s stabilization window; may go straight to the target.',
    },
    HPAScalingRules: {
      $: 'Limits on scaling in one direction.',
      stabilizationWindowSeconds:
        'Seconds of past recommendations to consider: scaling down uses the highest of them, scaling up the lowest, so brief swings do not cause flapping. 0 to 3600.',
      selectPolicy:
        'Which policy wins when several apply: Max (the one allowing the biggest change, the default), Min, or Disabled (no scaling this way).',
      policies: 'Limits on how many pods, or what percentage, may be added or removed per period.',
      tolerance:
        'How far, as a fraction, the metric may stray from the target before scaling, e.g. 0.05 for 5%. Defaults to the cluster-wide tolerance (10%).',
    },
    HPAScalingPolicy: {
      $: 'A limit on how much scaling may happen in a period.',
      type: 'Pods (value is a number of pods) or Percent (value is a percentage of the current replicas).',
      value: 'The amount, greater than 0.',
      periodSeconds: 'The period the limit applies to, in seconds: 1 to 1800.',
    },
    HorizontalPodAutoscalerStatus: {
      $: 'The observed state of an autoscaler.',
      observedGeneration: 'The metadata.generation the autoscaler last acted on.',
      lastScaleTime: 'When it last changed the replica count.',
      currentReplicas: 'The replicas the workload had when last checked.',
      desiredReplicas: 'The replicas the autoscaler last computed.',
      currentMetrics: 'The values last observed for each metric.',
      conditions: 'AbleToScale, ScalingActive (metrics can be read) and ScalingLimited (the count hit min or max).',
    },
    HorizontalPodAutoscalerCondition: conditionFields('autoscaler', 'AbleToScale, ScalingActive, ScalingLimited'),
  },
};
