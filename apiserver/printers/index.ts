// Server-side printing: turns objects of a served kind into the
// meta.k8s.io/v1 Table kube-apiserver returns for
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Like kube, every
// column is included (wide ones at priority 1) and kubectl picks what to show.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { apiVersionOf } from '../../shared/api/resource-type.ts';
import { configMapPrinter, namespacePrinter, resourceQuotaPrinter, secretPrinter, serviceAccountPrinter } from './core.ts';
import { csrPrinter, leasePrinter, podDisruptionBudgetPrinter } from './cluster.ts';
import { cronJobPrinter, jobPrinter } from './batch.ts';
import { horizontalPodAutoscalerPrinter } from './hpa.ts';
import { defaultPrinter } from './default.ts';
import { customResourcePrinter } from '../crd/printer.ts';
import { controllerRevisionPrinter, endpointSlicePrinter, priorityClassPrinter } from './more.ts';
import { eventPrinter, eventsV1Printer } from './events.ts';
import { nodePrinter } from './nodes.ts';
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './networking.ts';
import { persistentVolumeClaimPrinter, persistentVolumePrinter, storageClassPrinter } from './storage.ts';
import { podPrinter } from './pods.ts';
import * as tools from './tool-kinds.ts';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.ts';
import { endpointsPrinter, servicePrinter } from './services.ts';
import type { PrintableObject, Printer, Table, TableListMeta, TableRow } from './types.ts';
import { validatingAdmissionPolicyBindingPrinter, validatingAdmissionPolicyPrinter } from './admissionregistration.ts';
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, replicationControllerPrinter, statefulSetPrinter } from './workloads.ts';

export type { Cell, PrintableObject, Printer, Table, TableColumnDefinition, TableListMeta, TableRow, TableRowCondition } from './types.ts';
/** kube's duration.HumanDuration / ShortHumanDuration, for other components that print ages. */
export { humanDuration, shortHumanDuration } from './duration.ts';

/** Printers keyed by "group/Kind" (core group: "/Kind"). */
const PRINTERS = new Map<string, Printer>([
  ['/Namespace', namespacePrinter],
  ['/Pod', podPrinter],
  ['/Node', nodePrinter],
  ['/Service', servicePrinter],
  ['/Endpoints', endpointsPrinter],
  ['/ConfigMap', configMapPrinter],
  ['/Secret', secretPrinter],
  ['/ServiceAccount', serviceAccountPrinter],
  ['/Event', eventPrinter],
  ['/ResourceQuota', resourceQuotaPrinter],
  ['/PersistentVolume', persistentVolumePrinter],
  ['/PersistentVolumeClaim', persistentVolumeClaimPrinter],
  ['storage.k8s.io/StorageClass', storageClassPrinter],
  ['/ReplicationController', replicationControllerPrinter],
  ['apps/Deployment', deploymentPrinter],
  ['apps/ReplicaSet', replicaSetPrinter],
  ['apps/DaemonSet', daemonSetPrinter],
  ['apps/StatefulSet', statefulSetPrinter],
  ['batch/Job', jobPrinter],
  ['batch/CronJob', cronJobPrinter],
  ['autoscaling/HorizontalPodAutoscaler', horizontalPodAutoscalerPrinter],
  ['coordination.k8s.io/Lease', leasePrinter],
  ['events.k8s.io/Event', eventsV1Printer],
  ['rbac.authorization.k8s.io/RoleBinding', roleBindingPrinter],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', clusterRoleBindingPrinter],
  ['certificates.k8s.io/CertificateSigningRequest', csrPrinter],
  ['policy/PodDisruptionBudget', podDisruptionBudgetPrinter],
  ['admissionregistration.k8s.io/ValidatingAdmissionPolicy', validatingAdmissionPolicyPrinter],
  ['admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding', validatingAdmissionPolicyBindingPrinter],
  ['discovery.k8s.io/EndpointSlice', endpointSlicePrinter],
  ['scheduling.k8s.io/PriorityClass', priorityClassPrinter],
  ['apps/ControllerRevision', controllerRevisionPrinter],
  ['networking.k8s.io/NetworkPolicy', networkPolicyPrinter],
  ['networking.k8s.io/Ingress', ingressPrinter],
  ['networking.k8s.io/IngressClass', ingressClassPrinter],
  ['/PodTemplate', tools.podTemplatePrinter],
  ['/ComponentStatus', tools.componentStatusPrinter],
  ['node.k8s.io/RuntimeClass', tools.runtimeClassPrinter],
  ['flowcontrol.apiserver.k8s.io/FlowSchema', tools.flowSchemaPrinter],
  ['flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', tools.priorityLevelConfigurationPrinter],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', tools.webhookConfigurationPrinter],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', tools.webhookConfigurationPrinter],
  ['storage.k8s.io/CSIDriver', tools.csiDriverPrinter],
  ['storage.k8s.io/CSINode', tools.csiNodePrinter],
  ['storage.k8s.io/VolumeAttachment', tools.volumeAttachmentPrinter],
  ['storage.k8s.io/CSIStorageCapacity', tools.csiStorageCapacityPrinter],
  ['storage.k8s.io/VolumeAttributesClass', tools.volumeAttributesClassPrinter],
  ['networking.k8s.io/IPAddress', tools.ipAddressPrinter],
  ['networking.k8s.io/ServiceCIDR', tools.serviceCIDRPrinter],
  ['resource.k8s.io/DeviceClass', tools.nameAgePrinter],
  ['resource.k8s.io/ResourceClaim', tools.resourceClaimPrinter],
  ['resource.k8s.io/ResourceClaimTemplate', tools.nameAgePrinter],
  ['resource.k8s.io/ResourceSlice', tools.resourceSlicePrinter],
  ['apiregistration.k8s.io/APIService', tools.apiServicePrinter],
]);

/** The printer kube uses for a kind; the default Name / Created At table when it has none (Role, LimitRange...). */
export function printerFor(rt: Pick<ResourceType, 'group' | 'kind'>): Printer {
  return PRINTERS.get(`${rt.group}/${rt.kind}`) ?? customResourcePrinter(rt) ?? defaultPrinter;
}

/** What each row embeds: kube's includeObject query parameter (default Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Options for {@link tableFor}. */
export interface TableOptions {
  /** The clock every age and duration is measured against. */
  now: Date;
  includeObject: IncludeObject;
  /**
   * The list's metadata (resourceVersion, continue, remainingItemCount). For a
   * single-object GET pass the object's resourceVersion, as kube does.
   */
  listMeta?: TableListMeta;
}

/**
 * The meta.k8s.io/v1 Table for `objects` of kind `rt` (one object for a GET
 * or a watch event, the items for a list), with kube's columns and cells.
 */
export function tableFor(rt: ResourceType, objects: PrintableObject[], opts: TableOptions): Table {
  const printer = printerFor(rt);
  const ctx = { now: opts.now };
  const rows: TableRow[] = objects.map((obj) => {
    const printed = printer.row(obj, ctx);
    const row: TableRow = { cells: printed.cells };
    if (printed.conditions && printed.conditions.length > 0) row.conditions = printed.conditions.map((c) => ({ ...c }));
    const embedded = embed(rt, obj, opts.includeObject);
    if (embedded !== undefined) row.object = embedded;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMetadata(opts.listMeta),
    columnDefinitions: printer.columns.map((c) => ({ ...c })),
    rows,
  };
}

function embed(rt: ResourceType, obj: PrintableObject | null | undefined, include: IncludeObject): unknown {
  switch (include) {
    case 'None':
      return undefined;
    case 'Object':
      return { kind: rt.kind, apiVersion: apiVersionOf(rt), ...obj };
    default:
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj?.metadata ?? {} };
  }
}

/** ListMeta as kube serialises it: empty fields left out. */
function listMetadata(meta: TableListMeta | undefined): TableListMeta {
  const out: TableListMeta = {};
  if (meta?.resourceVersion) out.resourceVersion = meta.resourceVersion;
  if (meta?.continue) out.continue = meta.continue;
  if (meta?.remainingItemCount !== undefined && meta.remainingItemCount !== null) out.remainingItemCount = meta.remainingItemCount;
  return out;
}
