// Prometheus metrics for every process: one prom-client registry per process
// with the default Node.js metrics, served at /metrics.
import client from 'prom-client';

/** A fresh registry with process metrics, labelled with the component. */
export function createMetricsRegistry(component: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ component });
  client.collectDefaultMetrics({ register: registry });
  return registry;
}

export { client as prom };
