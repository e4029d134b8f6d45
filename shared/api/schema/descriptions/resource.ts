// resource.k8s.io/v1: dynamic resource allocation (DRA). Drivers publish the
// devices of nodes in ResourceSlices; pods ask for devices with
// ResourceClaims, which the scheduler allocates.
import type { GroupTable } from './types.ts';

const selectors = 'CEL selectors a device must satisfy, all of them, e.g. device.attributes["example.com"].memory >= quantity("8Gi").';
const tolerations = 'Device taints the request tolerates, as pod tolerations do for node taints.';
const allocationMode = 'ExactCount (the default: count devices) or All (every matching device, e.g. all GPUs of a node).';
const count = 'With ExactCount: how many devices. Defaults to 1.';
const adminAccess =
  'Ask for admin access: the devices are given even if in use, for monitoring or maintenance. Needs an admin-access namespace.';
const capacityRequest = 'For devices shared between claims: how much of each capacity of the device this request takes.';
const opaqueConfig = 'Driver-specific configuration, passed to the driver as it is.';
const configRequests = 'The requests the configuration applies to; empty means all of them.';
const nodeSelector = 'The nodes that can use the devices.';
const bindingConditions =
  "Conditions that must become True on the claim's device status before the pod is bound, for devices prepared on demand.";
const bindingFailureConditions = 'Conditions that, once True, make the scheduler give up on the device and try again.';

export const resourceDra: GroupTable = {
  prefix: 'io.k8s.api.resource.v1',
  types: {
    ResourceClaim: { spec: 'The devices asked for.', status: 'Whether and how they were allocated, and who uses them.' },
    ResourceClaimSpec: { $: 'What a claim asks for.', devices: 'The device requests, constraints between them, and configuration.' },
    DeviceClaim: {
      $: 'Devices asked for by a claim.',
      requests: 'The requests; all must be satisfied.',
      constraints: 'Constraints across requests, e.g. the devices must share a PCIe root.',
      config: 'Configuration for the devices of some requests.',
    },
    DeviceRequest: {
      $: 'One request for devices: exactly, or the first of several alternatives that can be satisfied.',
      name: "The request's name, used in constraints, configuration and container resources.claims.",
      exactly: 'A request that must be met as written.',
      firstAvailable: 'Alternatives in order of preference; the first that can be allocated is used.',
    },
    ExactDeviceRequest: {
      $: 'Devices of one class, filtered by selectors.',
      deviceClassName: 'The DeviceClass the devices come from. Required.',
      selectors,
      allocationMode,
      count,
      adminAccess,
      tolerations,
      capacity: capacityRequest,
    },
    DeviceSubRequest: {
      $: 'One alternative of a firstAvailable request.',
      name: "The alternative's name; results name it as <request>/<alternative>.",
      deviceClassName: 'The DeviceClass the devices come from. Required.',
      selectors,
      allocationMode,
      count,
      tolerations,
      capacity: capacityRequest,
    },
    CapacityRequirements: { $: 'Capacity asked for from a shared device.', requests: 'The amount of each capacity, e.g. {memory: 4Gi}.' },
    DeviceSelector: { $: 'A device filter.', cel: 'A CEL expression over the device.' },
    CELDeviceSelector: {
      $: 'A CEL expression that decides whether a device fits.',
      expression: 'An expression over device.driver, device.attributes and device.capacity that returns a boolean.',
    },
    DeviceConstraint: {
      $: 'A constraint on the devices of several requests.',
      requests: 'The requests it applies to; empty means all.',
      matchAttribute: 'An attribute all the devices must have with the same value, e.g. a NUMA node.',
      distinctAttribute: 'An attribute whose value must differ between all the devices.',
    },
    DeviceClaimConfiguration: { $: 'Configuration for some requests of a claim.', requests: configRequests, opaque: opaqueConfig },
    OpaqueDeviceConfiguration: {
      $: 'Configuration only the driver understands.',
      driver: 'The driver it is for; other drivers ignore it.',
      parameters: 'The configuration, any JSON object the driver accepts.',
    },
    DeviceToleration: {
      $: 'Tolerates a device taint.',
      key: 'The taint key; empty with Exists tolerates every taint.',
      operator: 'Equal (the default) or Exists.',
      value: 'The taint value to match with Equal.',
      effect: 'NoSchedule, NoExecute, or empty for all effects.',
      tolerationSeconds: 'For NoExecute: how long the claim may keep the device after the taint appears.',
    },
    ResourceClaimStatus: {
      $: 'The state of a claim.',
      allocation: 'The devices allocated, once the claim is allocated.',
      reservedFor: 'The pods (or other consumers) using the claim; it cannot be deallocated while any remain.',
      devices: 'What the drivers report about each allocated device, e.g. network addresses.',
    },
    AllocationResult: {
      $: 'How a claim was allocated.',
      devices: 'The devices and configuration.',
      nodeSelector: 'The nodes where the devices can be used; pods using the claim go there.',
      allocationTimestamp: 'When the allocation was made.',
    },
    DeviceAllocationResult: {
      $: 'The devices allocated to a claim.',
      results: 'One entry per allocated device.',
      config: 'The configuration of the claim and its classes, combined.',
    },
    DeviceRequestAllocationResult: {
      $: 'One device allocated for a request.',
      request: 'The request (or request/alternative) it was allocated for.',
      driver: 'The driver of the device.',
      pool: 'The pool the device is in.',
      device: "The device's name in the pool.",
      adminAccess: 'Whether it was given with admin access.',
      tolerations: 'The taints tolerated.',
      bindingConditions,
      bindingFailureConditions,
      shareID: 'Tells apart allocations of one shared device.',
      consumedCapacity: 'The capacity of a shared device this allocation takes.',
    },
    DeviceAllocationConfiguration: {
      $: 'Configuration of allocated devices.',
      source: 'Where it came from: FromClass or FromClaim.',
      requests: configRequests,
      opaque: opaqueConfig,
    },
    AllocatedDeviceStatus: {
      $: 'What a driver reports about one allocated device.',
      driver: 'The driver.',
      pool: 'The pool.',
      device: 'The device.',
      shareID: 'Which allocation of a shared device.',
      conditions: 'The state of the device, e.g. Ready.',
      data: 'Driver-specific data about the device.',
      networkData: 'Network details of a network device.',
    },
    NetworkDeviceData: {
      $: 'Network details of a device.',
      interfaceName: 'The interface name in the pod.',
      ips: 'The addresses, in CIDR notation.',
      hardwareAddress: 'The MAC address.',
    },
    ResourceClaimConsumerReference: {
      $: 'A user of a claim.',
      apiGroup: 'Its API group; empty for the core group.',
      resource: 'Its resource, e.g. pods.',
      name: 'Its name.',
      uid: 'Its uid.',
    },
    ResourceClaimTemplate: { spec: 'The claim made for each pod that refers to the template.' },
    ResourceClaimTemplateSpec: {
      $: 'A claim to create per pod.',
      metadata: 'Labels and annotations for the claims made.',
      spec: 'The spec of the claims made.',
    },
    DeviceClass: { spec: 'Which devices belong to the class and their shared configuration.' },
    DeviceClassSpec: {
      $: 'A class of devices claims can ask for.',
      selectors: 'CEL selectors every device of the class satisfies.',
      config: 'Configuration given to every device allocated from the class.',
      extendedResourceName:
        'An extended resource name (such as example.com/gpu) pods can ask for in resources to get a device of this class.',
    },
    DeviceClassConfiguration: { $: 'Configuration of a device class.', opaque: opaqueConfig },
    ResourceSlice: { spec: 'Devices a driver publishes, for one node or a set of nodes.' },
    ResourceSliceSpec: {
      $: "A part of a driver's pool of devices.",
      driver: 'The driver that publishes the devices.',
      pool: 'The pool the slice belongs to.',
      nodeName: 'The node the devices are on. Set this, nodeSelector, allNodes or perDeviceNodeSelection.',
      nodeSelector,
      allNodes: 'The devices can be used from every node.',
      perDeviceNodeSelection: 'Each device says itself where it can be used.',
      devices: 'The devices.',
      sharedCounters: 'Counters several devices draw from, e.g. memory of a GPU split into partitions.',
    },
    ResourcePool: {
      $: 'A pool of devices, published in one or more slices.',
      name: "The pool's name, often the node name.",
      generation: 'Increased when the pool changes; slices of older generations are ignored.',
      resourceSliceCount: 'How many slices the pool has in this generation.',
    },
    Device: {
      $: 'One device a driver offers.',
      name: "The device's name, unique in the pool.",
      attributes: 'Facts about the device (strings, numbers, booleans, versions) that selectors can test.',
      capacity: 'Amounts the device has, such as memory.',
      consumesCounters: 'Shared counters allocating this device uses up.',
      nodeName: 'With perDeviceNodeSelection: the node the device is on.',
      nodeSelector: 'With perDeviceNodeSelection: the nodes that can use the device.',
      allNodes: 'With perDeviceNodeSelection: every node can use the device.',
      taints: 'Taints of the device; only claims that tolerate them get it.',
      bindsToNode: 'The allocation ties the pod to one node, even if the device can be reached from several.',
      bindingConditions,
      bindingFailureConditions,
      allowMultipleAllocations: 'The device can be shared by several claims at once, each taking part of its capacity.',
    },
    DeviceAttribute: {
      $: 'The value of a device attribute; exactly one field is set.',
      int: 'A number.',
      bool: 'A boolean.',
      string: 'A string.',
      version: 'A semantic version, e.g. 1.2.0.',
    },
    DeviceCapacity: {
      $: 'An amount a device has.',
      value: 'The total amount.',
      requestPolicy: 'For shared devices: what amounts a claim may ask for.',
    },
    CapacityRequestPolicy: {
      $: 'The amounts of a capacity a claim may take from a shared device.',
      default: 'The amount taken when the claim does not say.',
      validValues: 'The only amounts allowed.',
      validRange: 'A range of allowed amounts.',
    },
    CapacityRequestPolicyRange: {
      $: 'A range of amounts.',
      min: 'The least amount.',
      max: 'The most amount.',
      step: 'Amounts go up from min in steps of this size.',
    },
    CounterSet: { $: 'A set of counters devices share.', name: "The set's name.", counters: 'The counters and their totals.' },
    Counter: { $: 'An amount of a shared counter.', value: 'The amount.' },
    DeviceCounterConsumption: {
      $: 'What a device takes from a counter set.',
      counterSet: 'The counter set.',
      counters: 'How much of each counter.',
    },
    DeviceTaint: {
      $: 'A taint of a device.',
      key: 'The taint key.',
      value: 'The taint value.',
      effect: 'NoSchedule (not allocated to new claims) or NoExecute (also taken from pods using it).',
      timeAdded: 'When the taint was added.',
    },
  },
};
