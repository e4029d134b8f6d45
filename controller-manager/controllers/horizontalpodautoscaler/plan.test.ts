import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import { newMemory } from './behavior.ts';
import { planSync, rescaled } from './plan.ts';
import { NOW, hpa, observe, pod, scale, stamp, usage } from './test-fixtures.ts';

const cond = (plan: { status: HorizontalPodAutoscaler['status'] }, type: string) => {
  const c = plan.status!.conditions!.find((x) => x.type === type)!;
  return `${c.status} ${c.reason}: ${c.message}`;
};

test("no metrics yet: ScalingActive False FailedGetResourceMetric, kube's two warnings, the status keeps desiredReplicas", () => {
  const plan = planSync(observe(hpa(), scale(1), [pod('a')], { items: [] }));
  assert.equal(plan.rescale, undefined);
  assert.equal(cond(plan, 'AbleToScale'), "True SucceededGetScale: the HPA controller was able to get the target's current scale");
  assert.equal(
    cond(plan, 'ScalingActive'),
    'False FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
  );
  assert.deepEqual(
    plan.events.map((e) => `${e.type} ${e.reason}: ${e.message}`),
    [
      'Warning FailedGetResourceMetric: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
      'Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    ],
  );
  assert.deepEqual(plan.status.currentMetrics, [{ type: '' }]);
  assert.equal(plan.status.currentReplicas, 1);
  assert.equal(plan.status.desiredReplicas, 0);
  assert.match(
    plan.error!,
    /^failed to compute desired number of replicas based on listed metrics for Deployment\/default\/php-apache: invalid metrics/,
  );
});

test("over target: scale up with kube's reason, then SucceededRescale, SuccessfulRescale and lastScaleTime", () => {
  const obs = observe(hpa(), scale(1), [pod('a'), pod('other', { app: 'x' })], usage({ a: '250m' }));
  const plan = planSync(obs);
  // 250m of 200m is 125%, 2.5 x the 50% target: ceil(2.5) = 3 Pods.
  assert.deepEqual(plan.rescale, { from: 1, to: 3, reason: 'cpu resource utilization (percentage of request) above target' });
  assert.equal(
    cond(plan, 'ScalingActive'),
    'True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
  );
  assert.equal(cond(plan, 'ScalingLimited'), 'False DesiredWithinRange: the desired count is within the acceptable range');
  assert.deepEqual(plan.status.currentMetrics, [
    { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 125 } } },
  ]);
  const done = rescaled(plan, obs);
  assert.equal(cond(done, 'AbleToScale'), 'True SucceededRescale: the HPA controller was able to update the target scale to 3');
  assert.deepEqual(done.events, [
    {
      type: 'Normal',
      reason: 'SuccessfulRescale',
      message: 'New size: 3; reason: cpu resource utilization (percentage of request) above target',
    },
  ]);
  assert.equal(done.status.lastScaleTime, stamp(NOW));
  assert.equal(done.status.desiredReplicas, 3);
  assert.equal(done.status.currentReplicas, 1);
});

test('a failed scale write: FailedRescale and AbleToScale False FailedUpdateScale', () => {
  const obs = observe(hpa(), scale(1), [pod('a')], usage({ a: '250m' }));
  const done = rescaled(planSync(obs), obs, 'deployments.apps "php-apache" is forbidden');
  assert.equal(
    cond(done, 'AbleToScale'),
    'False FailedUpdateScale: the HPA controller was unable to update the target scale: deployments.apps "php-apache" is forbidden',
  );
  assert.equal(
    done.events.at(-1)!.message,
    'New size: 3; reason: cpu resource utilization (percentage of request) above target; error: deployments.apps "php-apache" is forbidden',
  );
  assert.equal(done.status.desiredReplicas, 0);
});

test('the scale-up is limited to max(2 x current, 4) and to maxReplicas', () => {
  const pods = ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n));
  const all = usage(Object.fromEntries(pods.map((p) => [p.metadata!.name!, '1'])));
  const p = planSync(observe(hpa(), scale(5), pods, all));
  // 500% of a 50% target wants 50; 2 x 5 = 10 is also maxReplicas: TooManyReplicas.
  assert.equal(p.rescale!.to, 10);
  assert.equal(cond(p, 'ScalingLimited'), 'True TooManyReplicas: the desired replica count is more than the maximum replica count');
  const q = planSync(observe(hpa({ maxReplicas: 40 }), scale(5), pods, all));
  assert.equal(q.rescale!.to, 10);
  assert.equal(cond(q, 'ScalingLimited'), 'True ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate');
});

test('under target: the downscale window holds the highest recent recommendation, then lets go', () => {
  const memory = newMemory();
  const pods = ['a', 'b', 'c', 'd'].map((n) => pod(n));
  const idle = usage({ a: '1m', b: '1m', c: '1m', d: '1m' });
  memory.recommendations.push({ replicas: 4, at: NOW - 100_000 });
  const held = planSync(observe(hpa(), scale(4), pods, idle, memory));
  assert.equal(held.rescale, undefined);
  assert.equal(held.status.desiredReplicas, 4);
  assert.equal(
    cond(held, 'AbleToScale'),
    'True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation',
  );
  const later = planSync({ ...observe(hpa(), scale(4), pods, idle, memory), now: NOW + 250_000 });
  assert.deepEqual(later.rescale, { from: 4, to: 1, reason: 'All metrics below target' });
  assert.equal(cond(later, 'AbleToScale'), 'True ReadyForNewScale: recommended size matches current size');
});

test('a behavior: its scale-down window replaces the controller default; a Pods policy slows the scale-down', () => {
  const memory = newMemory();
  memory.recommendations.push({ replicas: 4, at: NOW - 100_000 });
  const pods = ['a', 'b', 'c', 'd'].map((n) => pod(n));
  const idle = usage({ a: '1m', b: '1m', c: '1m', d: '1m' });
  const behavior = {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
  };
  const p = planSync(observe(hpa({ behavior }), scale(4), pods, idle, memory));
  assert.deepEqual(p.rescale, { from: 4, to: 3, reason: 'All metrics below target' });
  assert.equal(
    cond(p, 'ScalingLimited'),
    'True ScaleDownLimit: the desired replica count is decreasing faster than the maximum scale rate',
  );
});

test("scale of zero: ScalingDisabled; replicas out of [min, max] are brought back with kube's reasons", () => {
  const off = planSync(observe(hpa(), scale(0), [], { items: [] }));
  assert.equal(off.rescale, undefined);
  assert.equal(cond(off, 'ScalingActive'), 'False ScalingDisabled: scaling is disabled since the replica count of the target is zero');
  assert.deepEqual(planSync(observe(hpa(), scale(12), [], { items: [] })).rescale, {
    from: 12,
    to: 10,
    reason: 'Current number of replicas above Spec.MaxReplicas',
  });
  assert.deepEqual(planSync(observe(hpa({ minReplicas: 2 }), scale(1), [], { items: [] })).rescale, {
    from: 1,
    to: 2,
    reason: 'Current number of replicas below Spec.MinReplicas',
  });
});

test('a missing target: FailedGetScale; a scale without a selector: SelectorRequired', () => {
  const missing = planSync(observe(hpa(), { error: 'deployments.apps "php-apache" not found' }, [], { items: [] }));
  assert.equal(
    cond(missing, 'AbleToScale'),
    'False FailedGetScale: the HPA controller was unable to get the target\'s current scale: deployments.apps "php-apache" not found',
  );
  assert.deepEqual(missing.events, [{ type: 'Warning', reason: 'FailedGetScale', message: 'deployments.apps "php-apache" not found' }]);
  const noSelector = planSync(observe(hpa(), scale(2, ''), [], { items: [] }));
  assert.equal(cond(noSelector, 'ScalingActive'), "False InvalidSelector: the HPA target's scale is missing a selector");
  assert.deepEqual(
    noSelector.events.map((e) => e.reason),
    ['SelectorRequired', 'FailedComputeMetricsReplicas'],
  );
});

test('a condition keeps its transition time while its status holds', () => {
  const first = planSync(observe(hpa(), scale(1), [pod('a')], { items: [] }));
  const h = hpa({}, first.status);
  const again = planSync({ ...observe(h, scale(1), [pod('a')], usage({ a: '100m' })), now: NOW + 60_000 });
  const able = again.status.conditions!.find((c) => c.type === 'AbleToScale')!;
  const active = again.status.conditions!.find((c) => c.type === 'ScalingActive')!;
  assert.equal(able.lastTransitionTime, stamp(NOW));
  assert.equal(active.status, 'True');
  assert.equal(active.lastTransitionTime, stamp(NOW + 60_000));
});
