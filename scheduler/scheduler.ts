// The scheduler: informers feed the cache (bound Pods, Nodes) and the queue
// (Pending Pods of its profiles); one loop pops a Pod, runs its profile's
// plugins, assumes the decision in the cache and sends the binding without
// waiting for it, so the next Pod is scheduled while the binding is in
// flight. Failures get kube's FailedScheduling event and PodScheduled=False
// condition; every attempt is explained in an annotation and a log line.
// Its writes about a Pod (the binding, PodScheduled=False, preemption's
// deletes) carry a cause: the Pod's key and the resourceVersion scheduled,
// and the decision in a few words.
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import { realClock, type Clock } from '../shared/clock/clock.ts';
import { withCause, type KubeClient, type WriteCause } from '../shared/client/kube-client.ts';
import { itemOf, stepper, type ReconcileItem } from '../shared/controller/stepper.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { keyOf } from '../shared/informer/cache.ts';
import { Informer } from '../shared/informer/informer.ts';
import { matchesLabels, selectorFromLabelSelector, selectorFromSet, type LabelSelector } from '../shared/labels/index.ts';
import { ClusterCache, isTerminal } from './cache.ts';
import type { SchedulerConfig } from './config.ts';
import { fitErrorMessage } from './framework/diagnosis.ts';
import { Profile, type Nominator, type ScheduleResult } from './framework/profile.ts';
import type { ClusterEvent, Plugin } from './framework/types.ts';
import { DECISION_ANNOTATION, decisionOf } from './explain.ts';
import { schedulerMetrics, type SchedulerMetrics } from './metrics.ts';
import { podInfo, type PodInfo } from './pod-info.ts';
import { PLUGINS } from './plugins/registry.ts';
import { ANN } from '../shared/storage/volume-matching.ts';
import type { VolumeHandle } from './plugins/volume-binding.ts';
import { preempt } from './preemption.ts';
import { SchedulingQueue, type QueuedPod } from './queue.ts';

const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const namespaces = findResource('', 'v1', 'namespaces')!;
const services = findResource('', 'v1', 'services')!;
const replicasets = findResource('apps', 'v1', 'replicasets')!;
const statefulsets = findResource('apps', 'v1', 'statefulsets')!;
const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;
const pvs = findResource('', 'v1', 'persistentvolumes')!;
const storageclasses = findResource('storage.k8s.io', 'v1', 'storageclasses')!;

/** What a scheduler is built from. */
export interface SchedulerOptions {
  client: KubeClient;
  config: SchedulerConfig;
  log: Logger;
  clock?: Clock;
  registry?: Registry;
  /** Divides backoff durations. */
  speed?: number;
  /** Bindings in flight at once (default 128). */
  maxInFlightBinds?: number;
  /** Write the decision annotation (default true). */
  annotate?: boolean;
  /** Event source host / identity. */
  identity?: string;
  /** Called after each successful binding (benchmarks measure with it). */
  onBound?: (pod: Pod, node: string) => void;
}

/** What the scheduler does with each of its informers, whatever their kind. */
export interface InformerRun {
  start(): unknown;
  stop(): void;
  hasSynced(): boolean;
  waitForSync(): Promise<void>;
}

const NO_NODES = 'no nodes available to schedule pods';

/** See the file comment. */
export class Scheduler {
  readonly cache = new ClusterCache();
  readonly queue: SchedulingQueue;
  readonly profiles = new Map<string, Profile>();
  readonly informers: InformerRun[] = [];
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly nsInformer: Informer<Namespace>;
  private readonly svcInformer: Informer<Service>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly stsInformer: Informer<StatefulSet>;
  private readonly pvcInformer: Informer<PersistentVolumeClaim>;
  private readonly pvInformer: Informer<PersistentVolume>;
  private readonly scInformer: Informer<StorageClass>;
  private readonly recorder: EventRecorder;
  private readonly metrics?: SchedulerMetrics;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly pluginsByEvent = new Map<ClusterEvent, Set<string>>();
  /** Nominations made here that the informer may not show yet: pod key -> node. */
  private readonly nominations = new Map<string, { node: string; info: PodInfo }>();
  private running = false;
  private loopDone?: Promise<void>;
  private inFlightBinds = 0;
  private readonly bindWaiters: (() => void)[] = [];
  private readonly pendingBinds = new Set<Promise<void>>();
  private readonly maxInFlight: number;

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log;
    this.maxInFlight = opts.maxInFlightBinds ?? 128;
    const client = opts.client;
    const iopts = { log: opts.log, clock: this.clock };
    this.podInformer = new Informer<Pod>(client, pods, { ...iopts, fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
    this.nodeInformer = new Informer<Node>(client, nodes, iopts);
    this.nsInformer = new Informer<Namespace>(client, namespaces, iopts);
    this.svcInformer = new Informer<Service>(client, services, iopts);
    this.rsInformer = new Informer<ReplicaSet>(client, replicasets, iopts);
    this.stsInformer = new Informer<StatefulSet>(client, statefulsets, iopts);
    this.pvcInformer = new Informer<PersistentVolumeClaim>(client, pvcs, iopts);
    this.pvInformer = new Informer<PersistentVolume>(client, pvs, iopts);
    this.scInformer = new Informer<StorageClass>(client, storageclasses, iopts);
    this.informers.push(this.podInformer, this.nodeInformer, this.nsInformer, this.svcInformer, this.rsInformer, this.stsInformer);
    this.informers.push(this.pvcInformer, this.pvInformer, this.scInformer);

    const handle: VolumeHandle = {
      cache: this.cache,
      namespaceLabels: (ns) => this.nsInformer.cache.get(ns)?.metadata?.labels,
      defaultSelectorsFor: (pod) => this.defaultSelectors(pod),
      volumes: {
        claim: (ns, name) => this.pvcInformer.cache.get(`${ns}/${name}`),
        volume: (name) => this.pvInformer.cache.get(name),
        volumes: () => this.pvInformer.cache.list(),
        storageClass: (name) => this.scInformer.cache.get(name),
        selectNode: async (claim, node) => {
          const patch = { metadata: { annotations: { [ANN.selectedNode]: node } } };
          await client.patch(pvcs, claim.metadata!.namespace, claim.metadata!.name!, 'merge', patch);
        },
      },
    };
    const nominator: Nominator = { nominatedOn: (node) => this.nominatedOn(node) };
    for (const pc of opts.config.profiles) {
      const filters: Plugin[] = [];
      const scorers: { plugin: Plugin; weight: number }[] = [];
      for (const choice of pc.plugins) {
        const plugin = PLUGINS[choice.name](handle, choice.args ?? {});
        if (choice.filter && (plugin.filter || plugin.preFilter)) filters.push(plugin);
        if (choice.weight > 0 && plugin.score) scorers.push({ plugin, weight: choice.weight });
        for (const ev of plugin.events ?? []) {
          let set = this.pluginsByEvent.get(ev);
          if (!set) this.pluginsByEvent.set(ev, (set = new Set()));
          set.add(plugin.name);
        }
      }
      const spec = {
        schedulerName: pc.schedulerName,
        filters,
        scorers,
        percentageOfNodesToScore: pc.percentageOfNodesToScore,
        preemption: pc.preemption,
      };
      this.profiles.set(pc.schedulerName, new Profile(spec, this.cache, nominator, (p) => this.priorityOf(p)));
    }
    this.queue = new SchedulingQueue({
      clock: this.clock,
      speed: opts.speed,
      priorityOf: (p) => this.priorityOf(p),
      pluginsFor: (ev) => this.pluginsByEvent.get(ev) ?? new Set(),
    });
    this.recorder = new EventRecorder(client, { component: 'default-scheduler', host: opts.identity, clock: this.clock, log: opts.log });
    if (opts.registry) this.metrics = schedulerMetrics(opts.registry, () => this.queue.sizes());
    this.wireInformers();
  }

  /** Starts the informers (safe to call before leading: the cache warms up). */
  startInformers(): void {
    for (const i of this.informers) i.start();
  }

  /** True once every informer has listed. */
  hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced());
  }

  /** Waits for the caches, then schedules until stop(). */
  async run(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync()));
    if (this.running) return;
    this.running = true;
    stepper.register(STEP_NAME);
    this.queue.run();
    this.log.info({ profiles: [...this.profiles.keys()], nodes: this.cache.nodeList().length }, 'caches synced; scheduling');
    this.loopDone = this.loop();
  }

  /** Stops scheduling and the informers; waits for bindings in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.queue.close();
    // An attempt held at a paused gate must not hold the shutdown.
    stepper.resume(STEP_NAME);
    for (const w of this.bindWaiters.splice(0)) w();
    await this.loopDone;
    await Promise.allSettled([...this.pendingBinds]);
    for (const i of this.informers) i.stop();
    await this.recorder.flush();
  }

  /**
   * The Pod's priority, as kube-scheduler reads it: spec.priority (the
   * apiserver's Priority admission resolves the PriorityClass into it), else 0.
   * The scheduler reads no PriorityClasses, so its RBAC role needs none.
   */
  priorityOf(pod: Pod): number {
    const p = pod.spec?.priority;
    return typeof p === 'number' ? p : 0;
  }

  private responsible(pod: Pod): boolean {
    return this.profiles.has(pod.spec?.schedulerName ?? 'default-scheduler');
  }

  private wireInformers(): void {
    const assigned = (p: Pod) => !!p.spec?.nodeName;
    this.podInformer.on({
      add: (pod) => {
        if (assigned(pod)) {
          this.cache.addOrUpdatePod(pod);
          this.nominations.delete(keyOf(pod));
          this.queue.delete(pod);
          this.queue.moveAllToActiveOrBackoff('AssignedPodAdd');
        } else if (this.responsible(pod) && !pod.metadata!.deletionTimestamp) this.queue.add(pod);
      },
      update: (old, pod) => {
        if (assigned(pod)) {
          if (!assigned(old)) {
            this.queue.delete(pod);
            this.nominations.delete(keyOf(pod));
          }
          this.cache.addOrUpdatePod(pod);
          if (isTerminal(pod)) this.queue.moveAllToActiveOrBackoff('AssignedPodDelete');
          else if (!assigned(old)) this.queue.moveAllToActiveOrBackoff('AssignedPodAdd');
          else if (JSON.stringify(old.metadata?.labels) !== JSON.stringify(pod.metadata?.labels))
            this.queue.moveAllToActiveOrBackoff('AssignedPodUpdate');
        } else if (this.responsible(pod)) {
          if (pod.metadata!.deletionTimestamp) this.queue.delete(pod);
          else if (!this.cache.isAssumed(keyOf(pod))) this.queue.update(pod);
        }
      },
      delete: (pod) => {
        const key = keyOf(pod);
        this.nominations.delete(key);
        const wasPlaced = this.cache.nodeOf(key) !== undefined;
        this.cache.removePod(pod);
        this.queue.delete(pod);
        if (wasPlaced || assigned(pod)) this.queue.moveAllToActiveOrBackoff('AssignedPodDelete');
      },
    });
    this.nodeInformer.on({
      add: (node) => {
        this.cache.addOrUpdateNode(node);
        this.queue.moveAllToActiveOrBackoff('NodeAdd');
      },
      update: (old, node) => {
        this.cache.addOrUpdateNode(node);
        for (const ev of nodeChanges(old, node)) this.queue.moveAllToActiveOrBackoff(ev);
      },
      delete: (node) => {
        this.cache.removeNode(node);
      },
    });
    const volumesChanged = (ev: ClusterEvent) => ({
      add: () => this.queue.moveAllToActiveOrBackoff(ev),
      update: () => this.queue.moveAllToActiveOrBackoff(ev),
    });
    this.pvcInformer.on(volumesChanged('PersistentVolumeClaimChange'));
    this.pvInformer.on(volumesChanged('PersistentVolumeChange'));
    this.scInformer.on(volumesChanged('StorageClassChange'));
    this.nsInformer.on({
      add: (ns) => this.cache.namespaceLabels.set(ns.metadata!.name!, ns.metadata!.labels ?? {}),
      update: (_o, ns) => this.cache.namespaceLabels.set(ns.metadata!.name!, ns.metadata!.labels ?? {}),
      delete: (ns) => this.cache.namespaceLabels.delete(ns.metadata!.name!),
    });
  }

  /** kube's DefaultSelector: the selectors of Services selecting the Pod and of its ReplicaSet or StatefulSet. */
  private defaultSelectors(pod: Pod): LabelSelector[] {
    const ns = pod.metadata?.namespace ?? 'default';
    const labels = pod.metadata?.labels ?? {};
    const out: LabelSelector[] = [];
    for (const svc of this.svcInformer.cache.byIndex('namespace', ns)) {
      const sel = svc.spec?.selector;
      if (sel && Object.keys(sel).length) {
        const s = selectorFromSet(sel);
        if (matchesLabels(s, labels)) out.push(s);
      }
    }
    const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.controller);
    const ownerInformer = owner?.kind === 'ReplicaSet' ? this.rsInformer : owner?.kind === 'StatefulSet' ? this.stsInformer : undefined;
    const obj = owner && ownerInformer?.cache.get(`${ns}/${owner.name}`);
    if (obj?.spec?.selector) {
      try {
        out.push(selectorFromLabelSelector(obj.spec.selector));
      } catch {
        // An invalid selector selects nothing.
      }
    }
    return out;
  }

  private nominatedOn(node: string): PodInfo[] {
    if (this.nominations.size === 0) return [];
    const out: PodInfo[] = [];
    for (const n of this.nominations.values()) if (n.node === node) out.push(n.info);
    return out;
  }

  /** Records that `pod` waits for room on `node` (preemption). */
  nominate(pod: Pod, node: string | undefined): void {
    const key = keyOf(pod);
    if (node) this.nominations.set(key, { node, info: podInfo(pod) });
    else this.nominations.delete(key);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      if (this.inFlightBinds >= this.maxInFlight) await new Promise<void>((r) => this.bindWaiters.push(r));
      const q = await this.queue.pop();
      if (!q || !this.running) return;
      // A paused scheduler holds the attempt here until it is stepped (shared/controller/stepper.ts).
      const rv = q.pod.metadata?.resourceVersion;
      const record = await stepper.admit(STEP_NAME, q.key, rv ? [rv] : []);
      if (!this.running) return stepper.finish(record, { error: 'scheduler stopped' });
      try {
        this.scheduleOne(q, itemOf(record));
        stepper.finish(record);
      } catch (err) {
        this.log.error({ err, pod: q.key }, 'scheduling attempt failed');
        this.queue.requeueAfterFailure(q, new Set(), true);
        stepper.finish(record, { error: (err as Error).message });
      }
      // Let watch events and binding responses in between attempts.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** One scheduling cycle for `q`; what it decided goes to `item`'s notes (the filter and score table of explain.ts). */
  scheduleOne(q: QueuedPod, item?: ReconcileItem): void {
    const pod = q.pod;
    const key = q.key;
    if (pod.metadata?.deletionTimestamp || this.cache.nodeOf(key) !== undefined) {
      item?.note({ skipped: pod.metadata?.deletionTimestamp ? 'the Pod is being deleted' : `already on ${this.cache.nodeOf(key)}` });
      this.queue.done(key);
      return;
    }
    const profile = this.profiles.get(pod.spec?.schedulerName ?? 'default-scheduler');
    if (!profile) {
      item?.note({ skipped: `no profile for schedulerName ${pod.spec?.schedulerName}` });
      this.queue.done(key);
      return;
    }
    const started = this.clock.now();
    const t0 = performance.now();
    const result = profile.schedule(pod);
    if (result.node) {
      this.cache.assume(pod, result.node);
      this.queue.done(key);
      item?.note({ ...decisionOf(profile.name, result, result.node) });
      this.startBind(q, profile, result, started, t0);
      return;
    }
    let postFilterMsg: string | undefined;
    let message: string;
    if (result.numAllNodes === 0) message = NO_NODES;
    else {
      if (profile.spec.preemption) {
        this.metrics?.preemptionAttempts.inc();
        const outcome = withCause(schedulerCause(pod, `preemption (0 of ${result.numAllNodes} feasible)`), () =>
          preempt(this, profile, pod, result, {
            client: this.opts.client,
            recorder: this.recorder,
            log: this.log,
            priorityOf: (p) => this.priorityOf(p),
          }),
        );
        postFilterMsg = outcome.message;
        if (outcome.nominatedNode !== undefined) this.nominate(pod, outcome.nominatedNode || undefined);
        if (outcome.victims) this.metrics?.preemptionVictims.observe(outcome.victims);
        if (outcome.nominatedNode) q.pod = { ...pod, status: { ...pod.status, nominatedNodeName: outcome.nominatedNode } };
      }
      message = fitErrorMessage(result.numAllNodes, result.diagnosis, postFilterMsg);
    }
    this.queue.requeueAfterFailure(q, result.diagnosis.unschedulablePlugins);
    const seconds = (performance.now() - t0) / 1000;
    this.metrics?.attempts.inc({ result: 'unschedulable', profile: profile.name });
    this.metrics?.attemptDuration.observe({ result: 'unschedulable', profile: profile.name }, seconds);
    const decision = decisionOf(profile.name, result, undefined, postFilterMsg);
    item?.note({ ...decision, message });
    this.log.info({ pod: key, profile: profile.name, attempts: q.attempts, decision }, 'unable to schedule pod; waiting');
    this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    const nominated = this.nominations.get(key)?.node;
    void withCause(schedulerCause(pod, `Unschedulable: ${message}`), () => this.reportFailure(pod, 'Unschedulable', message, nominated));
  }

  private startBind(q: QueuedPod, profile: Profile, result: ScheduleResult, started: number, t0: number): void {
    const pod = q.pod;
    const meta = pod.metadata!;
    const node = result.node!;
    const decision = decisionOf(profile.name, result, node);
    const annotations = this.opts.annotate === false ? undefined : { [DECISION_ANNOTATION]: JSON.stringify(decision) };
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        ...(annotations ? { annotations } : {}),
      },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    };
    this.inFlightBinds++;
    const preBinds = profile.plugins().filter((pl) => pl.preBind && !result.state.skipFilter.has(pl.name));
    const score = result.top.find((t) => t.node === node)?.total;
    const why = `${node} (${result.feasible} of ${result.numAllNodes} feasible${score === undefined ? '' : `, score ${Math.round(score)}`})`;
    // The prebind writes (a claim's selected node) and the binding carry the decision.
    const cause = schedulerCause(pod, why);
    const p = withCause(cause, () => Promise.all(preBinds.map((pl) => pl.preBind!(result.state, pod, node))))
      .then(() =>
        withCause(cause, () => this.opts.client.create(pods, meta.namespace, binding, { name: meta.name!, subresource: 'binding' })),
      )
      .then(
        () => {
          const seconds = (performance.now() - t0) / 1000;
          this.metrics?.attempts.inc({ result: 'scheduled', profile: profile.name });
          this.metrics?.attemptDuration.observe({ result: 'scheduled', profile: profile.name }, seconds);
          this.metrics?.e2eDuration.observe({ result: 'scheduled', profile: profile.name }, seconds);
          this.metrics?.podSchedulingDuration.observe(
            { attempts: String(Math.min(q.attempts, 15)) },
            (this.clock.now() - q.initialAttempt) / 1000,
          );
          this.nominations.delete(q.key);
          this.opts.onBound?.(pod, node);
          if (this.log.isLevelEnabled('info'))
            this.log.info(
              { pod: q.key, node, evaluatedNodes: result.evaluated, feasibleNodes: result.feasible, scores: decision.scores },
              'successfully bound pod to node',
            );
          this.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${meta.namespace}/${meta.name} to ${node}`);
        },
        (err: unknown) => {
          this.cache.forget(q.key);
          const code = err instanceof StatusError ? err.code : 0;
          this.metrics?.attempts.inc({ result: 'error', profile: profile.name });
          const reason = (err as Error).message;
          // Gone, or already bound by someone else: the informer will tell the rest.
          if (code === 404 || (code === 409 && /already assigned|being deleted/.test(reason))) return;
          this.log.warn({ pod: q.key, node, err: reason }, 'binding rejected');
          this.queue.requeueAfterFailure(q, new Set(), true);
          const message = `Binding rejected: ${reason}`;
          this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
          void withCause(schedulerCause(pod, `SchedulerError: ${message}`), () =>
            this.reportFailure(pod, 'SchedulerError', message, undefined),
          );
        },
      )
      .finally(() => {
        this.inFlightBinds--;
        this.pendingBinds.delete(p);
        this.bindWaiters.shift()?.();
      });
    this.pendingBinds.add(p);
    void started;
  }

  /**
   * Writes PodScheduled=False (and nominatedNodeName) to pods/status when they
   * changed. The decision of a failed attempt goes to the log only: kube's
   * system:kube-scheduler role may not patch a Pod's metadata, and a bind
   * carries the annotation on the Binding instead.
   */
  private async reportFailure(pod: Pod, reason: string, message: string, nominatedNode: string | undefined): Promise<void> {
    const meta = pod.metadata!;
    const ns = meta.namespace;
    const name = meta.name!;
    const current = (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const nominatedChanged = (nominatedNode ?? '') !== (pod.status?.nominatedNodeName ?? '');
    const conditionChanged = !current || current.status !== 'False' || current.reason !== reason || current.message !== message;
    try {
      if (conditionChanged || nominatedChanged) {
        const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const condition = {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: current?.status === 'False' ? current.lastTransitionTime : now,
          reason,
          message,
        };
        // A strategic merge patch of pods/status: null deletes nominatedNodeName.
        const status: { conditions: (typeof condition)[]; nominatedNodeName?: string | null } = { conditions: [condition] };
        if (nominatedChanged) status.nominatedNodeName = nominatedNode ?? null;
        await this.opts.client.patch(pods, ns, name, 'strategic', { status }, 'status');
      }
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404))
        this.log.warn({ pod: `${ns}/${name}`, err: (err as Error).message }, 'could not update pod status');
    }
  }
}

/** The scheduler's name at the step-through gate (`ksim step pause scheduler`). */
export const STEP_NAME = 'scheduler';

/** The cause of a write the scheduler makes about `pod`: its key, the resourceVersion scheduled, and `detail`. */
function schedulerCause(pod: Pod, detail: string): WriteCause {
  const rv = pod.metadata?.resourceVersion;
  return { controller: 'scheduler', key: keyOf(pod), triggers: rv ? [rv] : undefined, detail };
}

/** Which cluster events a Node update amounts to. */
export function nodeChanges(old: Node, node: Node): ClusterEvent[] {
  const out: ClusterEvent[] = [];
  const j = (v: unknown) => JSON.stringify(v ?? null);
  if (j(old.status?.allocatable) !== j(node.status?.allocatable)) out.push('NodeAllocatable');
  if (j(old.metadata?.labels) !== j(node.metadata?.labels)) out.push('NodeLabel');
  if (j(old.spec?.taints) !== j(node.spec?.taints)) out.push('NodeTaint');
  if (!!old.spec?.unschedulable !== !!node.spec?.unschedulable) out.push('NodeUnschedulable');
  const conds = (n: Node) => j((n.status?.conditions ?? []).map((c) => [c.type, c.status]));
  if (conds(old) !== conds(node)) out.push('NodeCondition');
  return out;
}
