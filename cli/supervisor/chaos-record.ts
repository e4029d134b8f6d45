// Every fault injected or recovered is told twice: a line in the
// supervisor's log (DIR/logs/supervisor.log) and a core/v1 Event from the
// ksim-chaos source on the object it reached (the Node, the Pod, the Lease,
// or the component's mirror Pod kube-system/kube-scheduler-<control-plane
// node>), so `kubectl get events` shows it next to the system's reaction.
// An Event that cannot be written in a moment (the apiserver is the one
// killed or paused) is given up: the log line stays.
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import { recordChaosEvent } from '../chaos/events.ts';
import { kindOf, STATIC_POD_OF } from './components.ts';
import { LEASE_OF } from './leaders.ts';

const EVENT_TIMEOUT_MS = 2000;

export type ChaosReason = 'ChaosInjected' | 'ChaosRecovered';

/** The objects an Event about a component names. */
export function componentObjects(component: string, controlPlaneNode: string, viaLeader = false): ObjectReference[] {
  const kind = kindOf(component);
  const lease = LEASE_OF[kind];
  if (lease && (viaLeader || !controlPlaneNode))
    return [{ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'kube-system', name: lease }];
  if (STATIC_POD_OF[kind] && controlPlaneNode)
    return [{ apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system', name: `${STATIC_POD_OF[kind]}-${controlPlaneNode}` }];
  if (kind === 'kubelet-sim' && controlPlaneNode) return [nodeObject(controlPlaneNode)];
  return [];
}

export const nodeObject = (name: string): ObjectReference => ({ apiVersion: 'v1', kind: 'Node', name });
export const podObject = (namespace: string, name: string): ObjectReference => ({ apiVersion: 'v1', kind: 'Pod', namespace, name });

/** Logs and records chaos. */
export class ChaosRecorder {
  constructor(
    private readonly log: Logger,
    private readonly client: () => KubeClient | undefined,
  ) {}

  /** The log line at once; the Events within a couple of seconds at most (never throws). */
  async record(reason: ChaosReason, message: string, objects: ObjectReference[], fields: Record<string, unknown> = {}): Promise<void> {
    this.log.warn({ chaos: reason, ...fields, objects: objects.map(refName) }, `${reason}: ${message}`);
    const client = this.client();
    if (!client) return;
    await Promise.all(
      objects.map(async (involvedObject) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            recordChaosEvent(client, { reason, message, involvedObject }),
            new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), EVENT_TIMEOUT_MS))),
          ]);
        } catch (err) {
          this.log.info({ err: (err as Error).message, object: refName(involvedObject) }, `could not record the ${reason} Event`);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }
}

function refName(o: ObjectReference): string {
  return `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}
