// Node lifecycle (kube's node-lifecycle-controller) and taint eviction
// (taint-eviction-controller). A node whose Lease has not been renewed for
// the grace period (50 s, divided by --speed) goes Ready=Unknown, its Pods
// are marked not ready, and it gets the unreachable NoSchedule and
// NoExecute taints (not-ready ones for Ready=False); the taints go when it
// comes back. Pods whose tolerations of a NoExecute taint run out are deleted.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { evictionDelay, lastHeartbeat, NODE_MONITOR_GRACE_MS, readyStatus, reconcileTaints, staleConditions } from './plan.ts';

const nodes = findResource('', 'v1', 'nodes')!;
const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;
const pods = findResource('', 'v1', 'pods')!;

/** Builds the node lifecycle controller. */
export function nodeLifecycleController(ctx: ControllerContext): ControllerParts {
  const name = 'node-lifecycle';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const nodeInformer = ctx.informers.informerFor<Node>(nodes);
  const leaseInformer = ctx.informers.informerFor<Lease>(leases, { namespace: 'kube-node-lease' });
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  podInformer.cache.addIndex('node', (p) => [p.spec?.nodeName ?? '']);
  const grace = NODE_MONITOR_GRACE_MS / ctx.speed;

  nodeInformer.on({ add: (n) => queue.add(keyOf(n)), update: (_o, n) => queue.add(keyOf(n)) });
  leaseInformer.on({ update: (_o, l) => queue.add(l.metadata!.name!), add: (l) => queue.add(l.metadata!.name!) });

  async function markPodsNotReady(nodeName: string, now: number): Promise<void> {
    const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const pod of podInformer.cache.byIndex('node', nodeName)) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const conditions = pod.status!.conditions!.map((c) =>
        c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: stamp } : c,
      );
      try {
        await ctx.client.patch(pods, pod.metadata!.namespace, pod.metadata!.name!, 'strategic', { status: { conditions } }, 'status');
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  }

  async function reconcile(key: string) {
    const node = nodeInformer.cache.get(key);
    if (!node) return;
    const lease = leaseInformer.cache.get(`kube-node-lease/${key}`);
    const now = ctx.clock.now();
    let current = node;
    const conditions = staleConditions(node, lease, now, grace);
    if (conditions) {
      ctx.log.info({ controller: name, node: key }, 'node stopped posting status; marking it Ready=Unknown');
      const next: Node = { ...node, status: { ...node.status, conditions } };
      current = await ctx.client.update<Node>(nodes, next, 'status');
      ctx.events.event(node, 'Normal', 'NodeNotReady', `Node ${key} status is now: NodeNotReady`);
      await markPodsNotReady(key, now);
    }
    const taints = reconcileTaints(current, now);
    if (taints) {
      await ctx.client.patch(nodes, undefined, key, 'merge', { spec: { taints: taints.length ? taints : null } });
    }
    // Look again when the heartbeat would go stale.
    if (readyStatus(current) !== 'Unknown') return { requeueAfterMs: Math.max(lastHeartbeat(current, lease) + grace - now, 0) + 100 };
    return { requeueAfterMs: Math.max(grace / 5, 500) };
  }

  return { name, queue, informers: [nodeInformer, leaseInformer, podInformer], reconcile };
}

/** Builds the taint eviction controller. */
export function taintEvictionController(ctx: ControllerContext): ControllerParts {
  const name = 'taint-eviction-controller';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const nodeInformer = ctx.informers.informerFor<Node>(nodes);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  podInformer.cache.addIndex('node', (p) => [p.spec?.nodeName ?? '']);
  const enqueueNode = (node: Node) => {
    for (const pod of podInformer.cache.byIndex('node', node.metadata!.name!)) queue.add(keyOf(pod));
  };
  nodeInformer.on({
    add: enqueueNode,
    update: (old, node) => JSON.stringify(old.spec?.taints) !== JSON.stringify(node.spec?.taints) && enqueueNode(node),
  });
  podInformer.on({
    add: (p) => p.spec?.nodeName && queue.add(keyOf(p)),
    update: (o, p) => p.spec?.nodeName && o.spec?.nodeName !== p.spec.nodeName && queue.add(keyOf(p)),
  });

  async function reconcile(key: string) {
    const pod = podInformer.cache.get(key);
    if (!pod?.spec?.nodeName || pod.metadata!.deletionTimestamp) return;
    const node = nodeInformer.cache.get(pod.spec.nodeName);
    if (!node) return;
    const delay = evictionDelay(pod, node.spec?.taints ?? [], ctx.clock.now(), ctx.speed);
    if (delay === undefined) return;
    if (delay > 0) return { requeueAfterMs: delay };
    ctx.events.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    try {
      await ctx.client.delete(pods, pod.metadata!.namespace, pod.metadata!.name!);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  return { name, queue, informers: [nodeInformer, podInformer], reconcile };
}
