// kube's CronJob controller metric: how late a Job is created after its
// scheduled time (cronjob_controller_job_creation_skew_duration_seconds),
// registered once per registry.
import type { Registry } from 'prom-client';
import { prom } from '../../../shared/metrics/registry.ts';

const skews = new WeakMap<Registry, prom.Histogram>();

/** The creation-skew histogram in `registry`. */
export function creationSkew(registry: Registry): prom.Histogram {
  let h = skews.get(registry);
  if (!h) {
    h = new prom.Histogram({
      name: 'cronjob_controller_job_creation_skew_duration_seconds',
      help: 'Time between when a cronjob is scheduled to be run, and when the corresponding job is created',
      buckets: prom.exponentialBuckets(1, 2, 10),
      registers: [registry],
    });
    skews.set(registry, h);
  }
  return h;
}
