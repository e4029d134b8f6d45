// The admission plugins that look at a new Pod alone (and at data they are
// handed): ServiceAccount (see service-account.ts), DefaultTolerationSeconds (300 s NoExecute tolerations for not-ready and
// unreachable nodes) and Priority (spec.priority from the PriorityClass).
import type { Pod } from 'kubernetes-types/core/v1.js';
import { fieldError, forbidden, invalid } from '../../shared/api/errors.ts';
import type { ObjectToStore } from '../storage/types.ts';
import type { AdmissionPlugin } from './types.ts';
import type { PriorityClassView } from './priority-classes.ts';
import { serviceAccountAdmission, type ServiceAccountView } from './service-account.ts';

const isPod = (rt: { group: string; plural: string }) => rt.group === '' && rt.plural === 'pods';

/** The Pod a plugin looks at: the object itself, when `rt` is pods and it is being created. */
const podCreated = (op: string, rt: { group: string; plural: string }, obj: ObjectToStore): Pod | undefined =>
  op === 'CREATE' && isPod(rt) ? (obj as Pod) : undefined;

/** DefaultTolerationSeconds with kube's default of 300 seconds. */
export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(op, rt, obj) {
    const pod = podCreated(op, rt, obj);
    if (!pod?.spec) return;
    const tolerations = (pod.spec.tolerations ??= []);
    for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
      const covered = tolerations.some(
        (t) => (t.key === key || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'),
      );
      if (!covered) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    }
  },
};

/** The PriorityClasses kube creates itself. */
export const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

/** Priority admission: resolves spec.priorityClassName through the PriorityClasses `classes` shows. */
export function priorityAdmission(classes: PriorityClassView): AdmissionPlugin {
  return {
    name: 'Priority',
    admit(op, rt, obj) {
      const pod = podCreated(op, rt, obj);
      if (!pod?.spec) return;
      const name = pod.spec.priorityClassName;
      const pc = name ? classes.lookup(name) : classes.globalDefault();
      if (name && !pc) {
        throw forbidden(`pods "${pod.metadata?.name ?? ''}" is forbidden: no PriorityClass with name ${name} was found`, { kind: 'pods' });
      }
      const value = pc?.value ?? 0;
      if (pod.spec.priority !== undefined && pod.spec.priority !== null && pod.spec.priority !== value) {
        throw invalid('Pod', '', pod.metadata?.name ?? '', [
          fieldError.forbidden(
            'spec.priority',
            'the integer value of priority must not be provided in pod spec; priority admission controller computed ' +
              value +
              ' from the given PriorityClass name',
          ),
        ]);
      }
      pod.spec.priority = value;
      if (pc) pod.spec.priorityClassName = pc.metadata!.name;
      pod.spec.preemptionPolicy ??= pc?.preemptionPolicy ?? 'PreemptLowerPriority';
    },
  };
}

/**
 * The plugins that look at the object alone (and at the PriorityClasses and
 * ServiceAccounts the views show), in kube's order: the same list on the
 * main thread and on a create worker.
 */
export function objectAdmissionPlugins(
  classes: PriorityClassView,
  // Until every caller passes a view: each ServiceAccount taken to exist, with nothing set.
  serviceAccounts: ServiceAccountView = { get: () => ({}) },
): AdmissionPlugin[] {
  return [serviceAccountAdmission(serviceAccounts), priorityAdmission(classes), defaultTolerationSeconds];
}
