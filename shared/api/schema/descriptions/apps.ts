// apps/v1: Deployment, ReplicaSet, StatefulSet, DaemonSet, with their
// strategies and statuses.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const selector =
  'Which pods belong to this workload, by label. It must match the labels of the pod template and cannot be changed after creation.';
const minReadySeconds =
  'How many seconds a new pod must stay ready, without a container crashing, before it counts as available. Defaults to 0 (available as soon as it is ready).';
const revisionHistoryLimit = 'How many old revisions to keep for rollbacks (`kubectl rollout undo`). Defaults to 10.';
const observedGeneration = 'The metadata.generation the controller last acted on; when it is behind, the status may be out of date.';
const collisionCount = 'A counter the controller bumps to make a new name when its revision name hash collides with an existing one.';
const maxUnavailable = (what: string): string =>
  `How many ${what} may be unavailable during the update, as a number or a percentage of the desired count (rounded down).`;

export const apps: GroupTable = {
  prefix: 'io.k8s.api.apps.v1',
  types: {
    Deployment: {
      spec: 'The desired state: the pod template, how many replicas, and how updates are rolled out.',
      status: 'How far the current rollout has got: replica counts by kind and conditions.',
    },
    DeploymentSpec: {
      $: 'The desired state of a Deployment. It runs its pods through one ReplicaSet per template revision.',
      replicas: 'How many pods to run. Defaults to 1. `kubectl scale` and autoscalers change it.',
      selector,
      template: 'The pod to run. Changing it (image, env, ...) makes a new ReplicaSet and rolls pods over to it according to strategy.',
      strategy: 'How pods of the old revision are replaced: RollingUpdate (gradually, the default) or Recreate.',
      minReadySeconds,
      revisionHistoryLimit,
      paused: 'When true, template changes do not start a rollout until it is resumed (`kubectl rollout pause/resume`). Defaults to false.',
      progressDeadlineSeconds:
        'How many seconds a rollout may go without progress before the Progressing condition turns False with ProgressDeadlineExceeded (it keeps trying). Defaults to 600.',
    },
    DeploymentStrategy: {
      $: 'How a Deployment replaces old pods with new ones.',
      type: 'RollingUpdate (replace pods a few at a time, keeping the service up, the default) or Recreate (delete all old pods, then create the new ones).',
      rollingUpdate: 'Limits of a rolling update: how far below and above the desired count it may go. Only with type RollingUpdate.',
    },
    RollingUpdateDeployment: {
      $: 'The pace of a rolling update.',
      maxUnavailable: `${maxUnavailable('pods')} Defaults to 25%. Cannot be 0 when maxSurge is 0.`,
      maxSurge:
        'How many pods may be created above the desired count during the update, as a number or a percentage (rounded up). Defaults to 25%.',
    },
    DeploymentStatus: {
      $: 'The observed state of a Deployment.',
      observedGeneration,
      replicas: 'Pods of all revisions that the Deployment currently owns (not counting terminating ones).',
      updatedReplicas: 'Pods that run the current template.',
      readyReplicas: 'Pods that are Ready.',
      availableReplicas: 'Pods that have been ready for at least minReadySeconds.',
      unavailableReplicas: 'How many more pods must become available to reach the desired count.',
      terminatingReplicas: 'Pods that are shutting down (have a deletionTimestamp).',
      conditions: 'Available (enough pods are available) and Progressing (the rollout moves, finished, or is stuck).',
      collisionCount,
    },
    DeploymentCondition: conditionFields('deployment', 'Available, Progressing, ReplicaFailure', {
      lastUpdateTime: 'When the condition was last written, even without a status change.',
    }),
    ReplicaSet: {
      spec: 'The desired number of pods and the template to make them from.',
      status: 'How many pods exist, are ready and available.',
    },
    ReplicaSetSpec: {
      $: 'The desired state of a ReplicaSet: keep this many pods matching the selector.',
      replicas: 'How many pods to keep running. Defaults to 1.',
      selector,
      template: 'The pod to create when too few match. Changing it does not touch existing pods (that is what Deployments do).',
      minReadySeconds,
    },
    ReplicaSetStatus: {
      $: 'The observed state of a ReplicaSet.',
      replicas: 'Pods the ReplicaSet currently owns.',
      fullyLabeledReplicas: "Pods whose labels match the template's labels.",
      readyReplicas: 'Pods that are Ready.',
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      terminatingReplicas: 'Pods that are shutting down.',
      observedGeneration,
      conditions: 'Observations, e.g. ReplicaFailure when pods cannot be created (quota, admission).',
    },
    ReplicaSetCondition: conditionFields('replica set', 'ReplicaFailure'),
    StatefulSet: {
      spec: 'The pods to run, each with a stable name (<name>-0, <name>-1, ...), its own storage and an ordered rollout.',
      status: 'How many pods exist, are ready and run the current revision.',
    },
    StatefulSetSpec: {
      $: 'The desired state of a StatefulSet.',
      replicas: 'How many pods to run. Defaults to 1.',
      selector,
      template: 'The pod to run. Each pod gets the name <statefulset>-<ordinal> and keeps it across restarts.',
      volumeClaimTemplates:
        'Claims made once per pod (named <template>-<statefulset>-<ordinal>) and mounted as volumes of the same name; they survive pod restarts and, by default, scaling down.',
      serviceName: 'The headless Service that gives each pod a DNS name, <pod>.<serviceName>.<namespace>.svc. You create that Service.',
      podManagementPolicy:
        'OrderedReady (the default: create pods one at a time in ordinal order, each waiting for the previous to be ready, and remove them in reverse) or Parallel (all at once). It does not affect updates.',
      updateStrategy: 'How pods are updated when the template changes: RollingUpdate (the default) or OnDelete.',
      revisionHistoryLimit,
      minReadySeconds,
      persistentVolumeClaimRetentionPolicy:
        'Whether the per-pod claims are deleted when the StatefulSet is deleted or scaled down. By default they are kept.',
      ordinals: 'The numbering of the pods, when it should not start at 0.',
    },
    StatefulSetUpdateStrategy: {
      $: 'How a StatefulSet updates its pods.',
      type: 'RollingUpdate (replace pods one by one from the highest ordinal down, each after the previous is ready, the default) or OnDelete (only when you delete a pod).',
      rollingUpdate: 'Settings of a rolling update (partition, maxUnavailable).',
    },
    RollingUpdateStatefulSetStrategy: {
      $: 'Settings of a StatefulSet rolling update.',
      partition:
        'Only pods with an ordinal of at least this number are updated; lower ones keep the old revision. Used for staged rollouts. Defaults to 0.',
      maxUnavailable: `${maxUnavailable('pods')} Defaults to 1. Only honoured where the MaxUnavailableStatefulSet feature gate is on.`,
    },
    StatefulSetPersistentVolumeClaimRetentionPolicy: {
      $: 'What happens to the claims of volumeClaimTemplates.',
      whenDeleted: 'When the StatefulSet is deleted: Retain (keep the claims, the default) or Delete.',
      whenScaled: 'When it is scaled down, for the claims of removed pods: Retain (the default) or Delete.',
    },
    StatefulSetOrdinals: {
      $: "The numbering of a StatefulSet's pods.",
      start: 'The ordinal of the first pod: pods are numbered start to start+replicas-1. Defaults to 0.',
    },
    StatefulSetStatus: {
      $: 'The observed state of a StatefulSet.',
      observedGeneration,
      replicas: 'Pods the StatefulSet currently has.',
      readyReplicas: 'Pods that are Ready.',
      currentReplicas: 'Pods running the currentRevision.',
      updatedReplicas: 'Pods running the updateRevision.',
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      currentRevision: 'The ControllerRevision name of the revision the pods ran before the current update.',
      updateRevision: 'The ControllerRevision name of the revision being rolled out (the current template).',
      collisionCount,
      conditions: 'Observations about the StatefulSet.',
    },
    StatefulSetCondition: conditionFields('stateful set'),
    DaemonSet: {
      spec: 'The pod to run on each eligible node, and how updates are rolled out.',
      status: 'On how many nodes the pod should run, runs, is ready and up to date.',
    },
    DaemonSetSpec: {
      $: "The desired state of a DaemonSet: one pod on every node the template's nodeSelector, affinity and tolerations allow.",
      selector,
      template: 'The pod to run on each node. It must have restartPolicy Always.',
      updateStrategy: 'How pods are replaced when the template changes: RollingUpdate (the default) or OnDelete.',
      minReadySeconds,
      revisionHistoryLimit,
    },
    DaemonSetUpdateStrategy: {
      $: 'How a DaemonSet updates its pods.',
      type: 'RollingUpdate (replace pods node by node, the default) or OnDelete (only when you delete a pod).',
      rollingUpdate: 'Limits of a rolling update. Only with type RollingUpdate.',
    },
    RollingUpdateDaemonSet: {
      $: 'The pace of a DaemonSet rolling update.',
      maxUnavailable: `${maxUnavailable("of the DaemonSet's pods")} Defaults to 1.`,
      maxSurge:
        'How many nodes may run the new pod beside the old one during the update, as a number or percentage, so that the node is never without one. Defaults to 0. maxSurge and maxUnavailable cannot both be 0.',
    },
    DaemonSetStatus: {
      $: 'The observed state of a DaemonSet.',
      desiredNumberScheduled: 'Nodes that should run the pod.',
      currentNumberScheduled: 'Nodes that run at least one pod of the DaemonSet and should.',
      numberMisscheduled: 'Nodes that run the pod but should not.',
      numberReady: 'Nodes whose pod is Ready.',
      numberAvailable: 'Nodes whose pod has been ready for at least minReadySeconds.',
      numberUnavailable: 'Nodes that should run the pod but have none available.',
      updatedNumberScheduled: 'Nodes that run the pod of the current template.',
      observedGeneration,
      collisionCount,
      conditions: 'Observations about the DaemonSet.',
    },
    DaemonSetCondition: conditionFields('daemon set'),
  },
};
