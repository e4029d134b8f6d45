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
  PodStatus,
  ServiceAccountTokenProjection,
} from 'kubernetes-types/core/v1.js';
import type { Clock } from '../../shared/clock/clock.ts';
import { ClusterNet, type NetSource } from './cluster-net.ts';
import { ContainerStdio } from './container-stdio.ts';
import { SimFs, Volume } from './filesystem.ts';
import type { ContainerLog, LogStore } from './log-store.ts';
import { ConfigError, type ConfigSource, MountError, containerEnv, expandRefs, parseQuantity, volumeFiles } from './pod-config.ts';
import type { TokenManager } from './token-manager.ts';
import { buildPodStatus, stamp, type ContainerSnapshot, type PodSnapshot } from './pod-status.ts';
import { ProbeRunner } from './probes.ts';
import { Killed, runProcess, type ExitResult, type ShellContext } from './shell.ts';
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
  onChange(): void;
}

/** Normalizes an image reference as containerd reports it (docker.io/library/nginx:latest). */
export function normalizeImage(image: string): string {
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
  stopping?: 'liveness' | 'startup' | 'delete';
}

/** See the file comment. */
export class PodWorker {
  pod: Pod;
  private readonly key: string;
  private readonly initCtrs: Ctr[];
  private readonly ctrs: Ctr[];
  private sandboxReady = false;
  private podIP?: string;
  private startTime?: number;
  private readonly volumes = new Map<string, Volume>();
  private terminalPhase?: 'Succeeded' | 'Failed';
  private stopped = false;
  private terminating = false;
  private done = false;
  private readonly timers = new Set<() => void>();
  private lastStatus?: PodStatus;

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

  // ---------------------------------------------------------------- timers

  private after(ms: number, fn: () => void): () => void {
    const cancel = this.deps.clock.setTimeout(() => {
      this.timers.delete(cancel);
      if (!this.stopped) fn();
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
    const fieldPath = c ? `spec.${c.init ? 'initContainers' : 'containers'}{${c.spec.name}}` : undefined;
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
    this.sandboxReady = true;
    for (const v of this.pod.spec?.volumes ?? []) {
      const vol = new Volume(v.name, !!(v.configMap || v.secret || v.downwardAPI || v.projected));
      this.volumes.set(v.name, vol);
      try {
        if (!v.emptyDir) vol.replace(volumeFiles(this.pod, v.name, this.deps.config, this.tokenFor) ?? {});
      } catch {
        // A source that disappeared meanwhile, or a token not fetched yet: the next refresh fills it.
      }
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
          c.env = containerEnv(this.pod, c.spec, this.deps.config, { hostname: this.hostname() });
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
    if (pod.metadata?.deletionTimestamp && !this.terminating) this.terminate();
  }

  /** Refreshes ConfigMap/Secret/downward API volume contents (kubelet's periodic volume sync). */
  refreshVolumes(): void {
    for (const [name, vol] of this.volumes) {
      try {
        const files = volumeFiles(this.pod, name, this.deps.config, this.tokenFor);
        if (files && this.pod.spec?.volumes?.find((v) => v.name === name && !v.emptyDir)) vol.replace(files);
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
    };
    const st = buildPodStatus(this.pod, structuredClone(snap), this.lastStatus, now);
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

  /** Stops everything at once (the Pod is gone from the API, or the node powered off). */
  stop(): void {
    if (this.stopped) return;
    for (const c of [...this.initCtrs, ...this.ctrs]) {
      c.probes?.stop();
      c.kill?.(137);
      c.stdio?.end(137);
      c.log.end(this.deps.clock.now());
    }
    this.stopped = true;
    for (const t of this.timers) t();
    this.timers.clear();
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
    const c = this.ctrs.find((x) => x.spec.name === container) ?? this.initCtrs.find((x) => x.spec.name === container);
    if (!c || c.phase !== 'running' || !c.fs || !c.env) return undefined;
    return this.shellContext(c, out, onKillable, err);
  }

  /** The stdio of a running container, for attach; undefined unless it is running. */
  attach(container: string): ContainerStdio | undefined {
    const c = this.ctrs.find((x) => x.spec.name === container) ?? this.initCtrs.find((x) => x.spec.name === container);
    return c && c.phase === 'running' ? c.stdio : undefined;
  }

  /** The names of the Pod's containers, regular ones first. */
  containerNames(): string[] {
    return [...this.ctrs, ...this.initCtrs].map((c) => c.spec.name);
  }

  // ---------------------------------------------------------------- sandbox and volumes

  private sandbox(): void {
    this.podIP = this.pod.spec?.hostNetwork ? this.deps.node.hostIP : this.deps.node.allocateIP(this.key);
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
          vol = new Volume(v.name, !!(v.configMap || v.secret || v.downwardAPI || v.projected));
          this.volumes.set(v.name, vol);
        }
        if (!v.emptyDir) vol.replace(files);
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
    // Still ContainerCreating, as last reported: nothing kubelet would write yet.
    const moved = c.snap.state.waiting?.reason !== 'ContainerCreating';
    c.snap.state = { waiting: { reason: 'ContainerCreating' } };
    if (moved) this.changed();
    const image = c.spec.image ?? '';
    const vars = { image, container: c.spec.name, duration: '', size: String(parseInt(sha(image).slice(0, 6), 16) * 16 + 1_000_000) };
    const runStage = (i: number): void => {
      if (gen !== c.gen || this.terminating) return;
      const stage = CONTAINER_STAGES[i];
      if (!stage) return this.run(c);
      if (stage.name === 'pull') {
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
            if (registryHost(image).endsWith('.invalid') || !image) return this.pullFailed(c);
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
          c.env = containerEnv(this.pod, c.spec, this.deps.config, { hostname: this.hostname() });
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          c.snap.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
          this.ev('Warning', 'Failed', `Error: ${err.message}`, c);
          this.changed();
          c.cancels.push(this.after(this.deps.timings.configRetryMs, () => gen === c.gen && runStage(i)));
          return;
        }
      }
      c.cancels.push(
        this.after(this.deps.timings[stage.delay], () => {
          if (gen !== c.gen) return;
          if (stage.end) this.ev(stage.end.type, stage.end.reason, fill(stage.end.message, vars), c);
          runStage(i + 1);
        }),
      );
    };
    runStage(0);
  }

  private pullFailed(c: Ctr): void {
    const image = c.spec.image ?? '';
    const ref = normalizeImage(image);
    const host = registryHost(image);
    const repo = ref.slice(host.length + 1).replace(/:[^:/]+$/, '');
    const tag = ref.slice(ref.lastIndexOf(':') + 1);
    const err = `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": failed to do request: Head "https://${host}/v2/${repo}/manifests/${tag}": dial tcp: lookup ${host}: no such host`;
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

  private hostname(): string {
    return this.pod.spec?.hostname ?? this.pod.metadata!.name!;
  }

  private buildFs(c: Ctr): SimFs {
    const fs = new SimFs({
      '/etc/hostname': this.hostname() + '\n',
      '/etc/hosts': `# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${this.podIP ?? ''}\t${this.hostname()}\n`,
      '/etc/resolv.conf': `search ${this.pod.metadata!.namespace}.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n`,
    });
    for (const m of c.spec.volumeMounts ?? []) {
      const vol = this.volumes.get(m.name);
      if (vol) fs.mount(m.mountPath, vol, { subPath: m.subPath, readOnly: m.readOnly ?? undefined });
    }
    if (c.spec.workingDir) fs.cwd = c.spec.workingDir;
    return fs;
  }

  private shellContext(
    c: Ctr,
    out: (t: string) => void,
    onKillable: (kill: (code: number) => void) => void,
    err?: (t: string) => void,
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
    return {
      net: this.deps.net ? new ClusterNet(this.deps.net, this.pod.metadata!.namespace!) : undefined,
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
  }

  /** The container's process starts: Running, probes, and its exit. */
  private run(c: Ctr, adopted?: { startedAt: number }): void {
    if (this.terminating || this.stopped) return;
    const now = this.deps.clock.now();
    const gen = c.gen;
    const m = this.pod.metadata!;
    const hasStartup = !!c.spec.startupProbe;
    if (!adopted) {
      c.snap.containerID = `containerd://${sha(`${m.uid}/${c.spec.name}/${c.snap.restartCount}`)}`;
      c.snap.imageID = `${normalizeImage(c.spec.image ?? '').replace(/:[^:/]+$/, '')}@sha256:${sha(c.spec.image ?? '')}`;
      c.snap.image = normalizeImage(c.spec.image ?? '');
      c.snap.state = { running: { startedAt: stamp(now) } };
      c.snap.started = !hasStartup;
      c.snap.ready = !c.init && !c.spec.readinessProbe && !hasStartup;
    }
    c.phase = 'running';
    c.fs = this.buildFs(c);
    const startedAt = adopted?.startedAt ?? now;
    const argv = [...(c.spec.command ?? []), ...(c.spec.args ?? [])].map((a) => expandRefs(a, c.env!));
    const stdio = new ContainerStdio(c.spec, (t) => c.log.write(t, this.deps.clock.now()));
    c.stdio = stdio;
    const ctx = this.shellContext(c, stdio.out, (kill) => (c.kill = kill), stdio.err);
    ctx.stdin = stdio.stdin;
    if (!c.init) {
      c.probes = new ProbeRunner(c.spec, {
        clock: this.deps.clock,
        speed: this.deps.speed,
        podIP: this.podIP ?? '',
        listening: argv.length === 0,
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
        onUnhealthy: (kind, message) => this.ev('Warning', 'Unhealthy', `${kind} probe failed: ${message}`, c),
        onFailed: (kind) => {
          c.stopping = kind === 'Liveness' ? 'liveness' : 'startup';
          this.ev('Normal', 'Killing', `Container ${c.spec.name} failed ${kind.toLowerCase()} probe, will be restarted`, c);
          this.stopContainer(c, this.gracePeriodMs(undefined));
        },
      });
      c.probes.start();
    }
    this.changed();
    const proc: Promise<ExitResult> =
      argv.length === 0
        ? ctx.sleep(Infinity).then(
            () => ({ exitCode: 0 }),
            (e: Killed) => ({ exitCode: e.exitCode }),
          )
        : runProcess(argv, ctx);
    void proc.then((res) => {
      stdio.end(res.exitCode);
      if (c.stdio === stdio) c.stdio = undefined;
      if (gen !== c.gen || this.stopped) return;
      this.exited(c, res.exitCode, !!res.oomKilled, startedAt);
    });
  }

  private exited(c: Ctr, exitCode: number, oom: boolean, startedAt: number): void {
    const now = this.deps.clock.now();
    c.probes?.stop();
    c.probes = undefined;
    c.kill = undefined;
    c.killTimer?.();
    c.killTimer = undefined;
    c.log.end(now);
    const term: ContainerStateTerminated = {
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
        (stopping === 'startup' && policy !== 'Never');
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
    const handlesTerm = (c.spec.command?.length ?? 0) + (c.spec.args?.length ?? 0) === 0;
    // An image's own server exits on SIGTERM; a shell or sleep as PID 1 ignores it and is killed at the deadline.
    if (handlesTerm) c.killTimer = this.after(Math.min(this.deps.timings.stopMs, graceMs), () => kill(0));
    else c.killTimer = this.after(graceMs, () => kill(137));
  }

  private terminate(): void {
    this.terminating = true;
    const graceMs = this.gracePeriodMs(undefined);
    const deadline = this.deps.clock.now() + graceMs;
    for (const c of [...this.initCtrs, ...this.ctrs]) {
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
      const preStop = c.spec.lifecycle?.preStop;
      if (preStop?.exec?.command?.length || preStop?.sleep) {
        const argv = preStop.sleep ? ['sleep', String(preStop.sleep.seconds)] : preStop.exec!.command!;
        const ctx = this.shellContext(
          c,
          () => {},
          () => {},
        );
        let finished = false;
        const limit = this.after(graceMs, () => {
          if (!finished) this.ev('Warning', 'FailedPreStopHook', `PreStopHook failed`, c);
        });
        void runProcess(argv, ctx).then((res) => {
          finished = true;
          limit();
          if (res.exitCode !== 0) this.ev('Warning', 'FailedPreStopHook', `PreStopHook failed`, c);
          this.stopContainer(c, Math.max(0, deadline - this.deps.clock.now()));
        });
      } else this.stopContainer(c, graceMs);
    }
    this.changed();
    this.checkTerminated();
  }

  private checkTerminated(): void {
    if (!this.terminating || this.done) return;
    if ([...this.initCtrs, ...this.ctrs].some((c) => c.phase === 'running')) return;
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
    this.terminalPhase = allOk ? 'Succeeded' : 'Failed';
    this.done = true;
    this.changed();
  }
}

function goBackoff(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${s % 60}s`;
}
