// What kubelet makes of a static Pod's probe results, as a pure state
// machine over one container: the startup probe gates the others, a
// readiness probe sets `ready` after successThreshold successes and clears
// it after failureThreshold failures, and failureThreshold startup or
// liveness failures kill the container, which is started again at once
// (restartCount + 1, the old one in lastState). Every failure is an
// Unhealthy event, as kubelet's prober records it; a restart adds kubelet's
// Killing, Pulled, Created and Started.
import type { Container, ContainerStateTerminated, Probe } from 'kubernetes-types/core/v1.js';
import type { ContainerSnapshot } from '../runtime/pod-status.ts';
import { stamp } from '../runtime/pod-status.ts';

/** The three probes. */
export type ProbeKind = 'Startup' | 'Liveness' | 'Readiness';

/** One container as this kubelet tracks it. */
export interface ContainerTrack {
  containerID: string;
  startedAt: number;
  restartCount: number;
  started: boolean;
  ready: boolean;
  /** Consecutive results per probe. */
  fails: Record<ProbeKind, number>;
  oks: Record<ProbeKind, number>;
  lastTerminated?: ContainerStateTerminated;
}

/** An event for the container (reason and message as kubelet's). */
export interface TrackEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

const zero = (): Record<ProbeKind, number> => ({ Startup: 0, Liveness: 0, Readiness: 0 });

/** A container just started (no startup probe: started at once; no readiness probe either: ready once started). */
export function startedContainer(c: Container, containerID: string, now: number, restartCount = 0): ContainerTrack {
  const started = !c.startupProbe;
  return { containerID, startedAt: now, restartCount, started, ready: started && !c.readinessProbe, fails: zero(), oks: zero() };
}

/** The probe of a kind. */
export function probeOf(c: Container, kind: ProbeKind): Probe | undefined {
  return kind === 'Startup' ? c.startupProbe : kind === 'Liveness' ? c.livenessProbe : c.readinessProbe;
}

/** Whether the probe of `kind` runs now: startup until it passed, the others after. */
export function probeRuns(t: ContainerTrack, c: Container, kind: ProbeKind): boolean {
  if (!probeOf(c, kind)) return false;
  return kind === 'Startup' ? !t.started : t.started;
}

/**
 * The track after one probe result, and the events it causes. `nextID` names
 * the container started again after a kill.
 */
export function observeProbe(
  t: ContainerTrack,
  c: Container,
  kind: ProbeKind,
  result: { ok: boolean; message: string },
  now: number,
  nextID: () => string,
): { track: ContainerTrack; events: TrackEvent[] } {
  const p = probeOf(c, kind);
  if (!p || !probeRuns(t, c, kind)) return { track: t, events: [] };
  const track: ContainerTrack = { ...t, fails: { ...t.fails }, oks: { ...t.oks } };
  if (result.ok) {
    track.fails[kind] = 0;
    track.oks[kind]++;
    if (kind === 'Startup') {
      track.started = true;
      if (!c.readinessProbe) track.ready = true;
    }
    if (kind === 'Readiness' && track.oks[kind] >= (p.successThreshold ?? 1)) track.ready = true;
    return { track, events: [] };
  }
  track.oks[kind] = 0;
  track.fails[kind]++;
  const events: TrackEvent[] = [{ type: 'Warning', reason: 'Unhealthy', message: `${kind} probe failed: ${result.message}` }];
  const threshold = p.failureThreshold ?? 3;
  if (kind === 'Readiness') {
    if (track.fails[kind] >= threshold) track.ready = false;
    return { track, events };
  }
  if (track.fails[kind] < threshold) return { track, events };
  // kubelet kills the container and its restart policy (Always) starts it again.
  const image = c.image ?? '';
  events.push(
    { type: 'Normal', reason: 'Killing', message: `Container ${c.name} failed ${kind.toLowerCase()} probe, will be restarted` },
    { type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine` },
    { type: 'Normal', reason: 'Created', message: `Created container: ${c.name}` },
    { type: 'Normal', reason: 'Started', message: `Started container ${c.name}` },
  );
  const next = startedContainer(c, nextID(), now, t.restartCount + 1);
  next.lastTerminated = {
    exitCode: 1,
    reason: 'Error',
    startedAt: stamp(t.startedAt),
    finishedAt: stamp(now),
    containerID: t.containerID,
  };
  return { track: next, events };
}

/** The container as pod-status.ts's buildPodStatus reads it. */
export function containerSnapshot(t: ContainerTrack, c: Container, imageID: string): ContainerSnapshot {
  return {
    name: c.name,
    image: c.image ?? '',
    imageID,
    containerID: t.containerID,
    state: { running: { startedAt: stamp(t.startedAt) } },
    lastState: t.lastTerminated ? { terminated: t.lastTerminated } : {},
    ready: t.ready,
    started: t.started,
    restartCount: t.restartCount,
  };
}
