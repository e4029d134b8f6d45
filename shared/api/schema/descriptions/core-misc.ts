// core/v1 kinds a learner sees less often: ReplicationController (the older
// ReplicaSet), Endpoints (superseded by EndpointSlice), Event and Binding.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const endpointPort = {
  $: 'A port the endpoints serve on.',
  name: 'The name of the port, matching the name of the Service port.',
  port: "The port number on the endpoint's address.",
  protocol: 'TCP (the default), UDP or SCTP.',
  appProtocol: 'The application protocol, copied from the Service port.',
};

export const coreMisc: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    ReplicationController: {
      spec: 'The desired number of pods, their selector and template.',
      status: 'How many pods exist, are ready and available.',
    },
    ReplicationControllerSpec: {
      $: 'The desired state of a ReplicationController: keep this many pods matching the selector.',
      replicas: 'How many pods to keep running. Defaults to 1.',
      selector: "Labels the pods must have (equality only, unlike a ReplicaSet's selector). Defaults to the template's labels.",
      template: 'The pod to create when too few match. Changing it does not touch existing pods.',
      minReadySeconds: 'How many seconds a new pod must stay ready before it counts as available. Defaults to 0.',
    },
    ReplicationControllerStatus: {
      $: 'The observed state of a ReplicationController.',
      replicas: 'Pods the controller currently owns.',
      fullyLabeledReplicas: "Pods whose labels match the template's labels.",
      readyReplicas: 'Pods that are Ready.',
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      observedGeneration: 'The metadata.generation the controller last acted on.',
      conditions: 'Observations, e.g. ReplicaFailure when pods cannot be created.',
    },
    ReplicationControllerCondition: conditionFields('replication controller', 'ReplicaFailure'),
    Endpoints: {
      subsets: 'The addresses and ports that serve the Service, grouped so that every address in a subset has every port in it.',
    },
    EndpointSubset: {
      $: 'A group of addresses that all serve the same ports.',
      addresses: 'Addresses that are ready to receive traffic.',
      notReadyAddresses: 'Addresses of pods that are not ready yet (or are shutting down): known, but not sent traffic.',
      ports: 'The ports every address of the subset serves.',
    },
    EndpointAddress: {
      $: 'One address serving a Service.',
      ip: 'The IP address, usually a pod IP.',
      hostname: "The hostname of the endpoint, e.g. the pod's spec.hostname, for DNS records of headless Services.",
      nodeName: 'The node the endpoint is on.',
      targetRef: 'The object behind the address, usually the pod.',
    },
    EndpointPort: endpointPort,
    Event: {
      involvedObject: 'The object the event is about.',
      reason: 'A short CamelCase word for what happened, e.g. Scheduled, Pulled, BackOff, FailedScheduling.',
      message: 'A human-readable description of what happened.',
      type: 'Normal (something worth knowing) or Warning (something that may need attention).',
      source: 'The component and host that reported the event (older clients).',
      firstTimestamp: 'When the event was first seen (older clients).',
      lastTimestamp: 'When the event was last seen (older clients).',
      count: 'How many times the same event has been seen (older clients merge repeats into one Event).',
      eventTime: 'When the event happened, with microseconds (newer clients).',
      series: 'For an event seen again and again: how often and when last (newer clients).',
      action: 'What the reporter did or failed to do, e.g. Scheduling or Binding.',
      related: 'A second object involved, e.g. the node a pod was scheduled to.',
      reportingComponent: 'The component that reported the event, e.g. kubelet or default-scheduler.',
      reportingInstance: 'Which instance of that component reported it, e.g. the node name.',
    },
    EventSource: {
      $: 'Who reported an event.',
      component: 'The reporting component, e.g. kubelet.',
      host: 'The node the component runs on.',
    },
    EventSeries: {
      $: 'A repeated event: how often and when last.',
      count: 'How many times the event has happened so far.',
      lastObservedTime: 'When it last happened.',
    },
    Binding: {
      target: 'The node to put the pod on (kind Node and its name). The scheduler creates Bindings through the pods/binding subresource.',
    },
  },
};
