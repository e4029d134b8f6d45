// Node printing: Status from the Ready condition (+ SchedulingDisabled),
// Roles from node-role.kubernetes.io/<role> and kubernetes.io/role labels,
// kubelet Version, and the wide address / OS / kernel / runtime columns.
import type { Node } from 'kubernetes-types/core/v1.js';
import { since } from './duration.ts';
import { compareBytes } from '../../shared/labels/requirement.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** findNodeRoles: the sorted, de-duplicated roles named by the node's labels. */
export function nodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX)) {
      const role = k.slice(ROLE_PREFIX.length);
      if (role.length > 0) roles.add(role);
    } else if (k === ROLE_LABEL && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort(compareBytes);
}

/** "Ready", "NotReady" or "Unknown" (no Ready condition), then ",SchedulingDisabled" when cordoned. */
export function nodeStatus(node: Node): string {
  const status: string[] = [];
  // kube keys conditions by type, so the last Ready condition wins.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').pop();
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const address = (node: Node, type: string): string => (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';

/** Node: Name, Status, Roles, Age, Version; wide Internal-IP, External-IP, OS-Image, Kernel-Version, Container-Runtime. */
export const nodePrinter: Printer<Node> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Readiness of the node, and whether scheduling is disabled.'),
    column('Roles', 'string', 'Roles named by node-role.kubernetes.io labels.'),
    ageColumn(),
    column('Version', 'string', 'The kubelet version the node reports.'),
    wide(column('Internal-IP', 'string', 'The first InternalIP address of the node.')),
    wide(column('External-IP', 'string', 'The first ExternalIP address of the node.')),
    wide(column('OS-Image', 'string', 'The OS image the node reports.')),
    wide(column('Kernel-Version', 'string', 'The kernel version the node reports.')),
    wide(column('Container-Runtime', 'string', 'The container runtime and its version.')),
  ],
  row(node: Node, ctx: PrintContext): PrintedRow {
    const info = node.status?.nodeInfo;
    const roles = nodeRoles(node).join(',');
    return {
      cells: [
        node.metadata?.name ?? '',
        nodeStatus(node),
        roles || '<none>',
        since(node.metadata?.creationTimestamp, ctx.now),
        info?.kubeletVersion ?? '',
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        info?.osImage || '<unknown>',
        info?.kernelVersion || '<unknown>',
        info?.containerRuntimeVersion || '<unknown>',
      ],
    };
  },
};
