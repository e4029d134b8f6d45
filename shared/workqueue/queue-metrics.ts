// Prometheus metrics of a work queue, named as client-go names them
// (workqueue_depth, workqueue_adds_total, workqueue_retries_total,
// workqueue_queue_duration_seconds), labelled with the queue's name.
import type { Registry } from 'prom-client';
import { prom } from '../metrics/registry.ts';
import type { QueueMetrics } from './work-queue.ts';

const families = new WeakMap<Registry, ReturnType<typeof register>>();

function register(registry: Registry) {
  return {
    depth: new prom.Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of the work queue.',
      labelNames: ['name'],
      registers: [registry],
    }),
    adds: new prom.Counter({
      name: 'workqueue_adds_total',
      help: 'Total adds handled by the work queue.',
      labelNames: ['name'],
      registers: [registry],
    }),
    retries: new prom.Counter({
      name: 'workqueue_retries_total',
      help: 'Total retries handled by the work queue.',
      labelNames: ['name'],
      registers: [registry],
    }),
    latency: new prom.Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long a key waits in the queue before it is processed.',
      labelNames: ['name'],
      buckets: [0.0001, 0.001, 0.01, 0.1, 1, 10, 100],
      registers: [registry],
    }),
  };
}

/** QueueMetrics for the queue `name`, registered once per registry. */
export function queueMetrics(registry: Registry, name: string): QueueMetrics {
  let f = families.get(registry);
  if (!f) {
    f = register(registry);
    families.set(registry, f);
  }
  const m = f;
  return {
    added: () => m.adds.inc({ name }),
    depth: (n) => m.depth.set({ name }, n),
    retried: () => m.retries.inc({ name }),
    latency: (s) => m.latency.observe({ name }, s),
  };
}
