// kube's replication controller: the ReplicaSet controller run on
// ReplicationControllers through the adapter in adapter.ts (owner references
// v1/ReplicationController, events as the replication-controller source).
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { replicaSetKindController } from '../replicaset/controller.ts';
import { replicaSetOf } from './adapter.ts';

const replicationcontrollers = findResource('', 'v1', 'replicationcontrollers')!;

/** Builds the replication controller. */
export function replicationControllerController(ctx: ControllerContext): ControllerParts {
  return replicaSetKindController<ReplicationController>(ctx, {
    name: 'replicationcontroller',
    resource: replicationcontrollers,
    apiVersion: 'v1',
    kind: 'ReplicationController',
    asReplicaSet: replicaSetOf,
  });
}
