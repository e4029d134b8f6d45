// The TTL-after-finished controller: deletes a finished Job once
// spec.ttlSecondsAfterFinished has passed, cascading to its Pods
// (propagationPolicy Foreground, with the uid as precondition, as kube's
// controller deletes), after re-reading the Job from the apiserver in case
// its TTL changed. The decision is in plan.ts.
import type { Job } from 'kubernetes-types/batch/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf, splitKey } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext } from '../../context.ts';
import { decide, needsCleanup } from './plan.ts';

const jobs = findResource('batch', 'v1', 'jobs')!;

/** Builds the controller; the caller runs it with runController. */
export function ttlAfterFinishedController(ctx: ControllerContext) {
  const name = 'ttl-after-finished';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const jobInformer = ctx.informers.informerFor<Job>(jobs);
  const log = ctx.log.child({ controller: name });
  const enqueue = (job: Job) => {
    if (!job.metadata?.deletionTimestamp && needsCleanup(job)) queue.add(keyOf(job));
  };
  jobInformer.on({ add: enqueue, update: (_old, job) => enqueue(job) });

  async function reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const job = jobInformer.cache.get(key);
    if (!job) return;
    const first = decide(job, ctx.clock.now(), ctx.speed);
    if (first.kind === 'error') throw new Error(first.message);
    if (first.kind === 'wait') return { requeueAfterMs: first.ms };
    if (first.kind !== 'delete') return;
    const { namespace, name: jobName } = splitKey(key);
    let fresh: Job;
    try {
      fresh = await ctx.client.get<Job>(jobs, namespace, jobName);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
    const again = decide(fresh, ctx.clock.now(), ctx.speed);
    if (again.kind === 'error') throw new Error(again.message);
    if (again.kind === 'wait') return { requeueAfterMs: again.ms };
    if (again.kind !== 'delete') return;
    log.debug({ key }, 'cleaning up Job');
    try {
      await ctx.client.delete(jobs, namespace, jobName, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Foreground',
        preconditions: { uid: fresh.metadata!.uid },
      });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  log.debug('configured');
  return { name, queue, informers: [jobInformer], reconcile };
}
