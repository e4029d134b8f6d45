// Workload printers: Deployment (Ready "2/3", Up-to-date, Available),
// ReplicaSet, DaemonSet, StatefulSet and (core/v1) ReplicationController,
// each with the wide Containers / Images (/ Selector) columns.
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { since } from './duration.ts';
import { containerCells, formatLabelSelector, formatLabels, int, selectorString } from './format.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** spec.replicas as stored; kube defaults a missing value to 1. */
const desired = (replicas: number | undefined): number => (replicas === undefined || replicas === null ? 1 : int(replicas));

const age = (o: { metadata?: { creationTimestamp?: string } }, ctx: PrintContext) => since(o.metadata?.creationTimestamp, ctx.now);

const containersColumn = () => wide(column('Containers', 'string', 'Names of the containers in the pod template.'));
const imagesColumn = () => wide(column('Images', 'string', 'Images of the containers in the pod template.'));
const selectorColumn = () => wide(column('Selector', 'string', 'The label selector of the pods it manages.'));

/** Deployment: Name, Ready, Up-to-date, Available, Age; wide Containers, Images, Selector. */
export const deploymentPrinter: Printer<Deployment> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready replicas out of desired replicas.'),
    column('Up-to-date', 'string', 'Replicas running the latest pod template.'),
    column('Available', 'string', 'Replicas available to serve.'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  row(d: Deployment, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    return {
      cells: [
        d.metadata?.name ?? '',
        `${int(d.status?.readyReplicas)}/${desired(d.spec?.replicas)}`,
        int(d.status?.updatedReplicas),
        int(d.status?.availableReplicas),
        age(d, ctx),
        names,
        images,
        selectorString(d.spec?.selector),
      ],
    };
  },
};

/** ReplicaSet: Name, Desired, Current, Ready, Age; wide Containers, Images, Selector. */
export const replicaSetPrinter: Printer<ReplicaSet> = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Desired number of replicas.'),
    column('Current', 'integer', 'Replicas that currently exist.'),
    column('Ready', 'integer', 'Replicas that are ready.'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  row(rs: ReplicaSet, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    return {
      cells: [
        rs.metadata?.name ?? '',
        desired(rs.spec?.replicas),
        int(rs.status?.replicas),
        int(rs.status?.readyReplicas),
        age(rs, ctx),
        names,
        images,
        formatLabelSelector(rs.spec?.selector),
      ],
    };
  },
};

/** ReplicationController: the ReplicaSet's columns, its map selector shown as labels. */
export const replicationControllerPrinter: Printer<ReplicationController> = {
  columns: replicaSetPrinter.columns,
  row(rc: ReplicationController, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(rc.spec?.template?.spec?.containers);
    return {
      cells: [
        rc.metadata?.name ?? '',
        desired(rc.spec?.replicas),
        int(rc.status?.replicas),
        int(rc.status?.readyReplicas),
        age(rc, ctx),
        names,
        images,
        formatLabels(rc.spec?.selector),
      ],
    };
  },
};

/** DaemonSet: Name, Desired, Current, Ready, Up-to-date, Available, Node Selector, Age; wide Containers, Images, Selector. */
export const daemonSetPrinter: Printer<DaemonSet> = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Nodes that should run the daemon pod.'),
    column('Current', 'integer', 'Nodes running at least one daemon pod.'),
    column('Ready', 'integer', 'Nodes whose daemon pod is ready.'),
    column('Up-to-date', 'integer', 'Nodes running the latest daemon pod.'),
    column('Available', 'integer', 'Nodes whose daemon pod is available.'),
    column('Node Selector', 'string', 'The node selector of the pod template.'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(),
  ],
  row(ds: DaemonSet, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(ds.spec?.template?.spec?.containers);
    const s = ds.status;
    return {
      cells: [
        ds.metadata?.name ?? '',
        int(s?.desiredNumberScheduled),
        int(s?.currentNumberScheduled),
        int(s?.numberReady),
        int(s?.updatedNumberScheduled),
        int(s?.numberAvailable),
        formatLabels(ds.spec?.template?.spec?.nodeSelector),
        age(ds, ctx),
        names,
        images,
        formatLabelSelector(ds.spec?.selector),
      ],
    };
  },
};

/** StatefulSet: Name, Ready, Age; wide Containers, Images. */
export const statefulSetPrinter: Printer<StatefulSet> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready replicas out of desired replicas.'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
  ],
  row(ss: StatefulSet, ctx: PrintContext): PrintedRow {
    const [names, images] = containerCells(ss.spec?.template?.spec?.containers);
    return {
      cells: [ss.metadata?.name ?? '', `${int(ss.status?.readyReplicas)}/${desired(ss.spec?.replicas)}`, age(ss, ctx), names, images],
    };
  },
};
