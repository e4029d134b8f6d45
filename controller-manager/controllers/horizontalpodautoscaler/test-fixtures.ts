// Test fixtures of an HPA sync (plan.test.ts, notes.test.ts): the HPA, its
// target's scale, Pods and their metrics at a fixed time, and the Observed
// that planSync takes.
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newMemory } from './behavior.ts';
import type { MetricsResult, Observed } from './plan.ts';
import type { PodMetrics } from './replica-calculator.ts';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const config = {
  tolerance: 0.1,
  cpuInitializationPeriodMs: 300_000,
  delayOfInitialReadinessStatusMs: 30_000,
  downscaleStabilizationMs: 300_000,
  secondMs: 1000,
};

export const hpa = (
  o: Partial<HorizontalPodAutoscaler['spec']> = {},
  status?: HorizontalPodAutoscaler['status'],
): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'php-apache', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    ...o,
  },
  status: status ?? { desiredReplicas: 0 },
});
export const scale = (replicas: number, selector = 'app=php-apache'): Scale => ({
  metadata: { name: 'php-apache', namespace: 'default' },
  spec: { replicas },
  status: { replicas, selector },
});
export const pod = (name: string, labels = { app: 'php-apache' }): Pod => ({
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu: '200m' } } }] },
  status: {
    phase: 'Running',
    startTime: stamp(NOW - 600_000),
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: stamp(NOW - 590_000) }],
  },
});
export const usage = (cpu: Record<string, string>): MetricsResult => ({
  items: Object.entries(cpu).map(([name, v]): PodMetrics => ({
    metadata: { name },
    timestamp: stamp(NOW - 5000),
    window: '15s',
    containers: [{ name: 'c', usage: { cpu: v } }],
  })),
});
export const observe = (
  h: HorizontalPodAutoscaler,
  s: Scale | { error: string },
  pods: Pod[],
  m: MetricsResult,
  memory = newMemory(),
): Observed => ({
  hpa: h,
  scale: s,
  pods,
  metrics: () => m,
  now: NOW,
  memory,
  config,
});
