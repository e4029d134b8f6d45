// The per-kind defaulting and validation rules, keyed like strategy.ts's
// overrides (`${group}/${plural}`). `defaults` mutates the object in place
// (it runs on create and update); `validate` returns kube's field errors,
// with `old` set on update.
import type { FieldError } from './field.ts';
import type { KubeObject } from '../object.ts';
import { defaultConfigMap, defaultSecret, validateConfigMap, validateSecret } from './config.ts';
import { defaultCronJob, defaultJob, validateCronJob, validateJob } from './jobs.ts';
import { defaultHPA, validateHPA } from './hpa.ts';
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
import {
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultStorageClass,
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validateStorageClass,
} from './storage.ts';
import { defaultBinding, validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac.ts';
import { defaultService, validateService } from './service.ts';
import {
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
} from './admissionregistration.ts';
import { defaultReplicationController, validateReplicationController } from './replication-controller.ts';
import * as toolKinds from './tool-kinds.ts';
import * as flowcontrol from './flowcontrol.ts';
import { defaultIngressClass, defaultNetworkPolicy, validateIngress, validateIngressClass, validateNetworkPolicy } from './networking.ts';
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
  '/persistentvolumes': rule(defaultPersistentVolume, validatePersistentVolume),
  '/persistentvolumeclaims': rule(defaultPersistentVolumeClaim, validatePersistentVolumeClaim),
  'storage.k8s.io/storageclasses': rule(defaultStorageClass, validateStorageClass),
  '/replicationcontrollers': rule(defaultReplicationController, validateReplicationController),
  'apps/deployments': rule(defaultDeployment, validateDeployment),
  'apps/replicasets': rule(defaultReplicaSet, validateReplicaSet),
  'apps/daemonsets': rule(defaultDaemonSet, validateDaemonSet),
  'apps/statefulsets': rule(defaultStatefulSet, validateStatefulSet),
  'batch/jobs': rule(defaultJob, validateJob),
  'batch/cronjobs': rule(defaultCronJob, validateCronJob),
  'autoscaling/horizontalpodautoscalers': { defaults: defaultHPA, validate: validateHPA },
  'coordination.k8s.io/leases': rule(defaultLease, validateLease),
  'events.k8s.io/events': rule(defaultEventsV1, validateEventsV1),
  'rbac.authorization.k8s.io/roles': rule(undefined, validateRole),
  'rbac.authorization.k8s.io/clusterroles': rule(undefined, validateClusterRole),
  'rbac.authorization.k8s.io/rolebindings': rule(defaultBinding, validateRoleBinding),
  'rbac.authorization.k8s.io/clusterrolebindings': rule(defaultBinding, validateClusterRoleBinding),
  'certificates.k8s.io/certificatesigningrequests': rule(undefined, validateCSRWrite),
  'policy/poddisruptionbudgets': rule(defaultPDB, validatePDB),
  'networking.k8s.io/networkpolicies': rule(defaultNetworkPolicy, validateNetworkPolicy),
  'networking.k8s.io/ingresses': rule(undefined, validateIngress),
  'networking.k8s.io/ingressclasses': rule(defaultIngressClass, validateIngressClass),
  'admissionregistration.k8s.io/validatingadmissionpolicies': rule(defaultValidatingAdmissionPolicy, validateValidatingAdmissionPolicy),
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': rule(
    defaultValidatingAdmissionPolicyBinding,
    validateValidatingAdmissionPolicyBinding,
  ),
  '/podtemplates': rule(undefined, toolKinds.validatePodTemplate),
  'node.k8s.io/runtimeclasses': rule(undefined, toolKinds.validateRuntimeClass),
  'admissionregistration.k8s.io/validatingwebhookconfigurations': rule(
    toolKinds.defaultValidatingWebhookConfiguration,
    toolKinds.validateValidatingWebhookConfiguration,
  ),
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': rule(
    toolKinds.defaultMutatingWebhookConfiguration,
    toolKinds.validateMutatingWebhookConfiguration,
  ),
  'storage.k8s.io/csidrivers': rule(toolKinds.defaultCSIDriver, toolKinds.validateCSIDriver),
  'storage.k8s.io/csinodes': rule(undefined, toolKinds.validateCSINode),
  'storage.k8s.io/volumeattachments': rule(undefined, toolKinds.validateVolumeAttachment),
  'storage.k8s.io/csistoragecapacities': rule(undefined, toolKinds.validateCSIStorageCapacity),
  'storage.k8s.io/volumeattributesclasses': rule(undefined, toolKinds.validateVolumeAttributesClass),
  'apiregistration.k8s.io/apiservices': rule(undefined, toolKinds.validateAPIService),
  'networking.k8s.io/servicecidrs': rule(undefined, toolKinds.validateServiceCIDR),
  'networking.k8s.io/ipaddresses': rule(undefined, toolKinds.validateIPAddress),
  'flowcontrol.apiserver.k8s.io/flowschemas': rule(flowcontrol.defaultFlowSchema, flowcontrol.validateFlowSchema),
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': rule(
    flowcontrol.defaultPriorityLevelConfiguration,
    flowcontrol.validatePriorityLevelConfiguration,
  ),
};

export { prepareJobCreate, JOB_LABELS } from './jobs.ts';
export { patchServiceAllocatedValues } from './service.ts';
export { prepareDaemonSetUpdate, DAEMONSET_TEMPLATE_GENERATION } from './workloads.ts';
export { POD_UPDATE_FORBIDDEN } from './pod.ts';
export type { FieldError };
