// The controllers the controller-manager runs, by name (the names kube's
// --controllers flag uses).
import type { ControllerContext, ControllerParts } from '../context.ts';
import { csrSigningController } from './certificates/controller.ts';
import { deploymentController } from './deployment/controller.ts';
import { disruptionController } from './disruption/controller.ts';
import { endpointsController } from './endpoints/controller.ts';
import { garbageCollectorController } from './garbagecollector/controller.ts';
import { namespaceController } from './namespace/controller.ts';
import { serviceAccountController } from './serviceaccount/controller.ts';
import { endpointSliceController } from './endpointslice/controller.ts';
import { nodeLifecycleController, taintEvictionController } from './nodelifecycle/controller.ts';
import { replicaSetController } from './replicaset/controller.ts';
import {
  persistentVolumeBinderController,
  persistentVolumeExpanderController,
  pvcProtectionController,
  pvProtectionController,
} from './persistentvolume/controller.ts';
import { replicationControllerController } from './replicationcontroller/controller.ts';
import { resourceQuotaController } from './resourcequota/controller.ts';
import { clusterRoleAggregationController } from './clusterroleaggregation/controller.ts';
import { rootCaCertPublisherController } from './rootcacertpublisher/controller.ts';
import { serviceAccountTokenController } from './serviceaccounttoken/controller.ts';
import { jobController } from './job/controller.ts';
import { ttlAfterFinishedController } from './ttlafterfinished/controller.ts';
import { cronJobController } from './cronjob/controller.ts';
import { validatingAdmissionPolicyStatusController } from './validatingadmissionpolicystatus/controller.ts';
import { daemonSetController } from './daemonset/controller.ts';
import { statefulSetController } from './statefulset/controller.ts';
import { horizontalPodAutoscalerController } from './horizontalpodautoscaler/controller.ts';

/** Constructors of every controller, in start order. */
export const CONTROLLERS: Record<string, (ctx: ControllerContext) => ControllerParts> = {
  deployment: deploymentController,
  cronjob: cronJobController,
  daemonset: daemonSetController,
  replicaset: replicaSetController,
  replicationcontroller: replicationControllerController,
  disruption: disruptionController,
  endpoint: endpointsController,
  endpointslice: endpointSliceController,
  'node-lifecycle': nodeLifecycleController,
  'taint-eviction-controller': taintEvictionController,
  garbagecollector: garbageCollectorController,
  namespace: namespaceController,
  serviceaccount: serviceAccountController,
  'serviceaccount-token': serviceAccountTokenController,
  resourcequota: resourceQuotaController,
  'clusterrole-aggregation': clusterRoleAggregationController,
  'root-ca-cert-publisher': rootCaCertPublisherController,
  csrsigning: csrSigningController,
  'persistentvolume-binder': persistentVolumeBinderController,
  'persistentvolume-expander': persistentVolumeExpanderController,
  'pvc-protection': pvcProtectionController,
  'pv-protection': pvProtectionController,
  job: jobController,
  'ttl-after-finished': ttlAfterFinishedController,
  statefulset: statefulSetController,
  'validatingadmissionpolicy-status': validatingAdmissionPolicyStatusController,
  horizontalpodautoscaling: horizontalPodAutoscalerController,
};

/** The event source (Event.source.component) each controller reports as in kube. */
const EVENT_SOURCES: Record<string, string> = {
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  disruption: 'controllermanager',
  endpoint: 'endpoint-controller',
  endpointslice: 'endpoint-slice-controller',
  'node-lifecycle': 'node-controller',
  'taint-eviction-controller': 'taint-eviction-controller',
  garbagecollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  serviceaccount: 'service-account-controller',
  resourcequota: 'resource-quota-controller',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  csrsigning: 'certificate-controller',
  job: 'job-controller',
  cronjob: 'cronjob-controller',
  daemonset: 'daemonset-controller',
  statefulset: 'statefulset-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  replicationcontroller: 'replication-controller',
  'persistentvolume-binder': 'persistentvolume-controller',
  'persistentvolume-expander': 'volume_expand',
  'pvc-protection': 'pvc-protection-controller',
  'pv-protection': 'pv-protection-controller',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
};

/** The source name of a controller's Events. */
export function eventSource(controller: string): string {
  return EVENT_SOURCES[controller] ?? `${controller}-controller`;
}
