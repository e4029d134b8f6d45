// The lifecycle engine of one Pod on one simulated node: sandbox, volumes,
// init containers in order, then containers (the stages of stages.ts), the
// simulated shell running each command, restarts with kube's CrashLoopBackOff,
// image pull failures, config errors, probes, and graceful termination.
// Every delay goes through the injected Clock; the worker never talks to the
// API itself: it calls onChange() and its owner writes status(), records
// events through `recorder`, and deletes the Pod once terminated() is true.
import { createHash } from 'node:crypto';
import type {
  Container,
  ContainerStateTerminated,
  ContainerStatus,
  Pod,
  PodCondition,
  PodStatus,
  Service,
  ServiceAccountTokenProjection,
} from 'kubernetes-types/core/v1.js';
import type { Clock } from '../../shared/clock/clock.ts';
import { ClusterNet, podDnsConfig, resolvConf, type NetSource } from './cluster-net.ts';
import { PROCESS_CATALOG, type ImageCatalog, type ImageInfo } from './images/catalog.ts';
import { PROCESS_NETWORK, type Listener, type SimNetwork } from './images/network.ts';
import { defaultServer, ENTRYPOINT_WRAPPERS, programFor, type ProgramHost } from './images/programs.ts';
import { invalidImageMessage, parseImageRef } from './images/reference.ts';
import { ContainerStdio } from './container-stdio.ts';
import { SimFs, Volume, applyPodFsGroup, podOwnVolume, type NodeVolumes } from './filesystem.ts';
import type { ContainerLog, LogStore } from './log-store.ts';
import { ConfigError, type ConfigSource, MountError, containerEnv, expandRefs, parseQuantity, volumeFiles } from './pod-config.ts';
import type { TokenManager } from './token-manager.ts';
import { buildPodStatus, stamp, type ContainerSnapshot, type PodSnapshot } from './pod-status.ts';
import { ProbeRunner } from './probes.ts';
import { runHook, type HookHost } from './hooks.ts';
import { ReadOnlyRootFs, containerUser, runAsNonRootError, type ContainerUser } from './security-context.ts';
import { serviceEnv } from './service-env.ts';
import { Killed, commandExists, executableNotFound, runProcess, type ExitResult, type ShellContext } from './shell.ts';
import { CONTAINER_STAGES, fill, goDuration } from './stages.ts';
import type { Timings } from './timings.ts';

/** Records kubelet Events (the shared EventRecorder, or a fake in tests). */
export interface Recorder {
  event(obj: Pod, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void;
}

/** What a pod worker needs from its node. */
export interface NodeRuntime {
  name: string;
  hostIP: string;
  /** Images already pulled on this node. */
  images: Set<string>;
  allocateIP(podKey: string): string;
  /** Marks an address a Pod already has as used (after a restart); returns it. */
  reserveIP?(podKey: string, ip: string): string;
  releaseIP(podKey: string): void;
}

/** A pod worker's collaborators. */
export interface WorkerDeps {
  clock: Clock;
  timings: Timings;
  /** Divides the seconds a simulated process sleeps (--speed). */
  speed: number;
  node: NodeRuntime;
  recorder: Recorder;
  config: ConfigSource;
  logs: LogStore;
  /** Services, Endpoints and Pods for the simulated cluster network (nslookup, wget, curl). */
  net?: NetSource;
  /** ServiceAccount tokens for projected volumes (TokenRequests made as the node); none: such volumes fail to mount. */
  tokens?: TokenManager;
  /** The node's persistent data (claims, hostPath); none: such volumes are empty per Pod. */
  volumes?: NodeVolumes;
  /** The images the registries hold (default: this process's catalog). */
  catalog?: ImageCatalog;
  /** Where container processes listen (default: this process's network). */
  network?: SimNetwork;
  /** The Services of a namespace, for the Service environment variables (none: only the kubernetes Service's). */
  services?(namespace: string): Service[];
  /** kube-proxy's and CoreDNS's random choices (injectable for tests). */
  random?: () => number;
  onChange(): void;
}

/** Normalizes an image reference as containerd reports it (docker.io/library/nginx:latest). */
export function normalizeImage(image: string): string {
  const parsed = parseImageRef(image);
  if ('ref' in parsed) return parsed.ref.full;
  let ref = image;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  if (slash < 0) ref = `docker.io/library/${ref}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') ref = `docker.io/${ref}`;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !lastPart.includes('@')) ref += ':latest';
  return ref;
}

/** The registry host of an image reference. */
export function registryHost(image: string): string {
  return normalizeImage(image).split('/')[0];
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type Phase = 'waiting' | 'creating' | 'running' | 'exited' | 'backoff';

interface Ctr {
  spec: Container;
  init: boolean;
  /** An ephemeral container (kubectl debug): run once, never restarted, outside the Pod's phase and readiness. */
  eph?: boolean;
  snap: ContainerSnapshot;
  phase: Phase;
  /** Bumped on every run and every cancellation: stale timers compare it. */
  gen: number;
  cancels: (() => void)[];
  kill?: (exitCode: number) => void;
  killTimer?: () => void;
  backoffMs: number;
  pullBackoffMs: number;
  fs?: SimFs;
  env?: Map<string, string>;
  log: ContainerLog;
  /** The running process's stdio, for attach. */
  stdio?: ContainerStdio;
  probes?: ProbeRunner;
  /** Why the current run is being stopped (for restart decisions). */
  stopping?: 'liveness' | 'startup' | 'delete' | 'changed' | 'postStart';
  /** The exit code the running process gives on SIGTERM; undefined: PID 1 ignores it (a shell, sleep, node). */
  termExit?: number;
  /** The main process's signal handler (a shell's trap), when it has one. */
  onSignal?: (signal: string) => void;
}

/** See the file comment. */
export class PodWorker {
  pod: Pod;
  private readonly key: string;
  private readonly initCtrs: Ctr[];
  private readonly ctrs: Ctr[];
  private readonly ephCtrs: Ctr[] = [];
  private sandboxReady = false;
  private podIP?: string;
  private startTime?: number;
  private readonly volumes = new Map<string, Volume>();
  private terminalPhase?: 'Succeeded' | 'Failed';
  private stopped = false;
  private terminating = false;
  private done = false;
  /** An evicted Pod was deleted too: once its containers stopped, the deletion is confirmed. */
  private deleteRequested = false;
  private readonly timers = new Set<() => void>();
  private lastStatus?: PodStatus;
  /** The node's kubelet is down or frozen (chaos): its timers wait here and run when it is back. */
  private frozen = false;
  private deferred: (() => void)[] = [];
  /** Set by the eviction manager: the Pod failed with this reason and message and never runs again. */
  private evicted?: { reason: string; message: string; condition: PodCondition };

  constructor(
    pod: Pod,
    private readonly deps: WorkerDeps,
  ) {
    this.pod = pod;
    this.lastStatus = pod.status;
    this.key = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
    const hasInit = (pod.spec?.initContainers?.length ?? 0) > 0;
    const mk = (c: Container, init: boolean): Ctr => ({
      spec: c,
      init,
      phase: 'waiting',
      gen: 0,
      cancels: [],
      backoffMs: 0,
      pullBackoffMs: 0,
      log: deps.logs.for(pod.metadata!.namespace!, pod.metadata!.name!, c.name),
      snap: {
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        containerID: '',
        state: { waiting: { reason: hasInit ? 'PodInitializing' : 'ContainerCreating' } },
        lastState: {},
        ready: false,
        started: false,
        restartCount: 0,
      },
    });
    this.initCtrs = (pod.spec?.initContainers ?? []).map((c) => mk(c, true));
    this.ctrs = (pod.spec?.containers ?? []).map((c) => mk(c, false));
  }

  private get catalog(): ImageCatalog {
    return this.deps.catalog ?? PROCESS_CATALOG;
  }

  private get network(): SimNetwork {
    return this.deps.network ?? PROCESS_NETWORK;
  }

  /** The catalog's entry for a container's image, and its tag. */
  private imageOf(c: Ctr): { info?: ImageInfo; tag: string } {
    const parsed = parseImageRef(c.spec.image ?? '');
    if (!('ref' in parsed)) return { tag: 'latest' };
    return { info: this.catalog.info(parsed.ref.repository), tag: parsed.ref.tag ?? 'latest' };
  }

  // ---------------------------------------------------------------- timers

  private after(ms: number, fn: () => void): () => void {
    const cancel = this.deps.clock.setTimeout(() => {
      this.timers.delete(cancel);
      if (this.stopped) return;
      if (this.frozen) this.deferred.push(fn);
      else fn();
    }, ms);
    this.timers.add(cancel);
    return () => {
      cancel();
      this.timers.delete(cancel);
    };
  }

  private changed(): void {
    if (!this.stopped) this.deps.onChange();
  }

  private ev(type: 'Normal' | 'Warning', reason: string, message: string, c?: Ctr): void {
    const fieldPath = c ? `spec.${c.eph ? 'ephemeralContainers' : c.init ? 'initContainers' : 'containers'}{${c.spec.name}}` : undefined;
    this.deps.recorder.event(this.pod, type, reason, message, fieldPath);
  }

  // ---------------------------------------------------------------- public

  /** Starts the Pod: sandbox, then volumes, then containers. */
  start(): void {
    this.startTime = this.deps.clock.now();
    this.changed();
    this.after(this.deps.timings.sandboxMs, () => this.sandbox());
  }

  /**
   * Takes over a Pod this node already runs (kubelet-sim restarted): its IP,
   * start time, container IDs, restart counts and readiness stay as the API
   * has them, running containers keep running (their processes start again
   * from the top, silently: the simulated runtime has no memory), and the
   * rest goes on from where the status says. Falls back to start() when the
   * status says nothing was started yet.
   */
  adopt(): void {
    const st = this.pod.status;
    const running = (st?.containerStatuses ?? []).some((c) => c.state?.running || c.lastState?.terminated || c.state?.terminated);
    if (!st?.podIP || !running || !this.deps.node.reserveIP) return this.start();
    this.startTime = st.startTime ? Date.parse(st.startTime) : this.deps.clock.now();
    this.podIP = this.pod.spec?.hostNetwork ? this.deps.node.hostIP : this.deps.node.reserveIP(this.key, st.podIP);
    if (!this.pod.spec?.hostNetwork) this.network.addPod(this.podIP);
    this.sandboxReady = true;
    for (const v of this.pod.spec?.volumes ?? []) {
      const shared = this.deps.volumes?.resolve(this.pod, v);
      const vol = shared && 'volume' in shared ? shared.volume : podOwnVolume(v);
      this.volumes.set(v.name, vol);
      try {
        if (!v.emptyDir) vol.replace(volumeFiles(this.pod, v.name, this.deps.config, this.tokenFor) ?? {});
      } catch {
        // A source that disappeared meanwhile, or a token not fetched yet: the next refresh fills it.
      }
      applyPodFsGroup(this.pod, v, vol);
    }
    const tokens = this.deps.tokens;
    if (tokens && !tokens.ready(this.pod))
      tokens
        .fetchAll(this.pod, () => this.refreshVolumes())
        .then(
          () => !this.stopped && this.refreshVolumes(),
          () => {},
        );
    const restore = (c: Ctr, s: ContainerStatus | undefined) => {
      if (!s) return;
      c.snap = {
        name: c.spec.name,
        image: s.image,
        imageID: s.imageID,
        containerID: s.containerID ?? '',
        state: s.state ?? {},
        lastState: s.lastState ?? {},
        ready: s.ready,
        started: s.started ?? false,
        restartCount: s.restartCount,
      };
      if (s.state?.terminated) c.phase = 'exited';
      this.deps.node.images.add(normalizeImage(c.spec.image ?? ''));
    };
    for (const c of this.initCtrs)
      restore(
        c,
        st.initContainerStatuses?.find((x) => x.name === c.spec.name),
      );
    for (const c of this.ctrs)
      restore(
        c,
        st.containerStatuses?.find((x) => x.name === c.spec.name),
      );
    if (this.initCtrs.some((c) => !(c.snap.state.terminated && c.snap.state.terminated.exitCode === 0))) {
      for (const c of this.initCtrs) if (c.phase !== 'exited') c.phase = 'waiting';
      this.nextInit();
      return;
    }
    for (const c of this.ctrs) {
      if (c.snap.state.running) {
        try {
          c.env = this.envOf(c);
        } catch {
          c.env = new Map();
        }
        this.run(c, { startedAt: Date.parse(c.snap.state.running.startedAt ?? '') || this.deps.clock.now() });
      } else if (c.snap.state.waiting?.reason === 'CrashLoopBackOff') {
        // Back-off goes on from the restart count, as kubelet's backoff would after its restart.
        const t = this.deps.timings;
        const wait = Math.min(t.backoffInitialMs * 2 ** Math.max(0, c.snap.restartCount - 1), t.backoffMaxMs);
        c.backoffMs = Math.min(wait * 2, t.backoffMaxMs);
        c.phase = 'backoff';
        const gen = ++c.gen;
        c.cancels.push(
          this.after(wait, () => {
            if (gen !== c.gen || this.terminating) return;
            c.snap.restartCount++;
            c.log.rotate(this.deps.clock.now());
            this.launch(c);
          }),
        );
      } else if (c.phase !== 'exited') this.launch(c);
      else if (c.snap.state.terminated) {
        const policy = this.pod.spec?.restartPolicy ?? 'Always';
        if (policy === 'Always' || (policy === 'OnFailure' && c.snap.state.terminated.exitCode !== 0)) this.scheduleRestart(c, 0);
      }
    }
    this.changed();
  }

  /** The latest Pod from the API: reacts to deletion and to ConfigMap/Secret-backed volume contents. */
  update(pod: Pod): void {
    this.pod = pod;
    if (pod.metadata?.deletionTimestamp && !this.terminating) return this.terminate();
    if (this.evicted && pod.metadata?.deletionTimestamp && !this.done) {
      // An evicted Pod being deleted: its containers are already stopping or gone.
      this.deleteRequested = true;
      return this.checkTerminated();
    }
    if (this.terminating) return;
    this.startEphemeral();
    for (const c of [...this.initCtrs, ...this.ctrs]) {
      const spec = (c.init ? pod.spec?.initContainers : pod.spec?.containers)?.find((x) => x.name === c.spec.name);
      if (spec && spec.image !== c.spec.image) this.definitionChanged(c, spec);
    }
  }

  /** Starts the ephemeral containers the Pod gained (they are only ever added), once the sandbox exists. */
  private startEphemeral(): void {
    if (!this.sandboxReady || this.stopped) return;
    for (const ec of this.pod.spec?.ephemeralContainers ?? []) {
      if (this.ephCtrs.some((c) => c.spec.name === ec.name)) continue;
      const spec = ec as Container;
      const c: Ctr = {
        spec,
        init: false,
        eph: true,
        phase: 'waiting',
        gen: 0,
        cancels: [],
        backoffMs: 0,
        pullBackoffMs: 0,
        log: this.deps.logs.for(this.pod.metadata!.namespace!, this.pod.metadata!.name!, ec.name),
        snap: {
          name: ec.name,
          image: ec.image ?? '',
          imageID: '',
          containerID: '',
          state: { waiting: { reason: 'ContainerCreating' } },
          lastState: {},
          ready: false,
          started: false,
          restartCount: 0,
        },
      };
      this.ephCtrs.push(c);
      this.launch(c);
    }
  }

  /**
   * A container whose image changed (`kubectl set image`): a running one is killed and started again
   * with the new image whatever the restart policy; one waiting (back-off, a failed pull) starts now.
   */
  private definitionChanged(c: Ctr, spec: Container): void {
    c.spec = spec;
    if (c.phase === 'running') {
      if (c.init) return;
      c.stopping = 'changed';
      this.ev('Normal', 'Killing', `Container ${spec.name} definition changed, will be restarted`, c);
      c.probes?.stop();
      this.killContainer(c, this.gracePeriodMs(undefined));
      return;
    }
    if (c.phase === 'backoff' || c.phase === 'creating') {
      for (const x of c.cancels) x();
      c.cancels = [];
      c.backoffMs = 0;
      c.pullBackoffMs = 0;
      if (c.phase === 'backoff') {
        c.snap.lastState = { terminated: c.snap.state.terminated ?? c.snap.lastState.terminated };
        c.snap.restartCount++;
        c.log.rotate(this.deps.clock.now());
      }
      this.launch(c);
    }
  }

  /** Refreshes ConfigMap/Secret/downward API volume contents (kubelet's periodic volume sync). */
  refreshVolumes(): void {
    for (const [name, vol] of this.volumes) {
      try {
        const files = volumeFiles(this.pod, name, this.deps.config, this.tokenFor);
        const v = this.pod.spec?.volumes?.find((x) => x.name === name && !x.emptyDir);
        if (files && v) {
          vol.replace(files);
          applyPodFsGroup(this.pod, v, vol);
        }
      } catch {
        // A source that disappeared keeps its last contents, as kubelet does.
      }
    }
  }

  /** The status kubelet would write now. */
  status(): PodStatus {
    const now = this.deps.clock.now();
    const snap: PodSnapshot = {
      hostIP: this.deps.node.hostIP,
      podIP: this.podIP,
      startTime: this.startTime,
      sandboxReady: this.sandboxReady,
      initContainers: this.initCtrs.map((c) => c.snap),
      containers: this.ctrs.map((c) => c.snap),
      terminalPhase: this.terminalPhase,
      reason: this.evicted?.reason,
      message: this.evicted?.message,
    };
    const st = buildPodStatus(this.pod, structuredClone(snap), this.lastStatus, now);
    if (this.ephCtrs.length) st.ephemeralContainerStatuses = this.ephCtrs.map((c) => ({ ...structuredClone(c.snap), ready: false }));
    if (this.evicted) st.conditions = [...(st.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), this.evicted.condition];
    this.lastStatus = st;
    return st;
  }

  /** True once a deleted Pod's containers have all stopped: its owner confirms the deletion. */
  terminated(): boolean {
    return this.done;
  }

  /** True while the Pod is being deleted. */
  get isTerminating(): boolean {
    return this.terminating;
  }

  /**
   * The node's kubelet went away or froze (chaos): containers keep running, but
   * nothing kubelet does happens (no restarts, probes, hooks, starts) until thaw().
   */
  freeze(): void {
    this.frozen = true;
  }

  /** The kubelet is back: what came due meanwhile happens now, in order. */
  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    const due = this.deferred;
    this.deferred = [];
    for (const fn of due) if (!this.stopped) fn();
    this.changed();
  }

  /**
   * A container's process dies at once (chaos: SIGKILL, exit code 137, reason
   * Error); kubelet then restarts it per the restart policy with its back-off.
   * Returns the container killed, or an error message.
   */
  killProcess(container?: string): { container: string } | { error: string } {
    const c = container ? this.container(container) : this.ctrs.find((x) => x.phase === 'running');
    if (!c) return { error: container ? `container "${container}" not found` : 'no container is running' };
    if (c.phase !== 'running' || !c.kill) return { error: `container "${c.spec.name}" is not running` };
    const kill = c.kill;
    // Dead already: a second kill before the runtime noticed finds nothing to kill.
    c.kill = undefined;
    kill(137);
    return { container: c.spec.name };
  }

  /**
   * kubelet's eviction manager's evictPod: the containers are killed with
   * `graceMs` (1 s for a hard threshold), and the Pod's status becomes Failed
   * with `reason`/`message` and the DisruptionTarget condition; it is not
   * deleted (its owner replaces it) and never runs here again.
   */
  evict(reason: string, message: string, graceMs: number): void {
    if (this.evicted || this.terminating || this.stopped) return;
    const condition: PodCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      lastProbeTime: null as unknown as string,
      lastTransitionTime: stamp(this.deps.clock.now()),
      reason: 'TerminationByKubelet',
      message,
    };
    this.evicted = { reason, message, condition };
    this.ev('Warning', reason, message);
    this.terminateWith(graceMs, (c, ms) => this.stopContainer(c, ms));
  }

  /** True once the eviction manager evicted this Pod. */
  get isEvicted(): boolean {
    return this.evicted !== undefined;
  }

  /** Stops everything at once (the Pod is gone from the API, or the node powered off). */
  stop(): void {
    if (this.stopped) return;
    for (const c of [...this.initCtrs, ...this.ctrs, ...this.ephCtrs]) {
      c.probes?.stop();
      c.kill?.(137);
      c.stdio?.end(137);
      c.log.end(this.deps.clock.now());
    }
    this.stopped = true;
    for (const t of this.timers) t();
    this.timers.clear();
    if (this.podIP && !this.pod.spec?.hostNetwork) this.network.removePod(this.podIP);
    this.deps.node.releaseIP(this.key);
  }

  /**
   * A container's shell, for exec and exec probes; undefined unless it is running.
   * onKillable receives the function that kills the exec'd process (the client left).
   */
  execContext(
    container: string,
    out: (t: string) => void,
    err?: (t: string) => void,
    onKillable: (kill: (code: number) => void) => void = () => {},
  ): ShellContext | undefined {
    const c = this.container(container);
    if (!c || c.phase !== 'running' || !c.fs || !c.env) return undefined;
    return this.shellContext(c, out, onKillable, err);
  }

  /** The stdio of a running container, for attach; undefined unless it is running. */
  attach(container: string): ContainerStdio | undefined {
    const c = this.container(container);
    return c && c.phase === 'running' ? c.stdio : undefined;
  }

  private container(name: string): Ctr | undefined {
    const find = (l: Ctr[]) => l.find((x) => x.spec.name === name);
    return find(this.ctrs) ?? find(this.initCtrs) ?? find(this.ephCtrs);
  }

  /** What listens on a port in the Pod's network namespace (where port-forward dials localhost:PORT), if anything. */
  portListener(port: number): Listener | undefined {
    return this.podIP ? this.network.lookup(this.podIP, port) : undefined;
  }

  /** The Pod's IP once its sandbox exists. */
  get ip(): string | undefined {
    return this.podIP;
  }

  /** The names of the Pod's containers, regular ones first, ephemeral ones last. */
  containerNames(): string[] {
    return [...this.ctrs, ...this.initCtrs, ...this.ephCtrs].map((c) => c.spec.name);
  }

  // ---------------------------------------------------------------- sandbox and volumes

  private sandbox(): void {
    this.podIP = this.pod.spec?.hostNetwork ? this.deps.node.hostIP : this.deps.node.allocateIP(this.key);
    if (!this.pod.spec?.hostNetwork) this.network.addPod(this.podIP);
    this.sandboxReady = true;
    // No status write of its own: kubelet creates the sandbox, pulls and starts within one sync of the Pod,
    // so the IP shows in the next status it writes (Running, or the reason the containers wait).
    this.mountVolumes();
  }

  private mountVolumes(): void {
    const tokens = this.deps.tokens;
    if (tokens && !tokens.ready(this.pod)) {
      // kubelet's volume manager asks for the tokens before it mounts; a refusal is a FailedMount and a retry.
      tokens
        .fetchAll(this.pod, () => this.refreshVolumes())
        .then(
          () => !this.stopped && this.mountVolumes(),
          (err: unknown) => {
            if (this.stopped) return;
            const volume = this.pod.spec?.volumes?.find((v) => v.projected?.sources?.some((s) => s.serviceAccountToken))?.name;
            this.ev(
              'Warning',
              'FailedMount',
              `MountVolume.SetUp failed for volume "${volume}" : failed to fetch token: ${(err as Error).message}`,
            );
            this.after(this.deps.timings.configRetryMs, () => this.mountVolumes());
          },
        );
      return;
    }
    try {
      for (const v of this.pod.spec?.volumes ?? []) {
        const files = volumeFiles(this.pod, v.name, this.deps.config, this.tokenFor) ?? {};
        let vol = this.volumes.get(v.name);
        if (!vol) {
          const shared = this.deps.volumes?.resolve(this.pod, v);
          if (shared && 'wait' in shared)
            throw new MountError(`Unable to attach or mount volumes: unmounted volumes=[${v.name}]: ${shared.wait}`);
          vol = shared?.volume ?? podOwnVolume(v);
          this.volumes.set(v.name, vol);
        }
        if (!v.emptyDir) vol.replace(files);
        applyPodFsGroup(this.pod, v, vol);
      }
    } catch (err) {
      if (!(err instanceof MountError)) throw err;
      this.ev('Warning', 'FailedMount', err.message);
      this.after(this.deps.timings.configRetryMs, () => this.mountVolumes());
      return;
    }
    this.nextInit();
  }

  /** The fetched token of a projected source; kubelet mounts no volume without it. */
  private readonly tokenFor = (volume: string, source: ServiceAccountTokenProjection): string => {
    const token = this.deps.tokens?.cached(this.pod, source);
    if (token === undefined)
      throw new MountError(`MountVolume.SetUp failed for volume "${volume}" : failed to fetch token: no token has been issued yet`);
    return token;
  };

  // ---------------------------------------------------------------- init containers, then containers

  private nextInit(): void {
    if (this.terminating) return;
    const next = this.initCtrs.find((c) => !(c.snap.state.terminated && c.snap.state.terminated.exitCode === 0));
    if (next) {
      if (next.phase === 'waiting') this.launch(next);
      return;
    }
    let moved = false;
    for (const c of this.ctrs) {
      if (c.phase === 'waiting') {
        moved ||= c.snap.state.waiting?.reason !== 'ContainerCreating';
        c.snap.state = { waiting: { reason: 'ContainerCreating' } };
        this.launch(c);
      }
    }
    if (moved) this.changed();
  }

  /** Runs the stages of CONTAINER_STAGES for `c`, then its process. */
  private launch(c: Ctr): void {
    if (this.terminating || this.stopped) return;
    const gen = ++c.gen;
    c.phase = 'creating';
    // Still ContainerCreating, as last reported: nothing kubelet would write yet. A pull retried after a
    // failure keeps showing ErrImagePull / ImagePullBackOff meanwhile, as kubelet's status does.
    const reason = c.snap.state.waiting?.reason;
    if (reason !== 'ErrImagePull' && reason !== 'ImagePullBackOff') {
      c.snap.state = { waiting: { reason: 'ContainerCreating' } };
      if (reason !== 'ContainerCreating') this.changed();
    }
    const image = c.spec.image ?? '';
    const vars = { image, container: c.spec.name, duration: '', size: String(parseInt(sha(image).slice(0, 6), 16) * 16 + 1_000_000) };
    const runStage = (i: number): void => {
      if (gen !== c.gen || this.terminating) return;
      const stage = CONTAINER_STAGES[i];
      if (!stage) return this.run(c);
      if (stage.name === 'pull') {
        const parsed = parseImageRef(image);
        if ('error' in parsed) {
          // kubelet refuses the reference before any pull, and tries again only when the Pod changes.
          const msg = invalidImageMessage(image, parsed.error);
          c.snap.state = { waiting: { reason: 'InvalidImageName', message: msg } };
          this.ev('Warning', 'InspectFailed', msg, c);
          this.ev('Warning', 'Failed', 'Error: InvalidImageName', c);
          this.changed();
          return;
        }
        const policy = c.spec.imagePullPolicy ?? (image.endsWith(':latest') || !/:[^/]+$/.test(image) ? 'Always' : 'IfNotPresent');
        const present = this.deps.node.images.has(normalizeImage(image));
        if (policy === 'Never' && !present) {
          const msg = `Container image "${image}" is not present with pull policy of Never`;
          c.snap.state = { waiting: { reason: 'ErrImageNeverPull', message: msg } };
          this.ev('Warning', 'ErrImageNeverPull', msg, c);
          this.changed();
          return;
        }
        if (present && policy !== 'Always' && stage.skipEvent) {
          this.ev(stage.skipEvent.type, stage.skipEvent.reason, fill(stage.skipEvent.message, vars), c);
          return runStage(i + 1);
        }
        if (stage.begin) this.ev(stage.begin.type, stage.begin.reason, fill(stage.begin.message, vars), c);
        const ms = present ? Math.min(this.deps.timings.pullMs, 200) : this.deps.timings.pullMs;
        c.cancels.push(
          this.after(ms, () => {
            if (gen !== c.gen) return;
            const found = this.catalog.lookup(parsed.ref);
            if ('missing' in found) return this.pullFailed(c, found.missing);
            c.pullBackoffMs = 0;
            this.deps.node.images.add(normalizeImage(image));
            if (stage.end) this.ev(stage.end.type, stage.end.reason, fill(stage.end.message, { ...vars, duration: goDuration(ms) }), c);
            runStage(i + 1);
          }),
        );
        return;
      }
      if (stage.name === 'create') {
        // The container's config (env from ConfigMaps and Secrets) is resolved when it is created.
        try {
          c.env = this.envOf(c);
          const refused = runAsNonRootError(this.pod, c.spec, this.imageOf(c).info?.user);
          if (refused) throw new ConfigError(refused);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          c.snap.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
          this.ev('Warning', 'Failed', `Error: ${err.message}`, c);
          this.changed();
          c.cancels.push(this.after(this.deps.timings.configRetryMs, () => gen === c.gen && runStage(i)));
          return;
        }
      }
      // runc cannot exec a command the image lacks: the start fails (StartError) instead of Started.
      const missing = stage.name === 'start' ? this.missingCommand(c) : undefined;
      c.cancels.push(
        this.after(this.deps.timings[stage.delay], () => {
          if (gen !== c.gen) return;
          if (missing) return this.startFailed(c, missing);
          if (stage.end) this.ev(stage.end.type, stage.end.reason, fill(stage.end.message, vars), c);
          runStage(i + 1);
        }),
      );
    };
    runStage(0);
  }

  /** A failed pull, with containerd's error for what is missing: the tag, the repository, or the registry itself. */
  private pullFailed(c: Ctr, missing: 'tag' | 'repository' | 'host'): void {
    const image = c.spec.image ?? '';
    const ref = normalizeImage(image);
    const host = registryHost(image);
    const repo = ref.slice(host.length + 1).replace(/[:@][^:/]+$/, '');
    const tag = ref.slice(Math.max(ref.lastIndexOf(':'), ref.lastIndexOf('@')) + 1);
    const prefix = `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": `;
    const err =
      missing === 'tag'
        ? `${prefix}${ref}: not found`
        : missing === 'repository' && host === 'docker.io'
          ? `${prefix}pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`
          : missing === 'repository'
            ? `${prefix}${ref}: not found`
            : /^(localhost|127\.|\d+\.\d+\.\d+\.\d+)/.test(host)
              ? `${prefix}failed to do request: Head "https://${host}/v2/${repo}/manifests/${tag}": dial tcp ${host.includes(':') ? host : `${host}:443`}: connect: connection refused`
              : `${prefix}failed to do request: Head "https://${host}/v2/${repo}/manifests/${tag}": dial tcp: lookup ${host.split(':')[0]}: no such host`;
    this.ev('Warning', 'Failed', `Failed to pull image "${image}": ${err}`, c);
    this.ev('Warning', 'Failed', 'Error: ErrImagePull', c);
    c.snap.state = { waiting: { reason: 'ErrImagePull', message: err } };
    this.changed();
    const gen = c.gen;
    c.pullBackoffMs = c.pullBackoffMs ? Math.min(c.pullBackoffMs * 2, this.deps.timings.backoffMaxMs) : this.deps.timings.backoffInitialMs;
    const wait = c.pullBackoffMs;
    // kubelet's next sync finds the pull in back-off.
    c.cancels.push(
      this.after(Math.min(this.deps.timings.restartMs, wait / 2), () => {
        if (gen !== c.gen) return;
        const msg = `Back-off pulling image "${image}"`;
        c.snap.state = { waiting: { reason: 'ImagePullBackOff', message: msg } };
        this.ev('Normal', 'BackOff', msg, c);
        this.ev('Warning', 'Failed', 'Error: ImagePullBackOff', c);
        this.changed();
      }),
    );
    c.cancels.push(this.after(wait, () => gen === c.gen && this.launch(c)));
  }

  /** The container's environment, with the Services that exist now (kubelet computes it when it creates the container). */
  private envOf(c: Ctr): Map<string, string> {
    const ns = this.pod.metadata!.namespace!;
    const services = this.deps.services
      ? serviceEnv(
          this.pod,
          this.deps.services(ns),
          this.deps.services('default').find((s) => s.metadata?.name === 'kubernetes'),
        )
      : undefined;
    // busybox's /etc/passwd has root (/root) and no account for other uids: runc then gives HOME=/.
    const home = this.userOf(c).uid === 0 ? '/root' : '/';
    return containerEnv(this.pod, c.spec, this.deps.config, { hostname: this.hostname(), services, home });
  }

  /** Who the container's processes run as. */
  private userOf(c: Ctr): ContainerUser {
    return containerUser(this.pod, c.spec, this.imageOf(c).info?.user);
  }

  private hostname(): string {
    return this.pod.spec?.hostname ?? this.pod.metadata!.name!;
  }

  /** The Pod's resolver, from its dnsPolicy and dnsConfig (the node's resolver is its network's gateway). */
  private dns() {
    return podDnsConfig(this.pod, this.deps.node.hostIP.replace(/\.\d+$/, '.1'));
  }

  /** kubelet's managed /etc/hosts: the Pod's FQDN in its subdomain, then hostAliases. */
  private hostsFile(): string {
    const spec = this.pod.spec;
    const name = this.hostname();
    const fqdn = spec?.subdomain ? `${name}.${spec.subdomain}.${this.pod.metadata!.namespace}.svc.cluster.local\t` : '';
    let out =
      '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n';
    out += `${this.podIP ?? ''}\t${fqdn}${name}\n`;
    if (spec?.hostAliases?.length) {
      out += '\n# Entries added by HostAliases.\n';
      for (const a of spec.hostAliases) out += `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`;
    }
    return out;
  }

  private buildFs(c: Ctr): SimFs {
    const { info } = this.imageOf(c);
    const files = {
      ...(info?.files ?? {}),
      '/etc/hostname': this.hostname() + '\n',
      '/etc/hosts': this.hostsFile(),
      '/etc/resolv.conf': resolvConf(this.dns()),
    };
    const readOnly = !!c.spec.securityContext?.readOnlyRootFilesystem;
    const fs = readOnly ? new ReadOnlyRootFs(files) : new SimFs(files);
    // What the container's processes create belongs to them.
    const user = this.userOf(c);
    fs.owner = { uid: user.uid, gid: user.gid };
    if (info?.workingDir) fs.cwd = info.workingDir;
    for (const m of c.spec.volumeMounts ?? []) {
      const vol = this.volumes.get(m.name);
      if (vol) fs.mount(m.mountPath, vol, { subPath: m.subPath, readOnly: m.readOnly ?? undefined });
    }
    if (c.spec.workingDir) fs.cwd = c.spec.workingDir;
    return fs instanceof ReadOnlyRootFs ? fs.seal() : fs;
  }

  private shellContext(
    c: Ctr,
    out: (t: string) => void,
    onKillable: (kill: (code: number) => void) => void,
    err?: (t: string) => void,
    main = false,
  ): ShellContext {
    const clock = this.deps.clock;
    const sleepers = new Set<(e: Killed) => void>();
    let killedWith: number | undefined;
    // Ends a read of stdin when the process is killed (sleeps have their own list).
    const killSignal = new AbortController();
    onKillable((code) => {
      killedWith = code;
      killSignal.abort(new Killed(code));
      for (const s of [...sleepers]) s(new Killed(code));
    });
    const limit = parseQuantity(c.spec.resources?.limits?.memory);
    const net = this.deps.net
      ? new ClusterNet(this.deps.net, this.pod.metadata!.namespace!, {
          network: this.network,
          dns: this.dns(),
          clientIP: this.podIP,
          random: this.deps.random,
          now: () => clock.now(),
          speed: this.deps.speed,
        })
      : undefined;
    const { info, tag } = this.imageOf(c);
    const ctx: ShellContext = {
      user: this.userOf(c),
      podIP: this.podIP,
      onSignal: main ? (handler) => (c.onSignal = handler) : undefined,
      net,
      programs: (name) => programFor(name, this.programHost(c, ctx, info, tag, main)),
      fs: c.fs!,
      env: new Map(c.env),
      out,
      err,
      signal: killSignal.signal,
      now: () => clock.now(),
      memoryLimit: Number.isFinite(limit) ? limit : undefined,
      sleep: (seconds) =>
        new Promise<void>((resolve, reject) => {
          if (killedWith !== undefined) return reject(new Killed(killedWith));
          let cancel = () => {};
          const onKill = (e: Killed) => {
            cancel();
            sleepers.delete(onKill);
            reject(e);
          };
          sleepers.add(onKill);
          if (Number.isFinite(seconds))
            cancel = clock.setTimeout(
              () => {
                sleepers.delete(onKill);
                resolve();
              },
              (seconds * 1000) / this.deps.speed,
            );
        }),
    };
    return ctx;
  }

  private programHost(c: Ctr, ctx: ShellContext, info: ImageInfo | undefined, tag: string, main: boolean): ProgramHost {
    return {
      ctx,
      network: this.network,
      podIP: this.podIP ?? '',
      hostname: this.hostname(),
      info,
      tag,
      speed: this.deps.speed,
      onTerm: (code) => {
        if (main) c.termExit = code;
      },
    };
  }

  /**
   * What the container runs, as the runtime combines the image's config with
   * the spec: command replaces ENTRYPOINT (and drops CMD), args replace CMD.
   */
  private argvOf(c: Ctr, info: ImageInfo | undefined): string[] {
    const spec = c.spec;
    const argv = spec.command?.length
      ? [...spec.command, ...(spec.args ?? [])]
      : [...(info?.entrypoint ?? []), ...(spec.args ?? info?.cmd ?? [])];
    // The official images' entrypoint scripts hand on to their arguments.
    while (argv.length > 1 && ENTRYPOINT_WRAPPERS.has(argv[0].slice(argv[0].lastIndexOf('/') + 1))) argv.shift();
    return argv.map((a) => expandRefs(a, c.env!));
  }

  /** The listener of the container's Pod on a (possibly named) container port. */
  private listenerOn(c: Ctr, port: number | string) {
    const n = typeof port === 'number' ? port : c.spec.ports?.find((p) => p.name === port)?.containerPort;
    return n === undefined || !this.podIP ? undefined : this.network.lookup(this.podIP, n);
  }

  /** GET port/path of the container's Pod, as kubelet's prober and hook runner do: a status, or undefined when refused. */
  private httpGetter(c: Ctr): ((port: number | string, path: string) => number | undefined) | undefined {
    const { info } = this.imageOf(c);
    // An image outside the catalog is taken to serve what its ports say, as before images had programs.
    if (!info) return !c.spec.command?.length ? () => 200 : undefined;
    return (port, path) => {
      const l = this.listenerOn(c, port);
      if (!l) return undefined;
      const u = new URL(`http://x${path}`);
      return l.http
        ? l.http({
            method: 'GET',
            path: u.pathname,
            query: u.searchParams,
            host: `${this.podIP}:${port}`,
            clientIP: this.deps.node.hostIP,
          }).status
        : undefined;
    };
  }

  /** What a lifecycle handler of `c` reaches: its shell, its Pod's ports, the clock. */
  private hookHost(c: Ctr): HookHost {
    return {
      podIP: this.podIP ?? '',
      exec: (argv, out, err) => runProcess(argv, { ...this.shellContext(c, out, () => {}, err), memoryLimit: undefined }),
      httpGet: (port, path) => (this.httpGetter(c) ?? (() => undefined))(port, path),
      sleep: (seconds) =>
        this.shellContext(
          c,
          () => {},
          () => {},
        ).sleep(seconds),
    };
  }

  private startProbes(c: Ctr): void {
    const { info } = this.imageOf(c);
    c.probes = new ProbeRunner(c.spec, {
      clock: this.deps.clock,
      speed: this.deps.speed,
      podIP: this.podIP ?? '',
      listening: !info && !c.spec.command?.length,
      httpGet: info ? this.httpGetter(c) : undefined,
      tcpOpen: info ? (port) => !!this.listenerOn(c, port) : undefined,
      exec: (cmd, out) => runProcess(cmd, { ...this.shellContext(c, out, () => {}), memoryLimit: undefined }),
      onStarted: () => {
        c.snap.started = true;
        if (!c.spec.readinessProbe) c.snap.ready = true;
        this.changed();
      },
      onReady: (ready) => {
        if (c.snap.ready !== ready) {
          c.snap.ready = ready;
          this.changed();
        }
      },
      onUnhealthy: (kind, message, errored) =>
        this.ev('Warning', 'Unhealthy', `${kind} probe ${errored ? 'errored and resulted in unknown state' : 'failed'}: ${message}`, c),
      onFailed: (kind) => {
        // A kubelet that is down probes nothing and kills nothing.
        if (this.frozen) return;
        c.stopping = kind === 'Liveness' ? 'liveness' : 'startup';
        this.ev('Normal', 'Killing', `Container ${c.spec.name} failed ${kind.toLowerCase()} probe, will be restarted`, c);
        this.killContainer(c, this.gracePeriodMs(undefined));
      },
    });
    c.probes.start();
  }

  /** The container's process starts: its postStart hook, Running, probes, and its exit. */
  private run(c: Ctr, adopted?: { startedAt: number }): void {
    if (this.terminating || this.stopped) return;
    const now = this.deps.clock.now();
    const gen = c.gen;
    const m = this.pod.metadata!;
    const hasStartup = !!c.spec.startupProbe;
    // kubelet's sync that starts the container waits for postStart: until it ends the Pod still shows ContainerCreating.
    const postStart = adopted ? undefined : c.spec.lifecycle?.postStart;
    if (!adopted) {
      c.snap.containerID = `containerd://${sha(`${m.uid}/${c.spec.name}/${c.snap.restartCount}`)}`;
      c.snap.imageID = `${normalizeImage(c.spec.image ?? '').replace(/:[^:/]+$/, '')}@sha256:${sha(c.spec.image ?? '')}`;
      c.snap.image = normalizeImage(c.spec.image ?? '');
      // The runtime reports who the process runs as (kube's SupplementalGroupsPolicy status, on by default).
      c.snap.user = this.userOf(c);
      if (!postStart) c.snap.state = { running: { startedAt: stamp(now) } };
      c.snap.started = !hasStartup && !postStart;
      c.snap.ready = !c.init && !c.spec.readinessProbe && !hasStartup && !postStart;
    }
    c.phase = 'running';
    c.fs = this.buildFs(c);
    const startedAt = adopted?.startedAt ?? now;
    const { info } = this.imageOf(c);
    const argv = this.argvOf(c, info);
    const stdio = new ContainerStdio(c.spec, (t) => c.log.write(t, this.deps.clock.now()));
    c.stdio = stdio;
    c.termExit = undefined;
    const ctx = this.shellContext(c, stdio.out, (kill) => (c.kill = kill), stdio.err, true);
    ctx.stdin = stdio.stdin;
    if (!c.init && !postStart) this.startProbes(c);
    this.changed();
    // An image's default command starts its own server directly; a spec's command goes through the shell.
    const server =
      !c.spec.command?.length && !c.spec.args?.length
        ? defaultServer(this.programHost(c, ctx, info, this.imageOf(c).tag, true))
        : undefined;
    const unknownImage = !info && argv.length === 0;
    const proc: Promise<ExitResult> = unknownImage
      ? ctx.sleep(Infinity).then(
          () => ({ exitCode: 0 }),
          (e: Killed) => ({ exitCode: e.exitCode }),
        )
      : server
        ? server(argv.slice(1), { out: ctx.out, err: ctx.err ?? ctx.out, stdin: ctx.stdin ?? '' }).then(
            (exitCode) => ({ exitCode }),
            (e: unknown) => {
              if (e instanceof Killed) return { exitCode: e.exitCode };
              throw e;
            },
          )
        : runProcess(argv, ctx);
    void proc.then((res) => {
      stdio.end(res.exitCode);
      if (c.stdio === stdio) c.stdio = undefined;
      if (gen !== c.gen || this.stopped) return;
      this.exited(c, res.exitCode, !!res.oomKilled, startedAt);
    });
    if (postStart) void this.postStart(c, gen, startedAt);
  }

  /** containerd's error when the container's command is not in its image, or undefined. */
  private missingCommand(c: Ctr): string | undefined {
    const { info } = this.imageOf(c);
    const argv = this.argvOf(c, info);
    // An image's own server, or an image outside the catalog with no command, always starts.
    if (argv.length === 0 || (!c.spec.command?.length && !c.spec.args?.length && info?.serves)) return undefined;
    if (!info && !c.spec.command?.length) return undefined;
    const saved = c.fs;
    c.fs = this.buildFs(c);
    try {
      const ctx = this.shellContext(
        c,
        () => {},
        () => {},
      );
      return commandExists(argv[0], ctx) ? undefined : executableNotFound(argv[0]);
    } finally {
      c.fs = saved;
    }
  }

  /** The runtime could not start the process: Failed, StartError (exit 128), then the restart policy. */
  private startFailed(c: Ctr, message: string): void {
    const m = this.pod.metadata!;
    c.snap.containerID = `containerd://${sha(`${m.uid}/${c.spec.name}/${c.snap.restartCount}`)}`;
    c.snap.image = normalizeImage(c.spec.image ?? '');
    c.snap.imageID = `${normalizeImage(c.spec.image ?? '').replace(/:[^:/]+$/, '')}@sha256:${sha(c.spec.image ?? '')}`;
    this.ev('Warning', 'Failed', `Error: ${message}`, c);
    this.exited(c, 128, false, this.deps.clock.now(), message);
  }

  /** Runs postStart once the process is up; a failure kills the container (FailedPostStartHook). */
  private async postStart(c: Ctr, gen: number, startedAt: number): Promise<void> {
    const failed = await runHook(this.pod, c.spec, c.spec.lifecycle!.postStart!, this.hookHost(c));
    if (gen !== c.gen || this.stopped || c.phase !== 'running' || this.terminating) return;
    if (failed) {
      this.ev('Warning', 'FailedPostStartHook', failed, c);
      this.ev('Normal', 'Killing', 'FailedPostStartHook', c);
      c.stopping = 'postStart';
      this.killContainer(c, this.gracePeriodMs(undefined));
      return;
    }
    c.snap.state = { running: { startedAt: stamp(startedAt) } };
    c.snap.started = !c.spec.startupProbe;
    c.snap.ready = !c.init && !c.spec.readinessProbe && !c.spec.startupProbe;
    if (!c.init) this.startProbes(c);
    this.changed();
  }

  private exited(c: Ctr, exitCode: number, oom: boolean, startedAt: number, startError?: string): void {
    const now = this.deps.clock.now();
    c.probes?.stop();
    c.probes = undefined;
    c.kill = undefined;
    c.killTimer?.();
    c.killTimer = undefined;
    c.log.end(now);
    const term: ContainerStateTerminated = startError
      ? // A process that never started reports the zero time as its start, as containerd does.
        {
          exitCode,
          reason: 'StartError',
          message: startError,
          startedAt: stamp(0),
          finishedAt: stamp(now),
          containerID: c.snap.containerID,
        }
      : {
          exitCode,
          reason: oom ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error',
          startedAt: stamp(startedAt),
          finishedAt: stamp(now),
          containerID: c.snap.containerID,
        };
    c.snap.state = { terminated: term };
    // kubelet reports a successfully completed init container as ready.
    c.snap.ready = c.init && exitCode === 0;
    c.snap.started = false;
    c.phase = 'exited';
    const stopping = c.stopping;
    c.stopping = undefined;
    if (this.terminating) {
      this.changed();
      this.checkTerminated();
      return;
    }
    // An ephemeral container runs once, whatever the Pod's restart policy.
    if (c.eph) return this.changed();
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    if (c.init) {
      if (exitCode === 0) {
        this.changed();
        this.nextInit();
        return;
      }
      if (policy === 'Never') {
        this.terminalPhase = 'Failed';
        this.changed();
        return;
      }
    } else {
      const restart =
        policy === 'Always' ||
        (policy === 'OnFailure' && exitCode !== 0) ||
        (stopping === 'liveness' && policy !== 'Never') ||
        (stopping === 'startup' && policy !== 'Never') ||
        // A changed definition restarts whatever the policy, with no back-off (kubelet's back-off is keyed by the spec's hash).
        stopping === 'changed';
      if (stopping === 'changed') c.backoffMs = 0;
      if (!restart) {
        this.changed();
        return;
      }
    }
    this.scheduleRestart(c, now - startedAt);
  }

  private scheduleRestart(c: Ctr, ranMs: number): void {
    const t = this.deps.timings;
    if (ranMs >= t.backoffResetMs) c.backoffMs = 0;
    const gen = ++c.gen;
    const restart = () => {
      if (gen !== c.gen || this.terminating) return;
      c.snap.lastState = { terminated: c.snap.state.terminated };
      c.snap.restartCount++;
      c.log.rotate(this.deps.clock.now());
      this.launch(c);
    };
    if (c.backoffMs === 0) {
      // The first restart is immediate (the next sync); back-off starts with the second.
      c.backoffMs = t.backoffInitialMs;
      this.changed();
      c.cancels.push(this.after(t.restartMs, restart));
      return;
    }
    const wait = c.backoffMs;
    c.backoffMs = Math.min(c.backoffMs * 2, t.backoffMaxMs);
    c.phase = 'backoff';
    c.cancels.push(
      this.after(Math.min(t.restartMs, wait), () => {
        if (gen !== c.gen || this.terminating) return;
        const m = this.pod.metadata!;
        c.snap.lastState = { terminated: c.snap.state.terminated };
        c.snap.state = {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${goBackoff(wait * this.deps.speed)} restarting failed container=${c.spec.name} pod=${m.name}_${m.namespace}(${m.uid})`,
          },
        };
        this.ev('Warning', 'BackOff', `Back-off restarting failed container ${c.spec.name} in pod ${m.name}_${m.namespace}(${m.uid})`, c);
        this.changed();
      }),
    );
    c.cancels.push(this.after(wait, restart));
  }

  // ---------------------------------------------------------------- termination

  private gracePeriodMs(override: number | undefined): number {
    const s = override ?? this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
    return (s * 1000) / this.deps.speed;
  }

  /** Stops a running container as kubelet does: SIGTERM, then SIGKILL after the grace period. */
  private stopContainer(c: Ctr, graceMs: number): void {
    if (c.phase !== 'running' || !c.kill) return;
    const kill = c.kill;
    const termExit = c.termExit;
    // A server with a SIGTERM handler (nginx, redis) exits at once; a shell, sleep or node as PID 1 ignores it and is killed at the deadline.
    if (termExit !== undefined) c.killTimer = this.after(Math.min(this.deps.timings.stopMs, graceMs), () => kill(termExit));
    else {
      // A shell with `trap ... TERM` as PID 1 runs its handler now; SIGKILL still comes at the deadline.
      c.onSignal?.('TERM');
      c.killTimer = this.after(graceMs, () => kill(137));
    }
  }

  /**
   * kubelet's killContainer: the preStop hook first (for at most the grace period; a failure is a
   * FailedPreStopHook event, its message withheld as kubelet does so that no secret leaks), then
   * SIGTERM with what is left of the grace period (at least kubelet's minimum of 2 s).
   */
  private killContainer(c: Ctr, graceMs: number): void {
    const preStop = c.spec.lifecycle?.preStop;
    if (!preStop || !(preStop.exec?.command?.length || preStop.httpGet || preStop.sleep)) return this.stopContainer(c, graceMs);
    const started = this.deps.clock.now();
    const gen = c.gen;
    let finished = false;
    const rest = () => {
      if (finished || gen !== c.gen) return;
      finished = true;
      const left = graceMs - (this.deps.clock.now() - started);
      this.stopContainer(c, Math.max(left, 2000 / this.deps.speed));
    };
    this.after(graceMs, rest);
    void runHook(this.pod, c.spec, preStop, this.hookHost(c)).then((failed) => {
      if (failed && !finished) this.ev('Warning', 'FailedPreStopHook', 'PreStopHook failed', c);
      rest();
    });
  }

  private terminate(): void {
    this.terminateWith(this.gracePeriodMs(undefined), (c, ms) => this.killContainer(c, ms));
  }

  /** Ends the Pod: every timer and probe stops, each running container is stopped with `stop` in `graceMs`. */
  private terminateWith(graceMs: number, stop: (c: Ctr, graceMs: number) => void): void {
    this.terminating = true;
    for (const c of [...this.initCtrs, ...this.ctrs, ...this.ephCtrs]) {
      for (const x of c.cancels) x();
      c.cancels = [];
      c.probes?.stop();
      c.probes = undefined;
      if (c.phase !== 'running') {
        c.gen++;
        continue;
      }
      c.stopping = 'delete';
      this.ev('Normal', 'Killing', `Stopping container ${c.spec.name}`, c);
      stop(c, graceMs);
    }
    this.changed();
    this.checkTerminated();
  }

  private checkTerminated(): void {
    if (!this.terminating || this.done) return;
    if ([...this.initCtrs, ...this.ctrs, ...this.ephCtrs].some((c) => c.phase === 'running')) return;
    // Containers that never ran report as terminated with ContainerStatusUnknown, as kubelet does for a deleted Pod.
    for (const c of this.ctrs) {
      if (!c.snap.state.terminated && c.phase !== 'exited') {
        c.snap.state = {
          terminated: {
            exitCode: 137,
            reason: 'ContainerStatusUnknown',
            message: 'The container could not be located when the pod was terminated',
            startedAt: null as unknown as string,
            finishedAt: null as unknown as string,
          },
        };
      }
    }
    const allOk = this.ctrs.every((c) => c.snap.state.terminated?.exitCode === 0);
    // An evicted Pod is Failed whatever its containers said, and stays until someone deletes it.
    this.terminalPhase = this.evicted ? 'Failed' : allOk ? 'Succeeded' : 'Failed';
    if (!this.evicted || this.deleteRequested || this.pod.metadata?.deletionTimestamp) this.done = true;
    this.changed();
  }
}

function goBackoff(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${s % 60}s`;
}
