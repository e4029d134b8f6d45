// Printers, with kube's columns and cells, for the kinds that kubectl, helm
// and cluster-info dump list: PodTemplate, ComponentStatus, RuntimeClass,
// FlowSchema, PriorityLevelConfiguration, the webhook configurations, the CSI
// kinds, VolumeAttachment, VolumeAttributesClass, IPAddress, ServiceCIDR,
// the resource.k8s.io kinds and APIService (kube-aggregator's printer).
import { since } from './duration.ts';
import { containerCells, formatLabels } from './format.ts';
import { canonicalQuantity } from './quantity.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { Cell, PrintContext, PrintableObject, PrintedRow, Printer } from './types.ts';

/** Objects as these printers read them: any field may be missing. */
type Obj = PrintableObject & Record<string, any>;

const name = (o: Obj): string => o.metadata?.name ?? '';
const age = (o: Obj, ctx: PrintContext): string => since(o.metadata?.creationTimestamp, ctx.now);
const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** A printer of Name, the given cells, and Age last. */
function withAge(columns: Printer['columns'], cells: (o: Obj) => Cell[]): Printer<Obj> {
  return {
    columns: [nameColumn(), ...columns, ageColumn()],
    row: (o: Obj, ctx: PrintContext): PrintedRow => ({ cells: [name(o), ...cells(o), age(o, ctx)] }),
  };
}

/** v1 PodTemplate: Name, Containers, Images, Pod Labels (no Age). */
export const podTemplatePrinter: Printer<Obj> = {
  columns: [
    nameColumn(),
    column('Containers', 'string', 'The names of the containers in the template.'),
    column('Images', 'string', 'The images of the containers in the template.'),
    column('Pod Labels', 'string', "The labels of the template's pods."),
  ],
  row(o: Obj): PrintedRow {
    const [containers, images] = containerCells(list(o.template?.spec?.containers));
    return { cells: [name(o), containers, images, formatLabels(o.template?.metadata?.labels)] };
  },
};

/** v1 ComponentStatus: Name, Status (from the Healthy condition), Message, Error. */
export const componentStatusPrinter: Printer<Obj> = {
  columns: [
    nameColumn(),
    column('Status', 'string', "The component's health, from its Healthy condition."),
    column('Message', 'string', 'The message of the Healthy condition.'),
    column('Error', 'string', 'The error of the Healthy condition.'),
  ],
  row(o: Obj): PrintedRow {
    const c = list(o.conditions).find((x) => x?.type === 'Healthy');
    const status = !c ? 'Unknown' : c.status === 'True' ? 'Healthy' : 'Unhealthy';
    return { cells: [name(o), status, c?.message ?? '', c?.error ?? ''] };
  },
};

/** node.k8s.io/v1 RuntimeClass: Name, Handler, Age. */
export const runtimeClassPrinter = withAge([column('Handler', 'string', 'The CRI handler that runs pods of this class.')], (o) => [
  o.handler ?? '',
]);

/** flowcontrol/v1 FlowSchema: Name, PriorityLevel, MatchingPrecedence, DistinguisherMethod, Age, MissingPL. */
export const flowSchemaPrinter: Printer<Obj> = {
  columns: [
    nameColumn(),
    column('PriorityLevel', 'string', 'The priority level matching requests are assigned to.'),
    column('MatchingPrecedence', 'string', 'Lower values are matched first.'),
    column('DistinguisherMethod', 'string', 'How matching requests are split into flows.'),
    ageColumn(),
    column('MissingPL', 'string', 'Whether the referenced priority level is missing (the Dangling condition).'),
  ],
  row(o: Obj, ctx: PrintContext): PrintedRow {
    const spec = o.spec ?? {};
    const dangling = list(o.status?.conditions).find((c) => c?.type === 'Dangling');
    return {
      cells: [
        name(o),
        spec.priorityLevelConfiguration?.name ?? '',
        spec.matchingPrecedence ?? 0,
        spec.distinguisherMethod ? (spec.distinguisherMethod.type ?? '') : '<none>',
        age(o, ctx),
        dangling ? String(dangling.status ?? '') : '?',
      ],
    };
  },
};

/** flowcontrol/v1 PriorityLevelConfiguration: Name, Type, NominalConcurrencyShares, Queues, HandSize, QueueLengthLimit, Age. */
export const priorityLevelConfigurationPrinter: Printer<Obj> = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Exempt or Limited.'),
    column('NominalConcurrencyShares', 'string', "The level's share of the server's concurrency limit."),
    column('Queues', 'string', 'How many queues the level has.'),
    column('HandSize', 'string', 'How many queues each flow is shuffled onto.'),
    column('QueueLengthLimit', 'string', 'How many requests a queue holds.'),
    ageColumn(),
  ],
  row(o: Obj, ctx: PrintContext): PrintedRow {
    const spec = o.spec ?? {};
    let shares: Cell = '<none>';
    let queues: Cell = '<none>';
    let handSize: Cell = '<none>';
    let queueLength: Cell = '<none>';
    if (spec.limited) {
      shares = spec.limited.nominalConcurrencyShares ?? 0;
      const q = spec.limited.limitResponse?.queuing;
      if (q) {
        queues = q.queues ?? 0;
        handSize = q.handSize ?? 0;
        queueLength = q.queueLengthLimit ?? 0;
      }
    }
    return { cells: [name(o), spec.type ?? '', shares, queues, handSize, queueLength, age(o, ctx)] };
  },
};

/** admissionregistration/v1 Validating- and MutatingWebhookConfiguration: Name, Webhooks, Age. */
export const webhookConfigurationPrinter = withAge([column('Webhooks', 'integer', 'How many webhooks the configuration holds.')], (o) => [
  list(o.webhooks).length,
]);

/** storage/v1 CSIDriver: Name, AttachRequired, PodInfoOnMount, StorageCapacity, TokenRequests, RequiresRepublish, Modes, Age. */
export const csiDriverPrinter = withAge(
  [
    column('AttachRequired', 'boolean', 'Whether volumes need an attach step.'),
    column('PodInfoOnMount', 'boolean', 'Whether the driver gets pod information on mount.'),
    column('StorageCapacity', 'boolean', 'Whether the driver reports storage capacity.'),
    column('TokenRequests', 'string', 'Audiences of the service account tokens the driver gets.'),
    column('RequiresRepublish', 'boolean', 'Whether volumes are republished periodically.'),
    column('Modes', 'string', 'The volume lifecycle modes the driver supports.'),
  ],
  (o) => {
    const s = o.spec ?? {};
    const tokens = list(s.tokenRequests);
    const modes = list(s.volumeLifecycleModes).join(',');
    return [
      s.attachRequired ?? true,
      s.podInfoOnMount ?? false,
      s.storageCapacity ?? false,
      tokens.length > 0 ? tokens.map((t) => t?.audience ?? '').join(',') : '<unset>',
      s.requiresRepublish ?? false,
      modes || '<none>',
    ];
  },
);

/** storage/v1 CSINode: Name, Drivers, Age. */
export const csiNodePrinter = withAge([column('Drivers', 'integer', 'How many CSI drivers are registered on the node.')], (o) => [
  list(o.spec?.drivers).length,
]);

/** storage/v1 VolumeAttachment: Name, Attacher, PV, Node, Attached, Age. */
export const volumeAttachmentPrinter = withAge(
  [
    // kube marks this column format "name" too; one name column per table is kept here.
    column('Attacher', 'string', 'The driver that attaches the volume.'),
    column('PV', 'string', 'The persistent volume to attach.'),
    column('Node', 'string', 'The node to attach it to.'),
    column('Attached', 'boolean', 'Whether the attach finished.'),
  ],
  (o) => [o.spec?.attacher ?? '', o.spec?.source?.persistentVolumeName ?? '', o.spec?.nodeName ?? '', o.status?.attached ?? false],
);

/** storage/v1 CSIStorageCapacity: Name, StorageClassName, Capacity (no Age). */
export const csiStorageCapacityPrinter: Printer<Obj> = {
  columns: [
    nameColumn(),
    column('StorageClassName', 'string', 'The storage class the capacity is for.'),
    column('Capacity', 'string', 'The capacity reported.'),
  ],
  row: (o: Obj): PrintedRow => ({
    cells: [name(o), o.storageClassName ?? '', o.capacity === undefined || o.capacity === null ? '<unset>' : canonicalQuantity(o.capacity)],
  }),
};

/** storage/v1 VolumeAttributesClass: Name, DriverName, Age. */
export const volumeAttributesClassPrinter = withAge(
  [column('DriverName', 'string', 'The CSI driver that applies the attributes.')],
  (o) => [o.driverName ?? ''],
);

/** networking/v1 IPAddress: Name, ParentRef (resource.group/namespace/name; no Age). */
export const ipAddressPrinter: Printer<Obj> = {
  columns: [nameColumn(), column('ParentRef', 'string', 'The object the address is allocated to.')],
  row(o: Obj): PrintedRow {
    const ref = o.spec?.parentRef;
    let parent = '<none>';
    if (ref) {
      const gr = ref.group ? `${ref.resource ?? ''}.${ref.group}` : (ref.resource ?? '');
      parent = gr.toLowerCase() + (ref.namespace ? `/${ref.namespace}` : '') + `/${ref.name ?? ''}`;
    }
    return { cells: [name(o), parent] };
  },
};

/** networking/v1 ServiceCIDR: Name, CIDRs, Age. */
export const serviceCIDRPrinter = withAge([column('CIDRs', 'string', 'The address ranges service IPs come from.')], (o) => [
  list(o.spec?.cidrs).join(','),
]);

/** resource/v1 DeviceClass and ResourceClaimTemplate: Name, Age. */
export const nameAgePrinter = withAge([], () => []);

/** resource/v1 ResourceClaim: Name, State, Age. */
export const resourceClaimPrinter = withAge(
  [column('State', 'string', 'A summary of the claim: pending, allocated, reserved, deleted.')],
  (o) => {
    const states: string[] = [];
    const deleting = !!o.metadata?.deletionTimestamp;
    if (deleting) states.push('deleted');
    if (!o.status?.allocation) {
      if (!deleting) states.push('pending');
    } else {
      states.push('allocated');
      if (list(o.status.reservedFor).length > 0) states.push('reserved');
      else if (deleting) states.push('deallocating');
    }
    return [states.join(',')];
  },
);

/** resource/v1 ResourceSlice: Name, Node, Driver, Pool, Age. */
export const resourceSlicePrinter = withAge(
  [
    column('Node', 'string', 'The node whose devices the slice lists.'),
    column('Driver', 'string', 'The driver that publishes the slice.'),
    column('Pool', 'string', 'The pool the devices belong to.'),
  ],
  (o) => [o.spec?.nodeName ?? '', o.spec?.driver ?? '', o.spec?.pool?.name ?? ''],
);

/** apiregistration/v1 APIService: Name, Service, Available, Age. */
export const apiServicePrinter = withAge(
  [
    column('Service', 'string', 'The service that serves the group-version, or Local.'),
    column('Available', 'string', 'The Available condition.'),
  ],
  (o) => {
    const svc = o.spec?.service;
    const c = list(o.status?.conditions).find((x) => x?.type === 'Available');
    let available = 'Unknown';
    if (c) available = c.status === 'True' || !c.reason ? String(c.status ?? '') : `${c.status} (${c.reason})`;
    return [svc ? `${svc.namespace ?? ''}/${svc.name ?? ''}` : 'Local', available];
  },
);
