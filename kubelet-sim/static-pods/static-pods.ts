// The control-plane node's kubelet, for its static Pods: once the node is
// registered it creates each component's mirror Pod (as the node, which
// NodeRestriction allows only for mirror Pods), replaces one whose manifest
// hash is stale, confirms the deletion of one being deleted and creates it
// again (a mirror Pod cannot be deleted away, as on kubeadm), and probes the
// real component processes' health endpoints with the manifest's probes,
// writing the Pod status and kubelet's probe events from the results
// (container-track.ts). Probe periods are divided by --speed, with a floor,
// since these are real HTTP requests.
import { randomBytes, createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Container, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { EventRecorder } from '../../shared/events/event-recorder.ts';
import { Informer } from '../../shared/informer/informer.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';
import type { SimNode } from '../node/node-fleet.ts';
import { buildPodStatus, type PodSnapshot } from '../runtime/pod-status.ts';
import type { ComponentEndpoint } from './control-plane.ts';
import {
  containerSnapshot,
  observeProbe,
  probeOf,
  probeRuns,
  startedContainer,
  type ContainerTrack,
  type ProbeKind,
} from './container-track.ts';
import { httpProbe } from './http-probe.ts';
import { mirrorPod, mirrorUpToDate } from './manifests.ts';

const pods = findResource('', 'v1', 'pods')!;
/** Real requests: at high --speed a 1 s readiness period would otherwise be a request every few milliseconds. */
const MIN_PERIOD_MS = 500;
const KINDS: ProbeKind[] = ['Startup', 'Liveness', 'Readiness'];

/** The static Pods' collaborators. */
export interface StaticPodsOptions {
  node: SimNode;
  components: ComponentEndpoint[];
  /** Reads (the process's identity, as the Pod informer of pod-manager.ts). */
  client: KubeClient;
  /** The node's own identity: mirror Pod writes. */
  nodeClient: KubeClient;
  /** The node's own identity: Events. */
  eventClient: KubeClient;
  clock: Clock;
  speed: number;
  /** kubelet's version, which names the images (v1.35.0). */
  version: string;
  log: Logger;
}

/** One component's static Pod. */
interface StaticPod {
  endpoint: ComponentEndpoint;
  want: Pod;
  container: Container;
  track: ContainerTrack;
  startTime: number;
  /** The status last written. */
  sent?: PodStatus;
  creating: boolean;
}

const containerID = () => `containerd://${randomBytes(32).toString('hex')}`;
const imageID = (image: string) => `${image.replace(/:[^:/]+$/, '')}@sha256:${createHash('sha256').update(image).digest('hex')}`;

/** See the file comment. */
export class StaticPods {
  private readonly informer: Informer<Pod>;
  private readonly byName = new Map<string, StaticPod>();
  private readonly recorder: EventRecorder;
  private readonly cancels = new Set<() => void>();
  private stopped = false;

  constructor(private readonly opts: StaticPodsOptions) {
    this.informer = new Informer<Pod>(opts.client, pods, {
      namespace: 'kube-system',
      fieldSelector: `spec.nodeName=${opts.node.name}`,
      log: opts.log,
      clock: opts.clock,
    });
    this.recorder = new EventRecorder(opts.eventClient, { component: 'kubelet', host: opts.node.name, clock: opts.clock, log: opts.log });
  }

  /** Starts once the node is registered (in the background). */
  start(): void {
    void this.run().catch((err) => this.opts.log.error({ err: (err as Error).message }, 'static pods stopped'));
  }

  /** Stops probing and watching. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const c of this.cancels) c();
    this.informer.stop();
    await this.recorder.flush();
  }

  private async run(): Promise<void> {
    const { node, clock } = this.opts;
    while (!this.stopped && !(node.registered && node.uid)) await clock.sleep(100);
    if (this.stopped) return;
    const now = clock.now();
    for (const e of this.opts.components) {
      const want = mirrorPod(e, { name: node.name, uid: node.uid!, hostIP: node.hostIP }, this.opts.version, now);
      const container = want.spec!.containers[0];
      this.byName.set(want.metadata!.name!, {
        endpoint: e,
        want,
        container,
        track: startedContainer(container, containerID(), now),
        startTime: now,
        creating: false,
      });
    }
    this.informer.on({
      add: (p) => this.reconcile(p.metadata?.name ?? ''),
      update: (_o, p) => this.reconcile(p.metadata?.name ?? ''),
      delete: (p) => this.reconcile(p.metadata?.name ?? ''),
    });
    this.informer.start();
    await this.informer.waitForSync();
    for (const [name, sp] of this.byName) {
      this.adopt(sp, this.informer.cache.get(`kube-system/${name}`));
      this.reconcile(name);
      for (const kind of KINDS) this.loop(sp, kind);
    }
    this.opts.log.info({ node: node.name, pods: [...this.byName.keys()] }, 'static pods running');
  }

  /** A mirror Pod already there with the same manifest (this process restarted): its container is taken up where it was. */
  private adopt(sp: StaticPod, cur: Pod | undefined): void {
    const cs = cur?.status?.containerStatuses?.[0];
    if (!cur || !mirrorUpToDate(cur, sp.want) || !cs?.containerID || !cs.state?.running?.startedAt) return;
    sp.track = {
      ...sp.track,
      containerID: cs.containerID,
      startedAt: Date.parse(cs.state.running.startedAt),
      restartCount: cs.restartCount ?? 0,
      started: cs.started ?? false,
      ready: cs.ready,
      ...(cs.lastState?.terminated ? { lastTerminated: cs.lastState.terminated } : {}),
    };
    if (cur.status?.startTime) sp.startTime = Date.parse(cur.status.startTime);
    sp.sent = cur.status;
  }

  /** Makes the mirror Pod of `name` what it should be: there, up to date, with the current status. */
  private reconcile(name: string): void {
    const sp = this.byName.get(name);
    if (!sp || this.stopped || !this.opts.node.online || sp.creating) return;
    sp.creating = true;
    this.ensureMirror(sp)
      .catch((err) => this.opts.log.warn({ pod: name, err: (err as Error).message }, 'mirror pod sync failed'))
      .finally(() => (sp.creating = false));
  }

  private async ensureMirror(sp: StaticPod): Promise<void> {
    const { nodeClient } = this.opts;
    const name = sp.want.metadata!.name!;
    const cur = this.informer.cache.get(`kube-system/${name}`);
    if (cur && (cur.metadata?.deletionTimestamp || !mirrorUpToDate(cur, sp.want))) {
      // kubelet's mirror client: a stale or deleted mirror Pod goes at once, and a new one replaces it.
      await nodeClient
        .delete(pods, 'kube-system', name, { gracePeriodSeconds: 0, preconditions: { uid: cur.metadata?.uid } })
        .catch((err) => {
          if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
        });
      sp.sent = undefined;
      return;
    }
    if (!cur) {
      try {
        await nodeClient.create(pods, 'kube-system', structuredClone(sp.want));
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
      }
      sp.sent = undefined;
      return;
    }
    await this.writeStatus(sp, cur);
  }

  private async writeStatus(sp: StaticPod, cur: Pod): Promise<void> {
    const snap: PodSnapshot = {
      hostIP: this.opts.node.hostIP,
      podIP: this.opts.node.hostIP,
      startTime: sp.startTime,
      sandboxReady: true,
      initContainers: [],
      containers: [containerSnapshot(sp.track, sp.container, imageID(sp.container.image ?? ''))],
    };
    const status = buildPodStatus(cur, snap, cur.status, this.opts.clock.now());
    if (deepEqual(sp.sent, status)) return;
    await this.opts.nodeClient.request('PATCH', KubeClient.path(pods, 'kube-system', cur.metadata!.name, 'status'), {
      body: { status },
      contentType: 'application/merge-patch+json',
      discardBody: true,
    });
    sp.sent = status;
  }

  /** Runs the probe of `kind` every period (divided by --speed), from its initial delay after each container start. */
  private loop(sp: StaticPod, kind: ProbeKind): void {
    const p = probeOf(sp.container, kind);
    if (!p) return;
    const scaled = (s: number) => (s * 1000) / this.opts.speed;
    const period = Math.max(MIN_PERIOD_MS, scaled(p.periodSeconds ?? 10));
    const tick = async () => {
      if (this.stopped) return;
      const now = this.opts.clock.now();
      if (
        this.opts.node.online &&
        probeRuns(sp.track, sp.container, kind) &&
        now - sp.track.startedAt >= scaled(p.initialDelaySeconds ?? 0)
      ) {
        const timeout = Math.max(MIN_PERIOD_MS, scaled(p.timeoutSeconds ?? 1));
        const result = await httpProbe(p.httpGet!, timeout, `kube-probe/${this.opts.version.replace(/^v(\d+\.\d+).*/, '$1')}`);
        if (this.stopped) return;
        const { track, events } = observeProbe(sp.track, sp.container, kind, result, this.opts.clock.now(), containerID);
        sp.track = track;
        const cur = this.informer.cache.get(`kube-system/${sp.want.metadata!.name!}`);
        if (cur)
          for (const ev of events)
            this.recorder.event(
              { ...cur, apiVersion: 'v1', kind: 'Pod' },
              ev.type,
              ev.reason,
              ev.message,
              `spec.containers{${sp.container.name}}`,
            );
        this.reconcile(sp.want.metadata!.name!);
      }
      const cancel = this.opts.clock.setTimeout(() => {
        this.cancels.delete(cancel);
        void tick();
      }, period);
      this.cancels.add(cancel);
    };
    void tick();
  }
}
