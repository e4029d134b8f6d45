import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import { formatHPAMetrics, horizontalPodAutoscalerPrinter } from './hpa.ts';

const NOW = new Date('2026-11-30T12:00:00Z');
const cpu = (u: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });

test('Targets: <unknown> until a current value, cpu: 45%/50% after, raw values, two metrics then "+ N more..."', () => {
  assert.equal(formatHPAMetrics([], undefined), '<none>');
  assert.equal(formatHPAMetrics([cpu(50)], undefined), 'cpu: <unknown>/50%');
  assert.equal(formatHPAMetrics([cpu(50)], [{ type: '' }]), 'cpu: <unknown>/50%');
  assert.equal(
    formatHPAMetrics(
      [cpu(50)],
      [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45, averageValue: '90m' } } }],
    ),
    'cpu: 45%/50%',
  );
  const mem = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } };
  assert.equal(
    formatHPAMetrics([mem], [{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '50Mi' } } }]),
    'memory: 50Mi/100Mi',
  );
  const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } };
  assert.equal(formatHPAMetrics([cpu(50), mem, pods], undefined), 'cpu: <unknown>/50%, memory: <unknown>/100Mi + 1 more...');
});

test('a row: Name, Reference, Targets, MinPods, MaxPods, Replicas, Age; a v1 object prints the same', () => {
  const hpa: HorizontalPodAutoscaler = {
    metadata: { name: 'php-apache', creationTimestamp: '2026-11-30T11:55:00Z' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'php-apache' }, minReplicas: 1, maxReplicas: 10, metrics: [cpu(50)] },
    status: {
      currentReplicas: 4,
      desiredReplicas: 4,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45 } } }],
    },
  };
  assert.deepEqual(
    horizontalPodAutoscalerPrinter.columns.map((c) => c.name),
    ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
  );
  const row = horizontalPodAutoscalerPrinter.row(hpa, { now: NOW }).cells;
  assert.deepEqual(row, ['php-apache', 'Deployment/php-apache', 'cpu: 45%/50%', '1', 10, 4, '5m']);
  const v1: HPAv1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'php-apache', creationTimestamp: '2026-11-30T11:55:00Z' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'php-apache' }, maxReplicas: 10, targetCPUUtilizationPercentage: 50 },
    status: { currentReplicas: 4, desiredReplicas: 4, currentCPUUtilizationPercentage: 45 },
  };
  assert.deepEqual(horizontalPodAutoscalerPrinter.row(v1, { now: NOW }).cells, [
    'php-apache',
    'Deployment/php-apache',
    'cpu: 45%/50%',
    '<unset>',
    10,
    4,
    '5m',
  ]);
});
