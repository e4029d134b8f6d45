// The chaos contract, in one place: what `ksim chaos` (and an experiment)
// asks the supervisor for over its control endpoint, and what the supervisor
// asks a component for over that child's private IPC channel. The control
// endpoint is a loopback HTTP port whose address and bearer token are in
// DIR/control.json (mode 0600, so only the user who started ksim can reach it).
//
// Supervisor control endpoint (JSON bodies; errors are {message} with 4xx/5xx):
//   GET  /status          -> SupervisorStatus
//   POST /chaos           ChaosRequest -> ChaosResult
//   GET  /faults          -> ActiveFault[] (faults injected and not yet recovered)
//
// The command line (cli/chaos/parse.ts turns it into a ChaosRequest):
//   ksim chaos kill|stop|start|pause|resume|restart COMPONENT   (ComponentTarget below)
//   ksim chaos partition|heal|fail node/NAME
//   ksim chaos pressure node/NAME memory|disk|pid
//   ksim chaos apiserver [--latency 200ms[,50ms]] [--error-rate 0.1 [--error-code 500|429|409|504]]
//                        [--drop-watches] [--watch-delay 2s] [--compact] [--clear]
//                        [--user U] [--user-agent UA] [--verb V] [--resource R]
//   ksim chaos watch COMPONENT --delay 2s | --hold | --drop
//   ksim chaos kill|delete pod/NS/NAME | pods [-n NS | -A] [-l SELECTOR] [--mode M] [--value N] [--container C]
//   ksim chaos skew COMPONENT +30s|-5s
//   ksim chaos recover [FAULT-ID]     ksim chaos list     ksim chaos run FILE.yaml
//   every fault: [--duration 30s] [--seed N] --data-dir DIR
//
// Component ops (ComponentRequest.op), served by shared/chaos/component-control.ts:
//   every component: 'info' -> ComponentInfo; 'clock.skew' {offsetMs} -> {offsetMs}
//   apiserver:       'apiserver.faults.set' ApiserverFaultSpec, 'apiserver.faults.clear' {id?} (none: all),
//                    'apiserver.watches.drop' {match?}, 'apiserver.compact' {}
//   kubelet-sim:     'node.action' {node, action}, 'node.pressure' {node, kind, on},
//                    'pod.kill' {namespace, name, container?}

/** The file in the data dir that says where the supervisor's control endpoint is. */
export const CONTROL_FILE = 'control.json';

export interface ControlFile {
  url: string;
  token: string;
  supervisorPid: number;
}

/** Which requests a fault applies to; every field given must match. */
export interface RequestMatch {
  /** Prefix of the User-Agent header (kubectl's is "kubectl/v1.35..."). */
  userAgent?: string;
  /** Authenticated user name (after impersonation), e.g. system:kube-scheduler. */
  user?: string;
  /** kube verb: get list watch create update patch delete deletecollection. */
  verb?: string;
  /** Resource (plural), e.g. pods; "pods/status" names a subresource. */
  resource?: string;
}

/** What the apiserver is told to do to the requests that match. */
export interface ApiserverFaultSpec {
  /** Several faults can be active at once; 'apiserver.faults.set' with a known id replaces that fault. */
  id: string;
  match?: RequestMatch;
  /** Added before the request is served. */
  latencyMs?: number;
  /** Uniform extra latency in [0, jitterMs). */
  jitterMs?: number;
  /** Fraction (0..1) of matching requests refused with errorCode. */
  errorRate?: number;
  /** 500 (default), 429, 409 or 504, each answered with kube's Status for that code. */
  errorCode?: number;
  /** Every watch event to a matching watcher is sent this much later. */
  watchDelayMs?: number;
  /** Watch events to a matching watcher are held back (not sent) until the fault is cleared: a stale view. */
  watchHold?: boolean;
  /** Matching watches are closed at once (open ones now, new ones as they start) while the fault lasts: the client must relist. */
  watchDrop?: boolean;
  /** Seed of the error-rate and jitter draws. */
  seed?: number;
}

/** Names a component of `ksim up` as `ksim chaos` accepts it. */
export type ComponentTarget =
  | 'apiserver'
  | 'controller-manager'
  | 'scheduler'
  | 'kubelet-sim'
  | `controller-manager-${number}`
  | `scheduler-${number}`
  | `node/${string}`
  | 'leader/controller-manager'
  | 'leader/scheduler';

/** The faults ChaosRequest.action names (every validator checks against this list). */
export const CHAOS_ACTIONS = [
  // processes (SIGKILL, SIGTERM and start, SIGSTOP/SIGCONT, stop+start)
  'kill',
  'stop',
  'start',
  'pause',
  'resume',
  'restart',
  // nodes
  'partition',
  'heal',
  'fail',
  'pressure',
  // the apiserver
  'apiserver',
  // one component's watches
  'watch',
  // pods
  'kill-pod',
  'delete-pod',
  // clocks
  'skew',
  // undo one fault (by id) or every fault
  'recover',
] as const;

export type ChaosAction = (typeof CHAOS_ACTIONS)[number];

/** Chaos Mesh's selection modes for pods. */
export const SELECTION_MODES = ['one', 'all', 'fixed', 'fixed-percent', 'random-max-percent'] as const;

export type SelectionMode = (typeof SELECTION_MODES)[number];

/** One fault, as `ksim chaos` and experiment steps send it. */
export interface ChaosRequest {
  action: ChaosAction;
  /** A ComponentTarget, `node/NAME`, `pod/NS/NAME`; for pods by selector, omitted. */
  target?: string;
  /** After this long the supervisor undoes the fault (ChaosRecovered). Omitted: until recovered or cleared. */
  durationMs?: number;
  /** pressure: which condition. */
  pressure?: 'memory' | 'disk' | 'pid';
  /** apiserver: the fault; watch: delayMs/hold/drop for one component's watches. */
  apiserver?: Omit<ApiserverFaultSpec, 'id'> & { dropWatches?: boolean; compact?: boolean; clear?: boolean };
  watch?: { mode: 'delay' | 'hold' | 'drop'; delayMs?: number };
  /** kill-pod/delete-pod by selector. */
  /** Which Pods a pod fault picks: in `namespace` (default "default") or, with allNamespaces, in every namespace. */
  pods?: { namespace?: string; allNamespaces?: boolean; labelSelector?: string; mode?: SelectionMode; value?: number; container?: string };
  /** skew: the offset, e.g. +30000 or -5000. */
  offsetMs?: number;
  /** recover: the fault to undo; omitted = all. */
  faultId?: string;
  /** Seed for random selections (pods, error draws). */
  seed?: number;
}

/** What was done. */
export interface ChaosResult {
  /** Present when the fault lasts (can be recovered). */
  faultId?: string;
  /** One line for the terminal, e.g. "killed scheduler (pid 1234)". */
  message: string;
  /** The objects or components the fault reached (pod names, pids). */
  affected: string[];
}

/** A fault that is in effect. */
export interface ActiveFault {
  id: string;
  request: ChaosRequest;
  injectedAt: string;
  /** When the supervisor will undo it, if it has a duration. */
  recoversAt?: string;
  message: string;
}

/** A component as `ksim status` shows it. */
export interface ComponentStatus {
  name: string;
  pid: number;
  state: 'starting' | 'running' | 'paused' | 'stopped' | 'exited';
  /** ISO time of the current process's start. */
  startedAt?: string;
  restarts: number;
  endpoint: string;
  /** For leader-elected components: true while it holds its Lease. */
  leader?: boolean;
  exitCode?: number;
  signal?: string;
  /** Clock offset injected with `skew`, when not 0. */
  clockSkewMs?: number;
}

export interface SupervisorStatus {
  supervisorPid: number;
  server: string;
  dataDir: string;
  components: ComponentStatus[];
  faults: ActiveFault[];
}

/** A component's answer to 'info'. */
export interface ComponentInfo {
  pid: number;
  /** Leader-elected components: the Lease and whether this process holds it. */
  leader?: { lease: string; identity: string; leading: boolean };
  clockSkewMs: number;
}

/** Supervisor -> child over IPC. */
export interface ComponentRequest {
  type: 'ksim-control';
  id: number;
  op: string;
  args: Record<string, unknown>;
}

/** Child -> supervisor over IPC. */
export interface ComponentReply {
  type: 'ksim-control-reply';
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}
