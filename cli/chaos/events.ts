// Every fault as a core/v1 Event, so it shows in `kubectl get events` next
// to the system's reaction: reason ChaosInjected (Warning) or ChaosRecovered
// (Normal), source and reporting component `ksim-chaos`, written by the
// shared EventRecorder (kube's naming, <object>.<hex nanoseconds>, and its
// correlator: a repeated event bumps the count) in the object's namespace,
// `default` for a cluster-scoped object as kube does. One recorder per
// client, so repeated faults on one object correlate. Each write's cause
// (X-Ksim-Cause) is ksim-chaos with the fault as its detail. Never fatal: an event
// the apiserver cannot take (it may be the one that was killed) is logged.
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import type { ChaosRequest } from '../../shared/chaos/protocol.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import { withCause } from '../../shared/causality/cause-context.ts';
import { EventRecorder } from '../../shared/events/event-recorder.ts';

/** The source and reporting component of every chaos Event. */
export const CHAOS_COMPONENT = 'ksim-chaos';

/** One chaos Event. */
export interface ChaosEvent {
  reason: 'ChaosInjected' | 'ChaosRecovered';
  message: string;
  involvedObject: ObjectReference;
}

const recorders = new WeakMap<KubeClient, EventRecorder>();

function recorderFor(client: KubeClient, opts: { log?: Logger; clock?: Clock }): EventRecorder {
  let r = recorders.get(client);
  if (!r) {
    r = new EventRecorder(client, { component: CHAOS_COMPONENT, log: opts.log, clock: opts.clock });
    recorders.set(client, r);
  }
  return r;
}

/** Writes the Event and resolves once it is written (or its failure logged). */
export async function recordChaosEvent(client: KubeClient, e: ChaosEvent, opts: { log?: Logger; clock?: Clock } = {}): Promise<void> {
  const o = e.involvedObject;
  const recorder = recorderFor(client, opts);
  // The write's cause names the fault: the history (and the web UI's timeline) tell a fault from the system's reaction.
  const cause = { controller: CHAOS_COMPONENT, detail: `${e.reason}: ${e.message}` };
  withCause(cause, () =>
    recorder.event(
      {
        apiVersion: o.apiVersion,
        kind: o.kind,
        metadata: { name: o.name, namespace: o.namespace, uid: o.uid, resourceVersion: o.resourceVersion },
      },
      e.reason === 'ChaosInjected' ? 'Warning' : 'Normal',
      e.reason,
      e.message,
      o.fieldPath,
    ),
  );
  await recorder.flush();
}

/** kubeadm's static Pod name of each control-plane component. */
const STATIC_POD: Record<string, string> = {
  apiserver: 'kube-apiserver',
  'controller-manager': 'kube-controller-manager',
  scheduler: 'kube-scheduler',
};

/**
 * The object a fault's Event is about: node/NAME is that Node, pod/NS/NAME
 * that Pod, a control-plane component (or its replica or leader; the API
 * server for `apiserver` faults) its mirror Pod on the control-plane node
 * (kube-system/kube-scheduler-NODE), Pods by selector their Namespace (the
 * caller may rather record one Event per Pod it reached), anything else
 * (kubelet-sim) the kube-system Namespace.
 */
export function involvedObjectOf(
  request: Pick<ChaosRequest, 'action' | 'target' | 'pods'>,
  controlPlaneNode = 'control-plane',
): ObjectReference {
  const target = request.target ?? (request.action === 'apiserver' ? 'apiserver' : undefined);
  if (target?.startsWith('node/')) return { apiVersion: 'v1', kind: 'Node', name: target.slice('node/'.length) };
  const pod = /^pod\/([^/]+)\/([^/]+)$/.exec(target ?? '');
  if (pod) return { apiVersion: 'v1', kind: 'Pod', namespace: pod[1], name: pod[2] };
  if (target === undefined && request.pods) return { apiVersion: 'v1', kind: 'Namespace', name: request.pods.namespace ?? 'default' };
  const staticPod = STATIC_POD[(target ?? '').replace(/^leader\//, '').replace(/-\d+$/, '')];
  if (staticPod && controlPlaneNode) {
    return { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: `${staticPod}-${controlPlaneNode}` };
  }
  return { apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' };
}
