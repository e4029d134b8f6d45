// The per-kind defaulting and validation rules, keyed like strategy.ts's
// overrides (`${group}/${plural}`). `defaults` mutates the object in place
// (it runs on create and update); `validate` returns kube's field errors,
// with `old` set on update.
import type { FieldError } from './field.ts';
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

/** The defaulting and validation of one kind. */
export interface KindRule {
  defaults?: (obj: any) => void;
  validate?: (obj: any, old?: any) => FieldError[];
}

/** Every served kind's rules, keyed `${group}/${plural}` ('/pods', 'apps/deployments', ...). */
export const kindRules: Record<string, KindRule> = {
  '/pods': { defaults: defaultPod, validate: validatePod },
  '/services': { defaults: defaultService, validate: validateService },
  '/endpoints': { defaults: defaultEndpoints, validate: validateEndpoints },
  '/configmaps': { defaults: defaultConfigMap, validate: validateConfigMap },
  '/secrets': { defaults: defaultSecret, validate: validateSecret },
  '/serviceaccounts': {},
  '/namespaces': { defaults: defaultNamespace, validate: validateNamespace },
  '/nodes': { defaults: defaultNode, validate: validateNode },
  '/events': { defaults: defaultCoreEvent, validate: validateCoreEvent },
  '/resourcequotas': { defaults: defaultResourceQuota, validate: validateResourceQuota },
  '/limitranges': { defaults: defaultLimitRange, validate: validateLimitRange },
  'apps/deployments': { defaults: defaultDeployment, validate: validateDeployment },
  'apps/replicasets': { defaults: defaultReplicaSet, validate: validateReplicaSet },
  'apps/daemonsets': { defaults: defaultDaemonSet, validate: validateDaemonSet },
  'apps/statefulsets': { defaults: defaultStatefulSet, validate: validateStatefulSet },
  'batch/jobs': { defaults: defaultJob, validate: validateJob },
  'batch/cronjobs': { defaults: defaultCronJob, validate: validateCronJob },
  'coordination.k8s.io/leases': { defaults: defaultLease, validate: validateLease },
  'events.k8s.io/events': { defaults: defaultEventsV1, validate: validateEventsV1 },
  'rbac.authorization.k8s.io/roles': { validate: validateRole },
  'rbac.authorization.k8s.io/clusterroles': { validate: validateClusterRole },
  'rbac.authorization.k8s.io/rolebindings': { defaults: defaultBinding, validate: validateRoleBinding },
  'rbac.authorization.k8s.io/clusterrolebindings': { defaults: defaultBinding, validate: validateClusterRoleBinding },
  'certificates.k8s.io/certificatesigningrequests': { validate: validateCSRWrite },
  'policy/poddisruptionbudgets': { defaults: defaultPDB, validate: validatePDB },
};

export { prepareJobCreate, JOB_LABELS } from './jobs.ts';
export { patchServiceAllocatedValues } from './service.ts';
export { prepareDaemonSetUpdate, DAEMONSET_TEMPLATE_GENERATION } from './workloads.ts';
export { POD_UPDATE_FORBIDDEN } from './pod.ts';
export type { FieldError };
