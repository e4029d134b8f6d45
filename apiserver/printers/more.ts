// Printers for the kinds served beside the core workloads: EndpointSlice
// (AddressType, Ports, Endpoints), PriorityClass (Value, Global-Default,
// PreemptionPolicy) and ControllerRevision (Controller, Revision).
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { since } from './duration.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

const MAX_SHOWN = 3;

/** kube's formatEndpointSlices: the first three addresses, then "+ N more...". */
function sliceEndpoints(endpoints: Endpoint[] | undefined): string {
  const addresses = (endpoints ?? []).flatMap((e) => e.addresses ?? []);
  if (addresses.length === 0) return '<none>';
  const shown = addresses.slice(0, MAX_SHOWN).join(',');
  return addresses.length > MAX_SHOWN ? `${shown} + ${addresses.length - MAX_SHOWN} more...` : shown;
}

/** kube's formatDiscoveryPorts: the port numbers, "<unset>" for a port without one. */
function slicePorts(ports: EndpointPort[] | undefined): string {
  if (!ports || ports.length === 0) return '<none>';
  const shown = ports.slice(0, MAX_SHOWN).map((p) => (p.port === undefined || p.port === null ? '<unset>' : String(p.port)));
  return ports.length > MAX_SHOWN ? `${shown.join(',')} + ${ports.length - MAX_SHOWN} more...` : shown.join(',');
}

/** discovery.k8s.io/v1 EndpointSlice: Name, AddressType, Ports, Endpoints, Age. */
export const endpointSlicePrinter: Printer<EndpointSlice> = {
  columns: [
    nameColumn(),
    column('AddressType', 'string', 'The type of address carried by this EndpointSlice.'),
    column('Ports', 'string', 'The ports exposed by this EndpointSlice.'),
    column('Endpoints', 'string', 'The addresses of the endpoints (the first few).'),
    ageColumn(),
  ],
  row(s: EndpointSlice, ctx: PrintContext): PrintedRow {
    return {
      cells: [
        s.metadata?.name ?? '',
        s.addressType ?? '',
        slicePorts(s.ports),
        sliceEndpoints(s.endpoints),
        since(s.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

/** scheduling.k8s.io/v1 PriorityClass: Name, Value, Global-Default, Age, PreemptionPolicy. */
export const priorityClassPrinter: Printer<PriorityClass> = {
  columns: [
    nameColumn(),
    column('Value', 'integer', 'The priority value of Pods that use this class.'),
    column('Global-Default', 'boolean', 'Whether Pods without a class get this one.'),
    ageColumn(),
    column('PreemptionPolicy', 'string', 'Whether Pods of this class may preempt lower-priority Pods.'),
  ],
  row(pc: PriorityClass, ctx: PrintContext): PrintedRow {
    return {
      cells: [
        pc.metadata?.name ?? '',
        pc.value ?? 0,
        pc.globalDefault === true,
        since(pc.metadata?.creationTimestamp, ctx.now),
        pc.preemptionPolicy ?? 'PreemptLowerPriority',
      ],
    };
  },
};

/** apps/v1 ControllerRevision: Name, Controller ("kind.group/name"), Revision, Age. */
export const controllerRevisionPrinter: Printer<ControllerRevision> = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'The controller this revision belongs to.'),
    column('Revision', 'integer', 'The revision number.'),
    ageColumn(),
  ],
  row(cr: ControllerRevision, ctx: PrintContext): PrintedRow {
    const ref = (cr.metadata?.ownerReferences ?? []).find((r) => r.controller);
    const group = ref?.apiVersion?.includes('/') ? ref.apiVersion.split('/')[0] : '';
    const controller = ref ? `${ref.kind.toLowerCase()}${group ? '.' + group : ''}/${ref.name}` : '<none>';
    return { cells: [cr.metadata?.name ?? '', controller, cr.revision ?? 0, since(cr.metadata?.creationTimestamp, ctx.now)] };
  },
};
