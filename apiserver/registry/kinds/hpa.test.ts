import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler as HPAv2 } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import { defaulted, invalidMessage } from './testing.ts';
import {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  hpaV1ToV2,
  hpaV2ToV1,
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
} from './hpa-conversion.ts';
import { defaultHPAv2 } from './hpa.ts';

const KEY = 'autoscaling/horizontalpodautoscalers';
const v2 = (spec: Record<string, unknown> = {}): HPAv2 => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, ...spec },
});
const msg = (obj: unknown, old?: unknown) => invalidMessage(KEY, 'HorizontalPodAutoscaler', 'autoscaling', obj, old);

test('v2 defaults: one replica, an 80% CPU target, a given behavior completed with the default rules', () => {
  const d = defaulted(KEY, v2({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }));
  assert.equal(d.spec.minReplicas, 1);
  assert.deepEqual(d.spec.metrics, [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
  ]);
  assert.deepEqual(d.spec.behavior, {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], stabilizationWindowSeconds: 60 },
  });
  assert.equal(defaulted(KEY, v2()).spec.behavior, undefined);
});

test("validation: kube's messages for replicas, the target reference, metrics and behavior", () => {
  assert.equal(msg(v2()), '');
  assert.equal(
    msg(v2({ minReplicas: 0, maxReplicas: 0 })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas]',
  );
  assert.equal(
    msg(v2({ minReplicas: 6 })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`',
  );
  assert.equal(
    msg(v2({ scaleTargetRef: { kind: '', name: 'a/b' } })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: [spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Invalid value: "a/b": may not contain \'/\']',
  );
  assert.equal(
    msg(v2({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }] })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
  );
  assert.equal(
    msg(v2({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
  );
  assert.match(
    msg(v2({ metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } } }] })),
    /spec\.metrics\[0\]\.pods: Required value: must populate information for the given metric source/,
  );
  assert.equal(
    msg(v2({ behavior: { scaleUp: { stabilizationWindowSeconds: 4000, policies: [{ type: 'Pods', value: 0, periodSeconds: 2000 }] } } })),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: [spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600, spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero, spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800]',
  );
  // An HPA that already scales to zero may keep doing so.
  const zero = v2({
    minReplicas: 0,
    metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }],
  });
  assert.equal(msg(zero, zero), '');
});

test('a v1 object is validated as the v2 object it is stored as', () => {
  const v1: HPAv1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 0 },
  };
  assert.equal(
    msg(v1),
    'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
  );
  assert.equal(defaulted(KEY, v1).spec.minReplicas, 1);
});

test('v2 -> v1: the CPU utilization target and status in place, everything else in the round-trip annotations', () => {
  const stored = v2({
    minReplicas: 1,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
    },
  });
  defaultHPAv2(stored);
  stored.status = {
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 75, averageValue: '150m' } } }],
    conditions: [
      { type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-11-30T12:00:00Z', reason: 'SucceededRescale', message: 'm' },
    ],
  };
  const v1 = hpaV2ToV1(stored);
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.deepEqual(v1.spec, {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    targetCPUUtilizationPercentage: 50,
  });
  assert.deepEqual(v1.status, { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75 });
  const a = v1.metadata!.annotations!;
  assert.equal(a[METRIC_SPECS_ANNOTATION], '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]');
  assert.equal(
    a[METRIC_STATUSES_ANNOTATION],
    '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":75,"currentAverageValue":"150m"}}]',
  );
  assert.equal(
    a[BEHAVIOR_ANNOTATION],
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}',
  );
  assert.equal(
    a[CONDITIONS_ANNOTATION],
    '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-30T12:00:00Z","reason":"SucceededRescale","message":"m"}]',
  );
  // And back: the v2 object is whole again, without the annotations.
  const back = hpaV1ToV2(v1);
  defaultHPAv2(back);
  assert.deepEqual(
    back.spec,
    stored.spec === undefined ? undefined : { ...stored.spec, metrics: [stored.spec.metrics![1], stored.spec.metrics![0]] },
  );
  assert.deepEqual(back.status, stored.status);
  assert.equal(back.metadata!.annotations, undefined);
});

test('v1 -> v2: no target is the 80% CPU default; a v1 client cannot forge the round-trip annotations of another object', () => {
  const v1: HPAv1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'w', annotations: { keep: 'me' } },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'w' }, maxReplicas: 2 },
  };
  const out = hpaV1ToV2(v1);
  assert.deepEqual(out.spec!.metrics, [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
  ]);
  assert.deepEqual(out.metadata!.annotations, { keep: 'me' });
  assert.deepEqual(hpaV2ToV1(out).spec!.targetCPUUtilizationPercentage, 80);
});
