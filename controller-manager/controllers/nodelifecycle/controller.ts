// Node lifecycle (kube's node-lifecycle-controller) and taint eviction
// (taint-eviction-controller). A node in which this controller has seen no
// heartbeat (a later Lease renewTime, a new Ready lastHeartbeatTime) for the
// grace period (50 s, divided by --speed), timed on its own monotonic clock
// so that a skewed wall clock on either side changes nothing, goes
// Ready=Unknown, its Pods are marked not ready, and it gets the unreachable
// NoSchedule and NoExecute taints (not-ready ones for Ready=False); the taints go when it
// comes back. Pods that do not tolerate a NoExecute taint are deleted at once,
// those that tolerate it for tolerationSeconds when that runs out (cancelled
// if the taint goes first), with kube's events and DisruptionTarget condition.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { monotonicClock, realClock } from '../../../shared/clock/clock.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import {
  disruptionCondition,
  NODE_MONITOR_GRACE_MS,
  noExecuteTaints,
  planEviction,
  planNodeHealth,
  readyStatus,
  reconcileTaints,
  staleAt,
  type EvictionPlan,
  type NodeHealth,
  type ScheduledEviction,
} from './plan.ts';

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
  // Staleness is timed on a clock that a skew does not move (kube's
  // probeTimestamp is a monotonic time.Now() reading); what is written keeps
  // the wall clock. A test's injected clock serves for both.
  const monotonic = ctx.clock === realClock ? monotonicClock : ctx.clock;
  // kube's nodeHealthMap: by node name, when this controller last saw a heartbeat.
  const healths = new Map<string, NodeHealth>();

  nodeInformer.on({ add: (n) => queue.add(keyOf(n)), update: (_o, n) => queue.add(keyOf(n)), delete: (n) => queue.add(keyOf(n)) });
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
    if (!node) {
      healths.delete(key);
      return;
    }
    const lease = leaseInformer.cache.get(`kube-node-lease/${key}`);
    const now = ctx.clock.now();
    const mono = monotonic.now();
    let current = node;
    const plan = planNodeHealth(healths.get(key), node, lease, mono, now, grace);
    let health = plan.health;
    healths.set(key, health);
    if (plan.write) {
      ctx.log.info({ controller: name, node: key }, 'node stopped posting status; marking it Ready=Unknown');
      const next: Node = { ...node, status: { ...node.status, conditions: plan.write.conditions } };
      current = await ctx.client.update<Node>(nodes, next, 'status');
      health = plan.write.health;
      healths.set(key, health);
      ctx.events.event(node, 'Normal', 'NodeNotReady', `Node ${key} status is now: NodeNotReady`);
      await markPodsNotReady(key, now);
    }
    const taints = reconcileTaints(current, now);
    if (taints) {
      // The whole list is written: the resourceVersion makes a write from a stale
      // copy a 409 (retried) instead of dropping or reviving someone else's taint.
      const patch = { metadata: { resourceVersion: current.metadata!.resourceVersion }, spec: { taints: taints.length ? taints : null } };
      await ctx.client.patch(nodes, undefined, key, 'merge', patch);
    }
    // Look again when the heartbeat would go stale.
    if (readyStatus(current) !== 'Unknown') return { requeueAfterMs: Math.max(staleAt(health, grace) - mono, 0) + 100 };
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
  const log = ctx.log.child({ controller: name });
  // Each Pod's eviction, by Pod key: kube's TimedWorkerQueue. The countdown
  // lives here, not in the objects: it starts when this controller sees the
  // taint (as kube's does), and a requeue at fireAt plays the timer.
  const evictions = new Map<string, ScheduledEviction>();

  const enqueueNode = (node: Node) => {
    for (const pod of podInformer.cache.byIndex('node', node.metadata!.name!)) queue.add(keyOf(pod));
  };
  const sameNoExecute = (a: Node, b: Node) => deepEqual(noExecuteTaints(a.spec?.taints), noExecuteTaints(b.spec?.taints));
  nodeInformer.on({
    add: enqueueNode,
    update: (old, node) => !sameNoExecute(old, node) && enqueueNode(node),
  });
  podInformer.on({
    add: (p) => p.spec?.nodeName && queue.add(keyOf(p)),
    update: (o, p) => {
      if (o.spec?.nodeName !== p.spec?.nodeName || !deepEqual(o.spec?.tolerations ?? [], p.spec?.tolerations ?? [])) queue.add(keyOf(p));
    },
    delete: (p) => queue.add(keyOf(p)),
  });

  const podRef = (key: string) => {
    const [namespace, podName] = key.split('/');
    return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name: podName } };
  };

  /** kube's addConditionAndDeletePod: the DisruptionTarget condition on a fresh read, then the delete. */
  async function evict(key: string, now: number): Promise<void> {
    ctx.events.event(podRef(key), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const [namespace, podName] = key.split('/');
    try {
      const pod = await ctx.client.get<Pod>(pods, namespace, podName);
      const condition = disruptionCondition(pod, now);
      if (condition) {
        const patch = { metadata: { uid: pod.metadata!.uid }, status: { conditions: [condition] } };
        await ctx.client.patch(pods, namespace, podName, 'strategic', patch, 'status');
      }
      await ctx.client.delete(pods, namespace, podName);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  async function reconcile(key: string) {
    const pod = podInformer.cache.get(key);
    const current = evictions.get(key);
    const node = pod?.spec?.nodeName ? nodeInformer.cache.get(pod.spec.nodeName) : undefined;
    const now = ctx.clock.now();
    let plan: EvictionPlan;
    if (!pod) plan = { next: undefined, cancelled: current !== undefined && !current.done };
    else if (!node) plan = { next: current, cancelled: false };
    else plan = planEviction(pod.spec?.tolerations ?? [], noExecuteTaints(node.spec?.taints), current, now, ctx.speed);
    if (plan.cancelled) ctx.events.event(podRef(key), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
    const next = plan.next;
    if (next) evictions.set(key, next);
    else evictions.delete(key);
    if (!next || next.done) return;
    if (next.fireAt > now) return { requeueAfterMs: next.fireAt - now };
    // A Pod already on its way out is not deleted a second time.
    if (!pod!.metadata!.deletionTimestamp) {
      log.info({ pod: key }, 'deleting pod');
      await evict(key, now);
    }
    evictions.set(key, { ...next, done: true });
  }

  return { name, queue, informers: [nodeInformer, podInformer], reconcile };
}
