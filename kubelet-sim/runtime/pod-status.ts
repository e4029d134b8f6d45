// Pod status from the simulated runtime's state, as kubelet's
// generateAPIPodStatus computes it: container statuses, the phase (kubelet's
// getPhase), the five conditions with kube's reasons and messages, and
// lastTransitionTime kept from the previous status while a condition holds.
// Pure: (pod, runtime snapshot, previous status, now) -> status.
import type { ContainerState, ContainerStateTerminated, ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';

/** One container as the runtime sees it. */
export interface ContainerSnapshot {
  name: string;
  image: string;
  imageID: string;
  containerID: string;
  state: ContainerState;
  lastState: { terminated?: ContainerStateTerminated };
  ready: boolean;
  started: boolean;
  restartCount: number;
  /** Who the process runs as, once the runtime created the container (containerStatuses[].user). */
  user?: { uid: number; gid: number; groups: number[] };
}

/** The runtime's view of one Pod. */
export interface PodSnapshot {
  hostIP: string;
  podIP?: string;
  startTime?: number;
  sandboxReady: boolean;
  initContainers: ContainerSnapshot[];
  containers: ContainerSnapshot[];
  /** Set once the Pod can never run again (terminal phase decided by kubelet, e.g. after deletion). */
  terminalPhase?: 'Succeeded' | 'Failed';
  /** A pod-level reason/message, e.g. for a node shutdown; usually unset. */
  reason?: string;
  message?: string;
}

/** RFC 3339 seconds, as kube writes metav1.Time. */
export function stamp(ms: number): string {
  // Every status of every Pod asks for it, many times a second: format each second once.
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastStamp = new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastStamp;
}
let lastSecond = NaN;
let lastStamp = '';

/** kubelet's getPhase. */
export function podPhase(pod: Pod, snap: PodSnapshot): PodStatus['phase'] {
  if (snap.terminalPhase) return snap.terminalPhase;
  const policy = pod.spec?.restartPolicy ?? 'Always';
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of snap.initContainers) {
    if (c.state.terminated) {
      if (c.state.terminated.exitCode !== 0) failedInit++;
    } else if (c.state.waiting && c.lastState.terminated && c.lastState.terminated.exitCode !== 0) failedInit++;
    else pendingInit++;
  }
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of snap.containers) {
    if (c.state.running) running++;
    else if (c.state.terminated) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState.terminated) stopped++;
    else waiting++;
  }
  if (failedInit > 0 && policy === 'Never') return 'Failed';
  if (pendingInit > 0 || failedInit > 0) return 'Pending';
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** ContainerStatus with `user` (kube 1.31+; newer than the kubernetes-types release the project uses). */
type ContainerStatusWithUser = ContainerStatus & {
  user?: { linux?: { uid: number; gid: number; supplementalGroups?: number[] } };
};

function containerStatus(c: ContainerSnapshot): ContainerStatusWithUser {
  const out: ContainerStatusWithUser = {
    name: c.name,
    state: c.state,
    lastState: c.lastState,
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: c.imageID,
    started: c.started,
  };
  if (c.containerID) out.containerID = c.containerID;
  if (c.user) out.user = { linux: { uid: c.user.uid, gid: c.user.gid, supplementalGroups: [...c.user.groups] } };
  return out;
}

function condition(prev: PodStatus | undefined, type: string, ok: boolean, now: number, reason?: string, message?: string): PodCondition {
  const status = ok ? 'True' : 'False';
  const old = prev?.conditions?.find((c) => c.type === type);
  const c: PodCondition = {
    type,
    status,
    lastProbeTime: null as unknown as string,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : stamp(now),
  };
  if (!ok && reason) c.reason = reason;
  if (!ok && message) c.message = message;
  return c;
}

/** The status kubelet would write for `pod`. */
export function buildPodStatus(pod: Pod, snap: PodSnapshot, prev: PodStatus | undefined, now: number): PodStatus {
  const phase = podPhase(pod, snap);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const notInit = snap.initContainers.filter((c) => !(c.state.terminated && c.state.terminated.exitCode === 0)).map((c) => c.name);
  const unready = snap.containers.filter((c) => !c.ready).map((c) => c.name);
  const initialized = notInit.length === 0;
  const containersReady = unready.length === 0;
  const conds: PodCondition[] = [
    condition(prev, 'PodReadyToStartContainers', snap.sandboxReady, now),
    condition(
      prev,
      'Initialized',
      initialized,
      now,
      'ContainersNotInitialized',
      `containers with incomplete status: [${notInit.join(' ')}]`,
    ),
    condition(
      prev,
      'Ready',
      containersReady && !terminal,
      now,
      terminal ? 'PodCompleted' : 'ContainersNotReady',
      terminal ? undefined : `containers with unready status: [${unready.join(' ')}]`,
    ),
    condition(
      prev,
      'ContainersReady',
      containersReady && !terminal,
      now,
      terminal ? 'PodCompleted' : 'ContainersNotReady',
      terminal ? undefined : `containers with unready status: [${unready.join(' ')}]`,
    ),
    condition(prev, 'PodScheduled', true, now),
  ];
  const status: PodStatus = {
    phase,
    conditions: conds,
    hostIP: snap.hostIP,
    hostIPs: [{ ip: snap.hostIP }],
    qosClass: qosClass(pod),
  };
  if (snap.podIP) {
    status.podIP = snap.podIP;
    status.podIPs = [{ ip: snap.podIP }];
  }
  if (snap.startTime !== undefined) status.startTime = stamp(snap.startTime);
  if (snap.initContainers.length) status.initContainerStatuses = snap.initContainers.map(containerStatus);
  status.containerStatuses = snap.containers.map(containerStatus);
  if (snap.reason) status.reason = snap.reason;
  if (snap.message) status.message = snap.message;
  return status;
}

/** The QoS class the apiserver would have set (kept if already there). */
export function qosClass(pod: Pod): PodStatus['qosClass'] {
  if (pod.status?.qosClass) return pod.status.qosClass;
  const cs = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of cs) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      const l: string | undefined = lim[r];
      const q = req[r] ?? l;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
