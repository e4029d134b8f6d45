// Kinds that drivers, controllers and add-ons use rather than learners: the
// CSI objects of storage.k8s.io, IPAddress and ServiceCIDR, PodTemplate,
// ComponentStatus and the aggregator's APIService.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

export const storagePlatform: GroupTable = {
  prefix: 'io.k8s.api.storage.v1',
  types: {
    CSIDriver: { spec: 'How Kubernetes should work with the driver.' },
    CSIDriverSpec: {
      $: "What a CSI driver supports and needs. The CSIDriver's name is the driver's name.",
      attachRequired: 'Whether volumes must be attached to a node (ControllerPublish) before they are mounted. Defaults to true.',
      podInfoOnMount: "Pass the pod's name, namespace, uid and service account to the driver on mount. Defaults to false.",
      volumeLifecycleModes: 'Persistent (volumes from PVs, the default) and/or Ephemeral (inline csi volumes in pod specs).',
      storageCapacity: 'The driver reports capacity with CSIStorageCapacity objects, and the scheduler uses them. Defaults to false.',
      fsGroupPolicy: "Whether volume ownership is changed to the pod's fsGroup: ReadWriteOnceWithFSType (the default), File or None.",
      tokenRequests: 'Service account tokens the kubelet passes to the driver on mount, by audience.',
      requiresRepublish: "Call the driver's mount again periodically, e.g. to refresh tokens. Defaults to false.",
      seLinuxMount: 'The driver can mount with an SELinux context option, which is faster than relabelling every file. Defaults to false.',
      nodeAllocatableUpdatePeriodSeconds:
        'How often, in seconds, the kubelet refreshes the number of volumes the node can still take from this driver.',
      serviceAccountTokenInSecrets: 'Pass the tokens of tokenRequests in the secrets field of the call rather than in volume context.',
    },
    TokenRequest: {
      $: 'A token a CSI driver wants for mounting.',
      audience: 'The audience of the token.',
      expirationSeconds: 'How long the token is valid, in seconds.',
    },
    CSINode: { spec: 'The CSI drivers installed on the node.' },
    CSINodeSpec: { $: 'The CSI drivers of a node.', drivers: 'One entry per driver registered on the node.' },
    CSINodeDriver: {
      $: 'A CSI driver on one node.',
      name: "The driver's name.",
      nodeID: "The driver's own name for the node.",
      topologyKeys: 'The node label keys the driver uses for topology, e.g. topology.kubernetes.io/zone.',
      allocatable: 'How many volumes of this driver the node can hold.',
    },
    VolumeNodeResources: { $: 'Volume limits of a driver on a node.', count: 'The most volumes of this driver the node can use at once.' },
    CSIStorageCapacity: {
      storageClassName: 'The StorageClass the capacity applies to.',
      nodeTopology: 'Which nodes can reach this storage.',
      capacity: 'How much space is free for new volumes.',
      maximumVolumeSize: 'The largest single volume that can be made.',
    },
    VolumeAttachment: {
      spec: 'Which volume to attach to which node, by which attacher.',
      status: 'Whether it is attached, and any error.',
    },
    VolumeAttachmentSpec: {
      $: 'A request to attach a volume to a node.',
      attacher: 'The CSI driver that does the attaching.',
      source: 'The volume to attach.',
      nodeName: 'The node to attach it to.',
    },
    VolumeAttachmentSource: {
      $: 'The volume of an attachment.',
      persistentVolumeName: 'A PersistentVolume by name.',
      inlineVolumeSpec: 'A volume written inline in a pod, translated to a PV spec.',
    },
    VolumeAttachmentStatus: {
      $: 'The state of an attachment.',
      attached: 'Whether the volume is attached.',
      attachmentMetadata: 'What the driver returned on attach, passed on to the mount.',
      attachError: 'The last error while attaching.',
      detachError: 'The last error while detaching.',
    },
    VolumeError: {
      $: 'An error of an attach or detach.',
      time: 'When it happened.',
      message: 'What went wrong.',
      errorCode: 'The gRPC code the driver returned.',
    },
    VolumeAttributesClass: {
      driverName: 'The CSI driver the class is for.',
      parameters: 'Driver-specific settings such as IOPS or throughput, applied to volumes of the class. Cannot be changed.',
    },
  },
};

export const networkingPlatform: GroupTable = {
  prefix: 'io.k8s.api.networking.v1',
  types: {
    IPAddress: { spec: 'The object the address is allocated to.' },
    IPAddressSpec: { $: 'An allocated IP address.', parentRef: 'The object that holds the address, usually a Service.' },
    ParentReference: {
      $: 'The object an IP address belongs to.',
      group: 'Its API group; empty for the core group.',
      resource: 'Its resource, e.g. services.',
      namespace: 'Its namespace.',
      name: 'Its name.',
    },
    ServiceCIDR: { spec: 'The IP ranges Service cluster IPs are taken from.', status: 'Whether the ranges are ready to use.' },
    ServiceCIDRSpec: {
      $: 'Ranges for Service IPs.',
      cidrs: 'At most two ranges, one per IP family, e.g. ["10.96.0.0/16"]. Cannot be changed.',
    },
    ServiceCIDRStatus: { $: 'The state of a ServiceCIDR.', conditions: 'Ready: whether IPs can be allocated from it.' },
  },
};

export const corePlatform: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    PodTemplate: { template: 'A pod template kept as an object of its own, for tools that create pods from it.' },
    ComponentStatus: { conditions: 'The health of the component (deprecated API: it does not reflect an external etcd or HA setups).' },
    ComponentCondition: {
      $: 'The health of a control-plane component.',
      type: 'Healthy.',
      status: '"True", "False" or "Unknown".',
      message: 'What the health check returned.',
      error: 'The error of the health check, if any.',
    },
  },
};

export const apiregistration: GroupTable = {
  prefix: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
  types: {
    APIService: {
      spec: 'Which group and version are served, and by whom (a Service, or the apiserver itself).',
      status: 'Whether the API is Available.',
    },
    APIServiceSpec: {
      $: "An API group-version served through the main apiserver. The APIService's name is <version>.<group>.",
      service: 'The Service of an extension API server (e.g. metrics-server). Unset means the apiserver serves the API itself.',
      group: 'The API group, e.g. metrics.k8s.io.',
      version: 'The API version, e.g. v1beta1.',
      insecureSkipTLSVerify: "Do not check the extension server's certificate. Discouraged; use caBundle.",
      caBundle: "The PEM CA that signs the extension server's certificate (base64 in JSON).",
      groupPriorityMinimum: "The group's place in discovery: higher comes first (kubectl prefers it for a short name).",
      versionPriority: "The version's place within its group in discovery: higher comes first.",
    },
    APIServiceStatus: { $: 'The state of an APIService.', conditions: 'Available: whether requests can be served.' },
    APIServiceCondition: conditionFields('API service', 'Available'),
    ServiceReference: {
      $: 'The Service of an extension API server.',
      namespace: "The Service's namespace.",
      name: "The Service's name.",
      port: 'The Service port. Defaults to 443.',
    },
  },
};
