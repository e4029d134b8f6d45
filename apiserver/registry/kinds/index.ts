// The per-kind defaulting and validation rules, keyed like strategy.ts's
// overrides (`${group}/${plural}`). `defaults` mutates the object in place
// (it runs on create and update); `validate` returns kube's field errors,
// with `old` set on update.
import type { FieldError } from './field.ts';
import type { KubeObject } from '../object.ts';
import { defaultConfigMap, defaultSecret, validateConfigMap, validateSecret } from './config.ts';
import { defaultCronJob, defaultJob, validateCronJob, validateJob } from './jobs.ts';
import {
  defaultCoreEvent,
  defaultEndpoints,
  defaultEventsV1,
  defaultLease,
  defaultLimitRange,
  defaultNamespace,
  defaultNode,
  defaultPDB,
  defaultResourceQuota,
  validateCoreEvent,
  validateEndpoints,
  validateEventsV1,
  validateLease,
  validateLimitRange,
  validateNamespace,
  validateNode,
  validatePDB,
  validateResourceQuota,
} from './misc.ts';
import { validateCSRWrite } from './certificates.ts';
import { defaultPod, validatePod } from './pod.ts';
import { defaultBinding, validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac.ts';
import { defaultService, validateService } from './service.ts';
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateStatefulSet,
} from './workloads.ts';

/** The defaulting and validation of one kind, on the generic object the lifecycle rules pass. */
export interface KindRule {
  defaults?: (obj: KubeObject) => void;
  validate?: (obj: KubeObject, old?: KubeObject) => FieldError[];
}

/**
 * A kind's rules written on its kubernetes-types type. This is where the
 * decoded JSON of a request becomes that type: nothing has checked it yet,
 * which is why the rules test every field they rely on before using it.
 */
function rule<T>(defaults?: (obj: T) => void, validate?: (obj: T, old?: T) => FieldError[]): KindRule {
  return {
    defaults: defaults && ((obj) => defaults(obj as unknown as T)),
    validate: validate && ((obj, old) => validate(obj as unknown as T, old as unknown as T | undefined)),
  };
}

/** Every served kind's rules, keyed `${group}/${plural}` ('/pods', 'apps/deployments', ...). */
export const kindRules: Record<string, KindRule> = {
  '/pods': rule(defaultPod, validatePod),
  '/services': rule(defaultService, validateService),
  '/endpoints': rule(defaultEndpoints, validateEndpoints),
  '/configmaps': rule(defaultConfigMap, validateConfigMap),
  '/secrets': rule(defaultSecret, validateSecret),
  '/serviceaccounts': {},
  '/namespaces': rule(defaultNamespace, validateNamespace),
  '/nodes': rule(defaultNode, validateNode),
  '/events': rule(defaultCoreEvent, validateCoreEvent),
  '/resourcequotas': rule(defaultResourceQuota, validateResourceQuota),
  '/limitranges': rule(defaultLimitRange, validateLimitRange),
  'apps/deployments': rule(defaultDeployment, validateDeployment),
  'apps/replicasets': rule(defaultReplicaSet, validateReplicaSet),
  'apps/daemonsets': rule(defaultDaemonSet, validateDaemonSet),
  'apps/statefulsets': rule(defaultStatefulSet, validateStatefulSet),
  'batch/jobs': rule(defaultJob, validateJob),
  'batch/cronjobs': rule(defaultCronJob, validateCronJob),
  'coordination.k8s.io/leases': rule(defaultLease, validateLease),
  'events.k8s.io/events': rule(defaultEventsV1, validateEventsV1),
  'rbac.authorization.k8s.io/roles': rule(undefined, validateRole),
  'rbac.authorization.k8s.io/clusterroles': rule(undefined, validateClusterRole),
  'rbac.authorization.k8s.io/rolebindings': rule(defaultBinding, validateRoleBinding),
  'rbac.authorization.k8s.io/clusterrolebindings': rule(defaultBinding, validateClusterRoleBinding),
  'certificates.k8s.io/certificatesigningrequests': rule(undefined, validateCSRWrite),
  'policy/poddisruptionbudgets': rule(defaultPDB, validatePDB),
};

export { prepareJobCreate, JOB_LABELS } from './jobs.ts';
export { patchServiceAllocatedValues } from './service.ts';
export { prepareDaemonSetUpdate, DAEMONSET_TEMPLATE_GENERATION } from './workloads.ts';
export { POD_UPDATE_FORBIDDEN } from './pod.ts';
export type { FieldError };
