// The scheduler's Prometheus metrics, named as kube-scheduler names them:
// attempts by result, attempt and end-to-end latency, pending Pods by queue,
// preemption attempts and victims.
import type { Registry } from 'prom-client';
import { prom } from '../shared/metrics/registry.ts';

const BUCKETS = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];

/** The scheduler's metric families. */
export interface SchedulerMetrics {
  attempts: prom.Counter<'result' | 'profile'>;
  attemptDuration: prom.Histogram<'result' | 'profile'>;
  e2eDuration: prom.Histogram<'result' | 'profile'>;
  podSchedulingDuration: prom.Histogram<'attempts'>;
  preemptionAttempts: prom.Counter<string>;
  preemptionVictims: prom.Histogram<string>;
}

/** Registers the families on `registry`; `pending` reports queue sizes when scraped. */
export function schedulerMetrics(registry: Registry, pending: () => Record<string, number>): SchedulerMetrics {
  new prom.Gauge({
    name: 'scheduler_pending_pods',
    help: 'Number of pending pods, by the queue type.',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      for (const [queue, n] of Object.entries(pending())) this.set({ queue }, n);
    },
  });
  return {
    attempts: new prom.Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result.',
      labelNames: ['result', 'profile'],
      registers: [registry],
    }),
    attemptDuration: new prom.Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding).',
      labelNames: ['result', 'profile'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    e2eDuration: new prom.Histogram({
      name: 'scheduler_e2e_scheduling_duration_seconds',
      help: 'E2e scheduling latency in seconds (scheduling algorithm + binding).',
      labelNames: ['result', 'profile'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    podSchedulingDuration: new prom.Histogram({
      name: 'scheduler_pod_scheduling_duration_seconds',
      help: 'E2e latency for a pod being scheduled, from when it first entered the queue, which may include multiple attempts.',
      labelNames: ['attempts'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    preemptionAttempts: new prom.Counter({
      name: 'scheduler_preemption_attempts_total',
      help: 'Total preemption attempts in the cluster till now.',
      registers: [registry],
    }),
    preemptionVictims: new prom.Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of selected preemption victims.',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
  };
}
