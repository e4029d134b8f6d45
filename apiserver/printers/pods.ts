// Pod printing: Ready "1/2", the aggregate Status kubectl shows (Init:x/y,
// CrashLoopBackOff, Completed, Error, Terminating, Unknown for NodeLost...),
// Restarts with "(5m ago)", and the wide IP / Node / Nominated Node /
// Readiness Gates columns. Follows kube's printPod.
import type { Container, ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { humanDuration, parseTime, since } from './duration.ts';
import { int } from './format.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer, TableRowCondition } from './types.ts';

const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

const SUCCEEDED: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const FAILED: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

const isRestartableInit = (c: Container | undefined): boolean => c?.restartPolicy === 'Always';

const conditionTrue = (conditions: PodCondition[] | undefined, type: string): boolean => {
  const c = (conditions ?? []).find((x) => x.type === type);
  return c?.status === 'True';
};

/** Go's isPodInitializedConditionTrue: the first Initialized condition decides. */
const initializedTrue = (conditions: PodCondition[] | undefined): boolean => conditionTrue(conditions, 'Initialized');

/** Go's hasPodReadyCondition: true when some condition is Ready=True. */
const readyTrue = (conditions: PodCondition[] | undefined): boolean =>
  (conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The reason a terminated container reports: its reason, else Signal:n, else ExitCode:n. */
function terminatedReason(t: NonNullable<ContainerStatus['state']>['terminated'], prefix = ''): string {
  if (t!.reason) return prefix + t!.reason;
  if (int(t!.signal) !== 0) return `${prefix}Signal:${int(t!.signal)}`;
  return `${prefix}ExitCode:${int(t!.exitCode)}`;
}

/** The Status, Ready, Restarts and last-restart time that kube computes for a pod. */
export function podStatusSummary(pod: Pod): {
  reason: string;
  ready: number;
  total: number;
  restarts: number;
  lastRestart: number | undefined;
} {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  let restarts = 0;
  let restartableInitRestarts = 0;
  let total = (spec.containers ?? []).length;
  let ready = 0;
  let lastRestart: number | undefined;
  let lastRestartableInitRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) => (b !== undefined && (a === undefined || b > a) ? b : a);

  const phase = status.phase ?? '';
  let reason: string = status.reason ? status.reason : phase;
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initContainers = new Map<string, Container>();
  for (const c of spec.initContainers ?? []) {
    initContainers.set(c.name, c);
    if (isRestartableInit(c)) total++;
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    restarts += int(cs.restartCount);
    const lastFinished = parseTime(cs.lastState?.terminated?.finishedAt);
    if (cs.lastState?.terminated) lastRestart = later(lastRestart, lastFinished);
    const restartable = isRestartableInit(initContainers.get(cs.name));
    if (restartable) {
      restartableInitRestarts += int(cs.restartCount);
      if (cs.lastState?.terminated) lastRestartableInitRestart = later(lastRestartableInitRestart, lastFinished);
    }
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready) ready++;
      continue;
    }
    if (terminated) {
      reason = terminatedReason(terminated, 'Init:');
    } else if (waiting && waiting.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || initializedTrue(status.conditions)) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    // The reason of the first failed container, so that a pod whose containers
    // ended Completed and Error shows Error whatever their order.
    let errorReason = '';
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs.restartCount);
      if (cs.lastState?.terminated) lastRestart = later(lastRestart, parseTime(cs.lastState.terminated.finishedAt));
      const waiting = cs.state?.waiting;
      const terminated = cs.state?.terminated;
      if (waiting && waiting.reason) {
        reason = waiting.reason;
      } else if (terminated) {
        reason = terminatedReason(terminated);
        if (int(terminated.exitCode) !== 0 || int(terminated.signal) !== 0) errorReason = reason;
      } else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = readyTrue(status.conditions) ? 'Running' : 'NotReady';
    } else if (reason === 'Completed' && errorReason !== '') {
      reason = errorReason;
    }
  }

  if (pod.metadata?.deletionTimestamp && status.reason === NODE_UNREACHABLE_POD_REASON) {
    reason = 'Unknown';
  } else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') {
    reason = 'Terminating';
  }
  return { reason, ready, total, restarts, lastRestart };
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  let trueConditions = 0;
  for (const gate of gates) {
    const c = (pod.status?.conditions ?? []).find((x) => x.type === gate.conditionType);
    if (c?.status === 'True') trueConditions++;
  }
  return `${trueConditions}/${gates.length}`;
}

/** The first pod IP; kube's conversion fills podIPs from podIP when only the latter is set. */
function podIP(pod: Pod): string {
  return pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '<none>';
}

/** Pod: Name, Ready, Status, Restarts, Age; wide IP, Node, Nominated Node, Readiness Gates. Finished pods get a Completed row condition. */
export const podPrinter: Printer<Pod> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready containers out of all containers (restartable init containers included).'),
    column('Status', 'string', 'The pod status summarised from its phase and container states.'),
    column('Restarts', 'string', 'Container restarts, and how long ago the last one happened.'),
    ageColumn(),
    wide(column('IP', 'string', 'The first IP address allocated to the pod.')),
    wide(column('Node', 'string', 'The node the pod is bound to.')),
    wide(column('Nominated Node', 'string', 'The node the scheduler nominated after preemption.')),
    wide(column('Readiness Gates', 'string', 'Readiness gate conditions that are True, out of all gates.')),
  ],
  row(pod: Pod, ctx: PrintContext): PrintedRow {
    const s = podStatusSummary(pod);
    const restarts =
      s.restarts !== 0 && s.lastRestart !== undefined
        ? `${s.restarts} (${humanDuration(ctx.now.getTime() - s.lastRestart)} ago)`
        : String(s.restarts);
    const phase = pod.status?.phase;
    return {
      cells: [
        pod.metadata?.name ?? '',
        `${s.ready}/${s.total}`,
        s.reason,
        restarts,
        since(pod.metadata?.creationTimestamp, ctx.now),
        podIP(pod),
        pod.spec?.nodeName || '<none>',
        pod.status?.nominatedNodeName || '<none>',
        readinessGates(pod),
      ],
      conditions: phase === 'Succeeded' ? SUCCEEDED : phase === 'Failed' ? FAILED : undefined,
    };
  },
};
