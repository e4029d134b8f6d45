// Pod faults: kill (a container dies; kubelet-sim restarts it per
// restartPolicy) or delete, one Pod by pod/NS/NAME or those a label
// selector matches, chosen with Chaos Mesh's modes (cli/chaos/select-pods.ts)
// from the Pods listed with the admin's kubeconfig. They act once.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../shared/api/resources.ts';
import type { ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import { selectPods, SelectionError } from '../chaos/select-pods.ts';
import { podObject } from './chaos-record.ts';
import { adminClient, ask, kubeletSim, type FaultContext } from './context.ts';
import { BadRequest } from './validate.ts';

const pods = findResource('', 'v1', 'pods')!;

interface PodKey {
  namespace: string;
  name: string;
}

/** The Pods the request names or selects. */
async function chosen(ctx: FaultContext, req: ChaosRequest): Promise<PodKey[]> {
  if (req.target) {
    const [, namespace, name] = req.target.split('/');
    return [{ namespace, name }];
  }
  const p = req.pods ?? {};
  const namespace = p.allNamespaces ? undefined : (p.namespace ?? 'default');
  const list = await adminClient(ctx).list<Pod>(pods, { namespace, labelSelector: p.labelSelector || undefined });
  const candidates = list.items
    .filter((pod) => !pod.metadata?.deletionTimestamp && (req.action === 'delete-pod' || pod.status?.phase === 'Running'))
    .map((pod) => ({ namespace: pod.metadata!.namespace!, name: pod.metadata!.name! }))
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  const seed = req.seed ?? Math.floor(Math.random() * 2 ** 31);
  try {
    return selectPods(candidates, p.mode ?? 'one', p.value, seed);
  } catch (err) {
    if (err instanceof SelectionError) throw new BadRequest(`pods: ${err.message}`);
    throw err;
  }
}

/** kill-pod or delete-pod. */
export async function podFault(ctx: FaultContext, req: ChaosRequest): Promise<ChaosResult> {
  const targets = await chosen(ctx, req);
  const container = req.pods?.container;
  const affected: string[] = [];
  const failed: string[] = [];
  for (const { namespace, name } of targets) {
    const key = `${namespace}/${name}`;
    try {
      if (req.action === 'kill-pod') await ask(kubeletSim(ctx), 'pod.kill', { namespace, name, ...(container ? { container } : {}) });
      else await adminClient(ctx).delete(pods, namespace, name);
      affected.push(key);
      const what =
        req.action === 'kill-pod'
          ? `killed ${container ? `container ${container} of ` : 'the containers of '}Pod ${key}`
          : `deleted Pod ${key}`;
      await ctx.recorder.record('ChaosInjected', what, [podObject(namespace, name)], { pod: key });
    } catch (err) {
      if (targets.length === 1) throw err;
      failed.push(`${key}: ${(err as Error).message}`);
    }
  }
  const verb = req.action === 'kill-pod' ? 'killed' : 'deleted';
  const message = `${verb} ${affected.length} Pod${affected.length === 1 ? '' : 's'}: ${affected.join(', ')}${failed.length ? `; failed: ${failed.join('; ')}` : ''}`;
  return { message, affected };
}
