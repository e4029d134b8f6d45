// POST pods/<name>/eviction: a delete that honours PodDisruptionBudgets, as
// kube's eviction REST does (what `kubectl drain` uses). A Pod covered by a
// budget with no disruptions left gets 429 TooManyRequests; otherwise the
// budget's disruptionsAllowed is spent and the Pod is deleted gracefully.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { notFound, StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { decodeBody } from '../../http/codec.ts';
import { collectionPrefix, objectKey } from '../../registry/keys.ts';
import { planDelete, timestamp, type DeleteOptions } from '../../registry/lifecycle.ts';
import type { Mutate, StoredObject } from '../../storage/types.ts';
import { commitWrite } from '../commit-write.ts';
import { isDryRun } from '../dry-run.ts';
import { admissionAttributes } from '../write-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../context.ts';
import { writeRecordOf } from '../write-record.ts';

const PDBS = findResource('policy', 'v1', 'poddisruptionbudgets')!;

function tooManyRequests(message: string, cause: string): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { causes: [{ reason: 'DisruptionBudget', message: cause }] });
}

/** A stored PodDisruptionBudget, whose status the eviction spends (its fields may still be unset). */
type StoredBudget = StoredObject & { spec?: PodDisruptionBudgetSpec; status?: Partial<PodDisruptionBudgetStatus> };

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Serves an eviction. */
export async function handleEviction(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name } = r.info;
  // The client's policy/v1 Eviction: only its deleteOptions are read.
  const eviction = (decodeBody(await r.body(), r.contentType) ?? {}) as { deleteOptions?: DeleteOptions & { dryRun?: unknown } };
  const options: DeleteOptions = eviction.deleteOptions ?? {};
  // dryRun=All, on the request or in the Eviction's deleteOptions, checks the budget and stores nothing, as kube's EvictionREST.
  const bodyDryRun = eviction.deleteOptions?.dryRun;
  const dryRun =
    isDryRun(r.query) || (Array.isArray(bodyDryRun) && isDryRun(new URLSearchParams(bodyDryRun.map((v) => ['dryRun', String(v)]))));
  const podKey = objectKey(rt, namespace, name);
  const entry = ctx.store.get(podKey);
  if (!entry) throw notFound({ group: '', resource: 'pods' }, name);
  const pod = JSON.parse(entry.json) as Pod & StoredObject;
  // An eviction is a delete of the Pod to admission (NodeRestriction: a node evicts only its own Pods).
  ctx.admission.admitDelete(rt, pod, { ...admissionAttributes(r, 'CREATE', dryRun, []), subresource: 'eviction' });
  const phase = pod.status?.phase;
  // Pods that are done, not yet running, or already going need no budget.
  const ignoreBudget = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
  if (!ignoreBudget) {
    const pdbs = ctx.store
      .list({ bucket: PDBS.storagePrefix, keyPrefix: collectionPrefix(PDBS, namespace) })
      .items.map((j) => JSON.parse(j) as PodDisruptionBudget)
      .filter((pdb) => pdb.spec?.selector && matchesLabels(selectorFromLabelSelector(pdb.spec.selector), pod.metadata.labels));
    if (pdbs.length > 1) {
      throw new StatusError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    }
    const pdb = pdbs.at(0);
    const unhealthyMayGo = pdb?.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && !isReady(pod);
    if (pdb && !unhealthyMayGo) {
      const spendDisruption: Mutate = (stored) => {
        if (!stored) return undefined;
        const cur = stored as StoredBudget;
        const status = cur.status ?? {};
        if ((status.observedGeneration ?? 0) < (cur.metadata.generation ?? 0)) {
          throw tooManyRequests(
            "Cannot evict pod as it would violate the pod's disruption budget.",
            `The disruption budget ${cur.metadata.name} is still being processed by the server.`,
          );
        }
        const allowed = status.disruptionsAllowed ?? 0;
        if (allowed <= 0) {
          throw tooManyRequests(
            "Cannot evict pod as it would violate the pod's disruption budget.",
            `The disruption budget ${cur.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
          );
        }
        status.disruptionsAllowed = allowed - 1;
        status.disruptedPods = { ...status.disruptedPods, [name]: timestamp(ctx.now()) };
        cur.status = status;
        return cur;
      };
      await commitWrite(
        ctx,
        PDBS,
        objectKey(PDBS, namespace, pdb.metadata!.name!),
        spendDisruption,
        dryRun,
        (json) => json,
        writeRecordOf(r),
      );
    }
  }
  const evict: Mutate = (cur) => {
    if (!cur) throw notFound({ group: '', resource: 'pods' }, name);
    const plan = planDelete(rt, cur, options, ctx.now());
    return plan.action === 'delete' ? null : plan.obj;
  };
  await commitWrite(ctx, rt, podKey, evict, dryRun, (json) => json, writeRecordOf(r));
  return { status: 201, json: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }) };
}
