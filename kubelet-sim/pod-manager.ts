// The Pod side of every simulated node in this process: one shared Pod
// informer (server-side filter spec.nodeName for a single node, spec.nodeName!=
// for many, then a node-name index), ConfigMap and Secret informers for env
// and volumes, one PodWorker per Pod, and a controller (shared work queue and
// runController) that writes each Pod's status when it changed and confirms
// the deletion of a terminated Pod with gracePeriodSeconds=0; like kubelet's
// status manager, it remembers the status it last wrote for each Pod, and its
// periodic sync writes it again when the apiserver's copy drifted from it in
// what kubelet owns (status-reconcile.ts). The informers
// are the process's own (a node may list and watch only its own Pods, and
// reads of what they reference one by one: one watch for thousands of nodes
// is cheaper, and the process's identity is allowed it); every write a node
// makes (Pod status, deletion, Events, TokenRequests for projected
// ServiceAccount tokens) goes as that node (`clientFor`). A Pod's status
// write and deletion carry their cause: the Pod's key and the
// resourceVersion acted on, and the stage written.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type {
  ConfigMap,
  Endpoints,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodStatus,
  Secret,
  Service,
} from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { StatusError } from '../shared/api/errors.ts';
import { findResource } from '../shared/api/resources.ts';
import type { Clock } from '../shared/clock/clock.ts';
import { KubeClient, withCause, type WriteCause } from '../shared/client/kube-client.ts';
import { runController, type RunningController } from '../shared/controller/run-controller.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { Informer } from '../shared/informer/informer.ts';
import { keyOf } from '../shared/informer/cache.ts';
import { deepEqual } from '../shared/util/deep-equal.ts';
import { WorkQueue } from '../shared/workqueue/work-queue.ts';
import type { NodeFleet, SimNode } from './node/node-fleet.ts';
import { NodeVolumes, VolumeStore } from './runtime/filesystem.ts';
import { LogStore } from './runtime/log-store.ts';
import type { ConfigSource } from './runtime/pod-config.ts';
import type { NetSource } from './runtime/cluster-net.ts';
import { PodWorker, type Recorder } from './runtime/pod-worker.ts';
import type { Timings } from './runtime/timings.ts';
import { TokenManager } from './runtime/token-manager.ts';
import { KUBELET_OWNED_CONDITIONS, needsReconcile } from './status-reconcile.ts';

const pods = findResource('', 'v1', 'pods')!;
const configmaps = findResource('', 'v1', 'configmaps')!;
const secrets = findResource('', 'v1', 'secrets')!;
const services = findResource('', 'v1', 'services')!;
const endpoints = findResource('', 'v1', 'endpoints')!;
const serviceaccounts = findResource('', 'v1', 'serviceaccounts')!;
const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;
const pvs = findResource('', 'v1', 'persistentvolumes')!;
/**
 * Status writes in flight at once, as many as the client's connections. When the apiserver is busy, a Pod's
 * key waits in the queue and its changes meanwhile go out as one write, as in kubelet's status manager.
 */
const STATUS_WORKERS = 64;
/** The shortest status sync period, however high --speed: the sync looks at every Pod of the process. */
const MIN_STATUS_SYNC_MS = 100;

/** The pod manager's collaborators. */
export interface PodManagerOptions {
  client: KubeClient;
  /** Writes Events (default: `client`). */
  eventClient?: KubeClient;
  /** The client node `name` writes with (its own identity); default `client`. */
  clientFor?(name: string): KubeClient;
  /** The client node `name` writes Events with; default `eventClient`. */
  eventClientFor?(name: string): KubeClient;
  /** The cluster CA (PEM), for ca.crt in projected volumes until kube-root-ca.crt exists. */
  rootCa?: string;
  clock: Clock;
  timings: Timings;
  speed: number;
  fleet: NodeFleet;
  log: Logger;
  registry?: Registry;
  workers?: number;
  /** Counts status writes and deletions, for metrics. */
  onWrite?(kind: 'status' | 'delete', ok: boolean): void;
}

/** See the file comment. */
export class PodManager {
  readonly logs = new LogStore();
  readonly podInformer: Informer<Pod>;
  private readonly cmInformer: Informer<ConfigMap>;
  private readonly secretInformer: Informer<Secret>;
  private readonly serviceInformer: Informer<Service>;
  private readonly endpointsInformer: Informer<Endpoints>;
  private readonly pvcInformer: Informer<PersistentVolumeClaim>;
  private readonly pvInformer: Informer<PersistentVolume>;
  /** The data of claims and hostPath volumes, which outlives Pods. */
  private readonly volumeStore = new VolumeStore();
  private readonly nodeVolumes = new Map<string, NodeVolumes>();
  private readonly net: NetSource;
  private readonly queue: WorkQueue;
  private readonly workers = new Map<string, PodWorker>();
  /**
   * The status last written for each Pod, the resourceVersion of the Pod it was written over, and the
   * last resourceVersion found to agree with it (not compared again until the Pod changes).
   */
  private readonly sent = new Map<string, { status: PodStatus; over?: string; agreed?: string }>();
  private cancelStatusSync?: () => void;
  private readonly recorders = new Map<string, EventRecorder>();
  private controller?: RunningController;
  private readonly config: ConfigSource;
  private readonly tokens: TokenManager;

  constructor(private readonly opts: PodManagerOptions) {
    const names = [...opts.fleet.nodes.keys()];
    const fieldSelector = names.length === 1 ? `spec.nodeName=${names[0]}` : 'spec.nodeName!=';
    this.podInformer = new Informer<Pod>(opts.client, pods, { fieldSelector, log: opts.log, clock: opts.clock });
    this.podInformer.cache.addIndex('node', (p) => [p.spec?.nodeName ?? '']);
    this.cmInformer = new Informer<ConfigMap>(opts.client, configmaps, { log: opts.log, clock: opts.clock });
    this.secretInformer = new Informer<Secret>(opts.client, secrets, { log: opts.log, clock: opts.clock });
    this.podInformer.cache.addIndex('podIP', (p) => (p.status?.podIP ? [p.status.podIP] : []));
    this.serviceInformer = new Informer<Service>(opts.client, services, { log: opts.log, clock: opts.clock });
    this.serviceInformer.cache.addIndex('clusterIP', (s) => (s.spec?.clusterIP ? [s.spec.clusterIP] : []));
    this.endpointsInformer = new Informer<Endpoints>(opts.client, endpoints, { log: opts.log, clock: opts.clock });
    this.pvcInformer = new Informer<PersistentVolumeClaim>(opts.client, pvcs, { log: opts.log, clock: opts.clock });
    this.pvInformer = new Informer<PersistentVolume>(opts.client, pvs, { log: opts.log, clock: opts.clock });
    this.net = {
      service: (ns, name) => this.serviceInformer.cache.get(`${ns}/${name}`),
      endpoints: (ns, name) => this.endpointsInformer.cache.get(`${ns}/${name}`),
      serviceByIP: (ip) => this.serviceInformer.cache.byIndex('clusterIP', ip)[0],
      podByIP: (ip) => this.podInformer.cache.byIndex('podIP', ip).find((p) => !p.spec?.hostNetwork),
      pod: (ns, name) => this.podInformer.cache.get(`${ns}/${name}`),
    };
    this.queue = new WorkQueue({ clock: opts.clock });
    this.config = {
      configMap: (ns, name) => this.cmInformer.cache.get(`${ns}/${name}`),
      secret: (ns, name) => this.secretInformer.cache.get(`${ns}/${name}`),
      rootCa: () => opts.rootCa,
    };
    this.tokens = new TokenManager(
      (node, ns, sa, body) => this.clientOf(node).request('POST', KubeClient.path(serviceaccounts, ns, sa, 'token'), { body }),
      opts.clock,
    );
  }

  /** The node's view of the volume store. */
  private volumesOf(node: string): NodeVolumes {
    let v = this.nodeVolumes.get(node);
    if (!v) {
      v = new NodeVolumes(this.volumeStore, node, {
        claim: (ns, name) => this.pvcInformer.cache.get(`${ns}/${name}`),
        volume: (name) => this.pvInformer.cache.get(name),
      });
      this.nodeVolumes.set(node, v);
    }
    return v;
  }

  private clientOf(node: string): KubeClient {
    return this.opts.clientFor?.(node) ?? this.opts.client;
  }

  /** Starts the informers and the status writers. */
  async start(): Promise<void> {
    const onConfigChange = (obj: { metadata?: ObjectMeta }) => {
      // kubelet refreshes ConfigMap/Secret volumes on its periodic sync; here, at once.
      for (const p of this.podInformer.cache.byIndex('namespace', obj.metadata?.namespace ?? ''))
        this.workers.get(keyOf(p))?.refreshVolumes();
    };
    this.cmInformer.on({ add: onConfigChange, update: (_o, n) => onConfigChange(n) });
    this.secretInformer.on({ add: onConfigChange, update: (_o, n) => onConfigChange(n) });
    this.pvInformer.on({ delete: (pv) => this.volumeStore.release(pv) });
    const informers = [
      this.cmInformer,
      this.secretInformer,
      this.serviceInformer,
      this.endpointsInformer,
      this.pvcInformer,
      this.pvInformer,
    ];
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    // NetworkPolicies, Namespaces, Ingresses and IngressClasses: the simulated network's policies and ingress-nginx.
    const { startNetworking } = await import('./runtime/network-policy/informers.ts');
    await startNetworking(this.net, this.opts);
    this.podInformer.on({
      add: (p) => this.observe(p),
      update: (_old, p) => this.observe(p),
      delete: (p) => this.forget(keyOf(p), p.metadata?.uid),
    });
    this.podInformer.start();
    this.controller = await runController({
      name: 'pod-status',
      queue: this.queue,
      informers: [this.podInformer],
      reconcile: (key) => this.sync(key),
      workers: this.opts.workers ?? STATUS_WORKERS,
      log: this.opts.log,
      registry: this.opts.registry,
    });
    this.scheduleStatusSync();
  }

  /** kubelet's status manager sync loop (its syncPeriod, scaled by --speed): each period, reconcileStatuses(). */
  private scheduleStatusSync(): void {
    this.cancelStatusSync = this.opts.clock.setTimeout(
      () => {
        this.reconcileStatuses();
        this.scheduleStatusSync();
      },
      Math.max(this.opts.timings.statusSyncMs, MIN_STATUS_SYNC_MS),
    );
  }

  /**
   * kubelet's syncBatch with needsReconcile: a Pod whose status in the apiserver differs, in what kubelet
   * owns, from what this process last wrote for it (another writer set Ready=False, say) is written again.
   * A node that cannot reach the apiserver writes nothing (nodeOnline() catches up), and a Pod whose watch
   * has not yet brought back the last write is not judged on the copy that write replaced.
   */
  private reconcileStatuses(): void {
    for (const [key, w] of this.workers) {
      const last = this.sent.get(key);
      if (!last || !this.opts.fleet.isOnline(w.pod.spec?.nodeName)) continue;
      const api = this.podInformer.cache.get(key);
      const rv = api?.metadata?.resourceVersion;
      if (!api || api.metadata?.uid !== w.pod.metadata?.uid || rv === last.over || rv === last.agreed) continue;
      if (!needsReconcile(api.status, last.status)) {
        last.agreed = rv;
        continue;
      }
      this.opts.log.info({ pod: key }, 'pod status in the apiserver differs from what the kubelet wrote; writing it again');
      this.sent.delete(key);
      this.queue.add(key);
    }
  }

  /** Stops every worker and the controller. */
  async stop(): Promise<void> {
    this.cancelStatusSync?.();
    this.podInformer.stop();
    for (const i of [this.cmInformer, this.secretInformer, this.serviceInformer, this.endpointsInformer]) i.stop();
    for (const w of this.workers.values()) {
      w.stop();
      this.tokens.forgetPod(w.pod.metadata?.uid);
    }
    await this.controller?.stop();
    await Promise.all([...this.recorders.values()].map((r) => r.flush()));
  }

  /** The worker of a Pod, for logs and exec. */
  worker(namespace: string, name: string): PodWorker | undefined {
    return this.workers.get(`${namespace}/${name}`);
  }

  /** Number of Pods with a worker. */
  get podCount(): number {
    return this.workers.size;
  }

  /** Records an Event about the node itself (kubelet's nodeRef: kind Node, its name as uid), unless it cannot reach the apiserver. */
  nodeEvent(node: SimNode, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (!node.online) return;
    this.recorderOf(node).event({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name, uid: node.name } }, type, reason, message);
  }

  private recorderOf(node: SimNode): EventRecorder {
    let r = this.recorders.get(node.name);
    if (!r) {
      r = new EventRecorder(this.opts.eventClientFor?.(node.name) ?? this.opts.eventClient ?? this.opts.client, {
        component: 'kubelet',
        host: node.name,
        clock: this.opts.clock,
        log: this.opts.log,
      });
      this.recorders.set(node.name, r);
    }
    return r;
  }

  private recorder(node: SimNode): Recorder {
    const rec = this.recorderOf(node);
    // A partitioned node cannot reach the apiserver: its events are lost, as kubelet's would be dropped.
    return { event: (obj, type, reason, message, fieldPath) => node.online && rec.event(obj, type, reason, message, fieldPath) };
  }

  private observe(pod: Pod, fresh = false): void {
    const nodeName = pod.spec?.nodeName;
    const node = nodeName ? this.opts.fleet.nodes.get(nodeName) : undefined;
    if (!node || !node.online) return;
    // A mirror Pod is the apiserver's copy of a static Pod, which kubelet runs from its manifest (static-pods/), not from this.
    if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
    const key = keyOf(pod);
    let w = this.workers.get(key);
    if (w && w.pod.metadata?.uid !== pod.metadata?.uid) {
      this.forget(key, w.pod.metadata?.uid);
      w = undefined;
    }
    if (!w) {
      // A Pod that already finished (e.g. after this process restarted) is not run again.
      const phase = pod.status?.phase;
      if ((phase === 'Succeeded' || phase === 'Failed') && !pod.metadata?.deletionTimestamp) return;
      w = new PodWorker(pod, {
        clock: this.opts.clock,
        timings: this.opts.timings,
        speed: this.opts.speed,
        node,
        recorder: this.recorder(node),
        config: this.config,
        logs: this.logs,
        net: this.net,
        services: (ns) => this.serviceInformer.cache.list().filter((s) => s.metadata?.namespace === ns),
        tokens: this.tokens,
        volumes: this.volumesOf(node.name),
        onChange: () => this.queue.add(key),
      });
      this.workers.set(key, w);
      if (pod.metadata?.deletionTimestamp && !pod.status?.containerStatuses?.some((c) => c.state?.running)) {
        // Deleted before it ever ran here: nothing to stop.
        w.update(pod);
      } else {
        // A Pod this node already ran (kubelet-sim restarted) is taken over; a rebooted node starts afresh.
        if (!fresh && pod.status?.hostIP === node.hostIP) w.adopt();
        else w.start();
        w.update(pod);
      }
      this.queue.add(key);
      return;
    }
    w.update(pod);
  }

  private forget(key: string, uid: string | undefined): void {
    const w = this.workers.get(key);
    if (!w || (uid && w.pod.metadata?.uid !== uid)) return;
    w.stop();
    this.tokens.forgetPod(w.pod.metadata?.uid);
    this.workers.delete(key);
    this.sent.delete(key);
    const { namespace, name } = w.pod.metadata as { namespace: string; name: string };
    this.logs.dropPod(namespace, name);
  }

  /** A node came back: take up its Pods again (a rebooted node starts their containers afresh; a kubelet back from the dead catches up). */
  nodeOnline(node: SimNode, rebooted: boolean): void {
    for (const p of this.podInformer.cache.byIndex('node', node.name)) {
      const key = keyOf(p);
      if (rebooted) this.forget(key, undefined);
      else this.workers.get(key)?.thaw();
      this.sent.delete(key);
      this.observe(p, rebooted);
      this.queue.add(key);
    }
  }

  /** A node's kubelet went away or froze: its containers run on, untended. */
  kubeletDown(node: SimNode): void {
    for (const p of this.podInformer.cache.byIndex('node', node.name)) this.workers.get(keyOf(p))?.freeze();
  }

  /** The Pods this process has bound to `node`, with their workers (none: not running here). */
  podsOn(node: string): { pod: Pod; worker?: PodWorker }[] {
    return this.podInformer.cache.byIndex('node', node).map((pod) => ({ pod, worker: this.workers.get(keyOf(pod)) }));
  }

  /** A node powered off: its containers are gone. */
  nodeStopped(node: SimNode): void {
    for (const p of this.podInformer.cache.byIndex('node', node.name)) this.forget(keyOf(p), undefined);
  }

  /** Writes a Pod's status when it changed; confirms the deletion of a terminated Pod. */
  private async sync(key: string): Promise<void> {
    const w = this.workers.get(key);
    if (!w) return;
    const pod = w.pod;
    const node = this.opts.fleet.nodes.get(pod.spec?.nodeName ?? '');
    if (!node?.online) return;
    const status = w.status();
    // Conditions other components own (DisruptionTarget, readiness gates) are kept.
    const own = new Set(status.conditions?.map((c) => c.type));
    const foreign = (pod.status?.conditions ?? []).filter(
      (c) => !KUBELET_OWNED_CONDITIONS.has(c.type) && c.type !== 'PodScheduled' && !own.has(c.type),
    );
    if (foreign.length) status.conditions = [...(status.conditions ?? []), ...foreign];
    const sched = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (sched) status.conditions = status.conditions!.map((c) => (c.type === 'PodScheduled' ? sched : c));
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    const client = this.clientOf(node.name);
    const rv = pod.metadata?.resourceVersion;
    const cause = (detail: string): WriteCause => ({ controller: 'kubelet', key, triggers: rv ? [rv] : undefined, detail });
    try {
      if (!deepEqual(this.sent.get(key)?.status, status)) {
        // The answer (the whole Pod) comes back through the watch anyway: not parsed twice.
        await withCause(cause(stageOf(status)), () =>
          client.request('PATCH', KubeClient.path(pods, namespace, name, 'status'), {
            body: { status },
            contentType: 'application/merge-patch+json',
            discardBody: true,
          }),
        );
        this.opts.onWrite?.('status', true);
        this.sent.set(key, { status, over: pod.metadata?.resourceVersion });
      }
      if (w.terminated() && this.workers.get(key) === w) {
        await withCause(cause('Terminated: deletion confirmed'), () =>
          client.delete(pods, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } }),
        );
        this.opts.onWrite?.('delete', true);
      }
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || (err.code === 409 && w.terminated()))) {
        this.forget(key, pod.metadata?.uid);
        return;
      }
      throw err;
    }
  }
}

/** The conditions a Pod passes through on its way up, furthest first. */
const STAGES = ['Ready', 'ContainersReady', 'Initialized', 'PodReadyToStartContainers'];

/** The stage a status write reports, in a few words: "Running (Ready, 2/2 running)", "Pending (Initialized, 0/1 running)", "Succeeded". */
export function stageOf(status: PodStatus): string {
  const phase = status.phase ?? 'Pending';
  if (phase === 'Succeeded' || phase === 'Failed') return phase;
  const up = new Set((status.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type));
  const parts: string[] = [];
  const furthest = STAGES.find((c) => up.has(c));
  if (furthest) parts.push(furthest);
  const containers = status.containerStatuses ?? [];
  if (containers.length) parts.push(`${containers.filter((c) => c.state?.running).length}/${containers.length} running`);
  return parts.length ? `${phase} (${parts.join(', ')})` : phase;
}
