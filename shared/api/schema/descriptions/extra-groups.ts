// Kinds outside the learner set that kubectl users still meet: EndpointSlice,
// events.k8s.io Event, Lease, PriorityClass, ControllerRevision, Eviction and
// autoscaling/v1 (HorizontalPodAutoscaler v1 and the Scale subresource).
import type { GroupTable } from './types.ts';

const crossVersionRef = {
  $: 'An object to scale, by kind and name.',
  apiVersion: 'The API version of the object, e.g. apps/v1.',
  kind: 'The kind of the object, e.g. Deployment.',
  name: 'The name of the object.',
};

export const discovery: GroupTable = {
  prefix: 'io.k8s.api.discovery.v1',
  types: {
    EndpointSlice: {
      addressType: 'The kind of addresses in the slice: IPv4, IPv6 or FQDN. Cannot be changed.',
      endpoints: 'The endpoints of the slice (at most 1000), usually one per pod behind the Service.',
      ports: 'The ports every endpoint in the slice serves. Empty with no Service ports means all ports.',
    },
    Endpoint: {
      $: 'One endpoint of a Service, usually a pod.',
      addresses: "The endpoint's addresses, of the slice's addressType. Only the first is used by most proxies.",
      conditions: 'Whether the endpoint is ready, serving and terminating.',
      hostname: 'The hostname of the endpoint, for DNS records of headless Services.',
      targetRef: 'The object behind the endpoint, usually the pod.',
      nodeName: 'The node the endpoint is on.',
      zone: 'The zone the endpoint is in.',
      hints: 'Routing hints for proxies, such as the zones this endpoint should serve.',
      deprecatedTopology: "Deprecated: topology labels of the endpoint's node; use nodeName and zone.",
    },
    EndpointConditions: {
      $: 'The state of an endpoint.',
      ready: 'The endpoint should get traffic: its pod is ready and not terminating (or the Service publishes unready addresses).',
      serving: 'The pod passes its readiness checks, whether or not it is terminating.',
      terminating: 'The pod is shutting down.',
    },
    EndpointHints: {
      $: 'Hints for proxies on which clients an endpoint should serve.',
      forZones: 'The zones whose clients should use this endpoint.',
      forNodes: 'The nodes whose clients should use this endpoint.',
    },
    ForZone: { $: 'A zone, in a routing hint.', name: "The zone's name." },
    ForNode: { $: 'A node, in a routing hint.', name: "The node's name." },
    EndpointPort: {
      $: 'A port endpoints of a slice serve.',
      name: "The name of the port, matching the Service port's name.",
      port: 'The port number on the endpoints.',
      protocol: 'TCP (the default), UDP or SCTP.',
      appProtocol: 'The application protocol, copied from the Service port.',
    },
  },
};

export const events: GroupTable = {
  prefix: 'io.k8s.api.events.v1',
  types: {
    Event: {
      regarding: 'The object the event is about.',
      related: 'A second object involved, e.g. the node a pod was scheduled to.',
      reason: 'A short CamelCase word for what happened, e.g. Scheduled or BackOff.',
      note: 'A human-readable description of what happened (at most 1 KiB).',
      type: 'Normal or Warning.',
      action: 'What the reporter did or failed to do, e.g. Scheduling.',
      eventTime: 'When the event first happened, with microseconds.',
      series: 'For an event seen again and again: how often and when last.',
      reportingController: 'The controller that reported the event, e.g. kubernetes.io/kubelet.',
      reportingInstance: 'Which instance of that controller reported it.',
      deprecatedSource: 'The source as older clients wrote it (core/v1 Event source).',
      deprecatedFirstTimestamp: 'The first time as older clients wrote it.',
      deprecatedLastTimestamp: 'The last time as older clients wrote it.',
      deprecatedCount: 'The repeat count as older clients wrote it.',
    },
    EventSeries: {
      $: 'A repeated event.',
      count: 'How many times it has happened so far.',
      lastObservedTime: 'When it last happened.',
    },
  },
};

export const coordination: GroupTable = {
  prefix: 'io.k8s.api.coordination.v1',
  types: {
    Lease: { spec: 'Who holds the lease, since when and for how long.' },
    LeaseSpec: {
      $: 'The state of a lease, used for leader election and node heartbeats.',
      holderIdentity: 'Who holds the lease, e.g. a controller-manager instance or a node name.',
      leaseDurationSeconds: 'How many seconds after renewTime others must wait before they may take the lease over.',
      acquireTime: 'When the current holder got the lease.',
      renewTime: 'When the holder last renewed the lease.',
      leaseTransitions: 'How many times the lease has changed hands.',
      strategy: 'For coordinated leader election: how the next holder is chosen, e.g. OldestEmulationVersion.',
      preferredHolder: 'For coordinated leader election: the candidate that should take the lease next.',
    },
  },
};

export const scheduling: GroupTable = {
  prefix: 'io.k8s.api.scheduling.v1',
  types: {
    PriorityClass: {
      value:
        'The priority pods of this class get: higher is more important. At most 1000000000 for user classes; larger values are for system classes.',
      globalDefault: 'Make this the class of pods that name none. Only one class may be the global default.',
      description: 'A note for people on when to use this class.',
      preemptionPolicy: 'Whether pods of this class may evict lower-priority pods: PreemptLowerPriority (the default) or Never.',
    },
  },
};

export const appsExtra: GroupTable = {
  prefix: 'io.k8s.api.apps.v1',
  types: {
    ControllerRevision: {
      data: 'The recorded state, e.g. the pod template of a StatefulSet or DaemonSet revision, as a patch.',
      revision: "The revision number, increasing with each change of the template. Rollbacks copy an older revision's data back.",
    },
  },
};

export const policyExtra: GroupTable = {
  prefix: 'io.k8s.api.policy.v1',
  types: {
    Eviction: {
      deleteOptions: 'Options of the pod deletion the eviction makes, such as gracePeriodSeconds.',
    },
  },
};

export const autoscalingV1: GroupTable = {
  prefix: 'io.k8s.api.autoscaling.v1',
  types: {
    HorizontalPodAutoscaler: {
      spec: 'The workload to scale, its replica bounds and the CPU target (autoscaling/v2 offers more metrics).',
      status: 'The current and desired replica counts and CPU utilisation.',
    },
    HorizontalPodAutoscalerSpec: {
      $: 'The desired behaviour of a CPU-based autoscaler.',
      scaleTargetRef: 'The workload to scale, in the same namespace.',
      minReplicas: 'The fewest replicas to scale down to. Defaults to 1.',
      maxReplicas: 'The most replicas to scale up to. Required.',
      targetCPUUtilizationPercentage: "The average CPU use to aim for, as a percentage of the pods' CPU requests. Defaults to 80.",
    },
    HorizontalPodAutoscalerStatus: {
      $: 'The observed state of a CPU-based autoscaler.',
      observedGeneration: 'The metadata.generation the autoscaler last acted on.',
      lastScaleTime: 'When it last changed the replica count.',
      currentReplicas: 'The replicas the workload had when last checked.',
      desiredReplicas: 'The replicas the autoscaler last computed.',
      currentCPUUtilizationPercentage: 'The average CPU use observed, as a percentage of the requests.',
    },
    CrossVersionObjectReference: crossVersionRef,
    Scale: {
      spec: 'The desired replica count.',
      status: 'The current replica count and the label selector of the pods.',
    },
    ScaleSpec: { $: 'The desired size of a scalable object.', replicas: 'How many replicas should run. `kubectl scale` writes this.' },
    ScaleStatus: {
      $: 'The observed size of a scalable object.',
      replicas: 'How many replicas run now.',
      selector: 'The label selector of the pods, as a string (e.g. "app=web"), which autoscalers use to find them.',
    },
  },
};
