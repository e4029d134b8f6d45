// kube's ValidatingAdmissionPolicy status controller
// (validatingadmissionpolicy-status-controller): writes each policy's
// status.observedGeneration and status.typeChecking (the expression
// warnings of plan.ts) through the status subresource once per generation.
// Keys are policy names.
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { planStatus } from './plan.ts';

const policies = findResource('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!;

/** Builds the controller; the caller runs it with runController. */
export function validatingAdmissionPolicyStatusController(ctx: ControllerContext): ControllerParts {
  const name = 'validatingadmissionpolicy-status';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const informer = ctx.informers.informerFor<ValidatingAdmissionPolicy>(policies);
  const enqueue = (p: ValidatingAdmissionPolicy) => queue.add(p.metadata!.name!);
  informer.on({ add: enqueue, update: (_old, p) => enqueue(p) });

  async function reconcile(key: string): Promise<void> {
    const cached = informer.cache.get(key);
    if (!cached) return;
    const status = planStatus(cached);
    if (!status) return;
    const next = { ...structuredClone(cached), status };
    try {
      await ctx.client.update(policies, next, 'status');
    } catch (err) {
      // Gone, or changed meanwhile: the informer brings the next version.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  return { name, queue, informers: [informer], reconcile };
}
