// POST pods/<name>/binding: how a scheduler assigns a Pod to a Node. Sets
// spec.nodeName and the PodScheduled=True condition in one write, and refuses
// a Pod that is already assigned or being deleted, as kube's binding REST does.
import type { Binding, PodCondition, PodSpec, PodStatus } from 'kubernetes-types/core/v1.js';
import { badRequest, conflict, notFound } from '../../../shared/api/errors.ts';
import { decodeBody } from '../../http/codec.ts';
import { objectKey } from '../../registry/keys.ts';
import { timestamp } from '../../registry/lifecycle.ts';
import type { Mutate, StoredObject } from '../../storage/types.ts';
import { commitWrite } from '../commit-write.ts';
import { isDryRun } from '../dry-run.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../context.ts';
import { writeRecordOf } from '../write-record.ts';

/** A Pod condition as kube stores it: a zero lastProbeTime is written as null. */
type StoredCondition = Omit<PodCondition, 'lastProbeTime'> & { lastProbeTime?: string | null };

/** A stored Pod: the strategy gave it a spec and a status on create. */
type StoredPod = StoredObject & { spec: PodSpec; status: Omit<PodStatus, 'conditions'> & { conditions?: StoredCondition[] } };

/** Serves a binding. */
export async function handleBinding(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name } = r.info;
  // The client's JSON: read with optional chaining throughout, whatever its shape.
  const binding = decodeBody(await r.body(), r.contentType) as Binding | null | undefined;
  const node = binding?.target?.name;
  if (binding?.metadata?.name && binding.metadata.name !== name) {
    throw badRequest(`the name of the object (${binding.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (!node) throw badRequest('target.name: Required value');
  const gr = { group: '', resource: 'pods' };
  const now = timestamp(ctx.now());
  // dryRun=All runs every check of the binding and stores nothing, as kube's BindingREST.
  const mutate: Mutate = (cur) => {
    if (!cur) throw notFound(gr, name);
    const pod = cur as StoredPod;
    if (pod.metadata.deletionTimestamp) throw conflict(gr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName) throw conflict(gr, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
    const uid = binding?.metadata?.uid;
    if (uid && uid !== pod.metadata.uid)
      throw conflict(gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid}`);
    pod.spec.nodeName = node;
    if (binding?.metadata?.annotations) pod.metadata.annotations = { ...pod.metadata.annotations, ...binding.metadata.annotations };
    const conditions = (pod.status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
    pod.status.conditions = conditions;
    return pod;
  };
  await commitWrite(ctx, rt, objectKey(rt, namespace, name), mutate, isDryRun(r.query), (json) => json, writeRecordOf(r));
  return { status: 201, json: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }) };
}
