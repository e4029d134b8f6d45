// core/v1, everything besides pods, containers and storage: Service,
// ConfigMap, Secret, ServiceAccount, Namespace, Node, ResourceQuota,
// LimitRange and the small reference types they share.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const portStatus = {
  $: 'The state of one port of a load balancer.',
  port: 'The port number.',
  protocol: 'TCP, UDP or SCTP.',
  error: 'Why the port could not be set up, as a CamelCase reason; empty when it works.',
};

export const core: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    Service: {
      spec: 'How the Service is reached (type, ports, cluster IP) and which pods back it (selector).',
      status: 'The external load balancer, for type LoadBalancer, and conditions.',
    },
    ServiceSpec: {
      $: 'What a Service offers and which pods serve it.',
      ports: 'The ports the Service exposes and the pod ports they lead to.',
      selector:
        'Labels of the pods that serve this Service, e.g. {app: web}: ready pods that match become its endpoints. Without a selector, endpoints are managed by hand.',
      clusterIP:
        'The virtual IP of the Service inside the cluster, usually chosen by the server. "None" makes a headless Service: DNS returns the pod IPs directly. Cannot be changed, except to or from ExternalName.',
      clusterIPs: 'The cluster IPs of the Service, one per IP family (two on dual-stack); the first is clusterIP.',
      type: 'How the Service is exposed: ClusterIP (a virtual IP inside the cluster, the default), NodePort (also a port on every node), LoadBalancer (also an external load balancer, where the cluster provides one) or ExternalName (a DNS alias to externalName, no proxying).',
      externalIPs: "IP addresses outside the cluster's control that nodes also accept traffic for on the Service ports.",
      sessionAffinity:
        'ClientIP sends all connections from one client IP to the same pod (for timeoutSeconds of inactivity, 3 hours by default); None (the default) spreads them.',
      loadBalancerIP: 'Deprecated: an IP to ask the load balancer for. Support depends on the provider.',
      loadBalancerSourceRanges:
        'Client CIDRs allowed to reach a LoadBalancer Service, e.g. ["203.0.113.0/24"], where the provider supports it.',
      externalName: 'For type ExternalName: the DNS name the Service name is an alias (CNAME) for, e.g. db.example.com.',
      externalTrafficPolicy:
        "For NodePort and LoadBalancer traffic from outside: Cluster (any node forwards to any ready pod, the default) or Local (only to pods on the receiving node, which keeps the client's source IP).",
      healthCheckNodePort:
        'With externalTrafficPolicy Local: the node port the load balancer health-checks to find nodes with ready pods. Chosen by the server.',
      publishNotReadyAddresses:
        'List pods as endpoints even before they are ready (used by StatefulSets that need peers to find each other). Defaults to false.',
      sessionAffinityConfig: 'Settings of session affinity (the ClientIP timeout).',
      ipFamilies: 'The IP families of the Service, IPv4 and/or IPv6, in order. Chosen from ipFamilyPolicy and the cluster when unset.',
      ipFamilyPolicy:
        'SingleStack (one family, the default), PreferDualStack (both when the cluster has both) or RequireDualStack (both, or fail).',
      allocateLoadBalancerNodePorts: 'For LoadBalancer Services: whether node ports are allocated too. Defaults to true.',
      loadBalancerClass:
        'Which load balancer implementation handles this Service, e.g. "example.com/internal-lb". Unset means the default one.',
      internalTrafficPolicy:
        'For traffic from inside the cluster to the cluster IP: Cluster (any ready pod, the default) or Local (only pods on the same node; dropped if there are none).',
      trafficDistribution:
        'A preference for how traffic is spread, e.g. "PreferClose" (or "PreferSameZone") to keep it in the client\'s zone, or "PreferSameNode". Unset means no preference.',
    },
    ServicePort: {
      $: 'One port of a Service.',
      name: "The port's name, required when there are several ports; it also names the EndpointSlice port and the DNS SRV record.",
      protocol: 'TCP (the default), UDP or SCTP.',
      appProtocol:
        'The application protocol, for information and for some implementations, e.g. "http", "kubernetes.io/h2c" or "example.com/custom".',
      port: 'The port the Service listens on, at its cluster IP.',
      targetPort:
        'The pod port traffic is sent to: a number, or the name of a container port (so pods can use different numbers). Defaults to port.',
      nodePort:
        'For NodePort and LoadBalancer Services: the port opened on every node, by default from 30000 to 32767. Chosen by the server when unset.',
    },
    ServiceStatus: {
      $: 'The observed state of a Service.',
      loadBalancer: "The external load balancer's addresses, once one has been set up.",
      conditions: 'Observations about the Service.',
    },
    SessionAffinityConfig: { $: 'Session affinity settings.', clientIP: 'Settings of ClientIP affinity.' },
    ClientIPConfig: {
      $: 'ClientIP session affinity settings.',
      timeoutSeconds: 'How long, in seconds, a client sticks to its pod without traffic: 1 to 86400. Defaults to 10800 (3 hours).',
    },
    LoadBalancerStatus: { $: "A load balancer's state.", ingress: 'The addresses traffic enters the load balancer at.' },
    LoadBalancerIngress: {
      $: 'One entry point of a load balancer.',
      ip: 'Its IP address.',
      hostname: 'Its DNS name, for load balancers known by name.',
      ipMode: 'VIP (the nodes also route the IP to the Service directly) or Proxy (traffic must go through the load balancer).',
      ports: 'The state of each port.',
    },
    PortStatus: portStatus,
    ConfigMap: {
      data: 'The configuration, as key/value strings. Keys are file-name-like (letters, digits, "-", "_", "."); a ConfigMap holds at most 1 MiB in all.',
      binaryData: 'Values that are not UTF-8 text, base64-encoded in JSON. Keys must not repeat those of data.',
      immutable:
        'When true, data can no longer be changed (only the whole object deleted), which also spares the kubelets from watching it. Defaults to false.',
    },
    Secret: {
      type: 'What the Secret holds, which decides the keys it must have: Opaque (anything, the default), kubernetes.io/tls (tls.crt, tls.key), kubernetes.io/dockerconfigjson (.dockerconfigjson), kubernetes.io/basic-auth, kubernetes.io/ssh-auth, kubernetes.io/service-account-token.',
      data: 'The secret values, base64-encoded in JSON and YAML (kubectl get shows them encoded). At most 1 MiB in all. Base64 is an encoding, not encryption.',
      stringData:
        'Values written as plain text, for convenience: the server encodes them into data (winning over data on the same key) and never returns this field.',
      immutable: 'When true, the data can no longer be changed, only the whole Secret deleted. Defaults to false.',
    },
    ServiceAccount: {
      secrets: 'Deprecated: Secrets pods of this account could use. Tokens are issued on demand now (TokenRequest).',
      imagePullSecrets: 'Registry credential Secrets added to every pod that runs as this service account.',
      automountServiceAccountToken:
        'Whether pods of this account get its token mounted by default. A pod can override it. Defaults to true.',
    },
    ObjectReference: {
      $: 'A reference to another object, or to a field in it.',
      kind: 'The kind of the object.',
      namespace: 'The namespace of the object.',
      name: 'The name of the object.',
      uid: 'The uid of the object, to tell it from a later object of the same name.',
      apiVersion: 'The API version of the object.',
      resourceVersion: 'The resourceVersion of the object the reference was made from.',
      fieldPath: 'A field inside the object, e.g. spec.containers{web} for one container of a pod.',
    },
    Namespace: {
      spec: "The namespace's finalizers.",
      status: 'Whether the namespace is Active or being deleted (Terminating).',
    },
    NamespaceSpec: {
      $: 'The desired state of a namespace.',
      finalizers: 'Steps to run before the namespace is removed; "kubernetes" makes the server delete every object in it first.',
    },
    NamespaceStatus: {
      $: 'The observed state of a namespace.',
      phase: 'Active, or Terminating once deleted: nothing new may be created in it while its contents are removed.',
      conditions: "Observations about the namespace's deletion, e.g. NamespaceDeletionContentFailure.",
    },
    NamespaceCondition: conditionFields(
      'namespace',
      'NamespaceDeletionDiscoveryFailure, NamespaceDeletionContentFailure, NamespaceContentRemaining, NamespaceFinalizersRemaining',
    ),
    Node: {
      spec: 'How the node may be used: taints, whether it is unschedulable, its pod CIDRs and provider ID.',
      status: 'What the kubelet reports about the node: capacity, allocatable resources, conditions, addresses, images.',
    },
    NodeSpec: {
      $: 'The desired configuration of a node.',
      unschedulable: 'When true, no new pods are scheduled here (`kubectl cordon` sets it); running pods stay. Defaults to false.',
      taints: 'Taints that keep pods off the node unless they tolerate them (`kubectl taint`).',
      podCIDR: 'The IP range pods on this node get addresses from.',
      podCIDRs: 'The pod IP ranges, one per IP family; the first is podCIDR.',
      providerID: "The cloud provider's ID of the machine, e.g. aws:///us-east-1a/i-0123.",
      externalID: 'Deprecated and unused.',
      configSource: 'Deprecated and ignored: dynamic kubelet configuration was removed.',
    },
    NodeStatus: {
      $: 'The observed state of a node, reported by its kubelet.',
      capacity: 'The total resources of the node: cpu, memory, pods, ephemeral-storage, hugepages, extended resources.',
      allocatable:
        'The part of capacity available to pods, after what the system and the kubelet reserve. The scheduler fits pod requests into this.',
      conditions:
        'Health of the node: Ready (the kubelet is healthy and accepts pods), MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable.',
      addresses: "The node's addresses: InternalIP, ExternalIP, Hostname and DNS names.",
      daemonEndpoints: 'The port the kubelet listens on.',
      nodeInfo: "Versions and IDs of the node's system: kernel, OS, container runtime, kubelet.",
      images: 'Container images present on the node, which the scheduler favours for pods that use them.',
      volumesInUse: 'Attached volumes that are mounted by pods.',
      volumesAttached: 'Volumes attached to the node.',
      phase: 'Deprecated and not set.',
      config: 'Deprecated: the state of dynamic kubelet configuration.',
      runtimeHandlers: 'The runtime handlers (for RuntimeClasses) the node has and what each supports.',
      features: 'Optional features the node supports.',
      declaredFeatures: 'Names of features the node declares it has enabled, which the scheduler and admission can take into account.',
    },
    NodeAddress: {
      $: 'One address of a node.',
      type: 'Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.',
      address: 'The address.',
    },
    NodeCondition: conditionFields('node', 'Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable', {
      lastHeartbeatTime: 'When the kubelet last reported this condition.',
    }),
    NodeDaemonEndpoints: { $: 'Ports of daemons on the node.', kubeletEndpoint: "The kubelet's port." },
    DaemonEndpoint: { $: 'A port a daemon listens on.', Port: 'The port number.' },
    NodeSystemInfo: {
      $: "Facts about a node's machine and software.",
      machineID: 'The machine ID (from /etc/machine-id).',
      systemUUID: 'The hardware UUID.',
      bootID: 'An ID that changes on every boot.',
      kernelVersion: 'The kernel version (uname -r).',
      osImage: 'The operating system, from /etc/os-release, e.g. "Debian GNU/Linux 12 (bookworm)".',
      containerRuntimeVersion: 'The container runtime and its version, e.g. containerd://2.0.0.',
      kubeletVersion: "The kubelet's version.",
      kubeProxyVersion: 'Deprecated: not reliably set.',
      operatingSystem: 'The OS: linux or windows.',
      architecture: 'The CPU architecture, e.g. amd64 or arm64.',
      swap: 'The swap space of the node.',
    },
    NodeSwapStatus: { $: 'Swap space of a node.', capacity: 'The total swap, in bytes.' },
    ContainerImage: {
      $: 'An image present on a node.',
      names: 'The names of the image, with tags and digests.',
      sizeBytes: 'The size of the image, in bytes.',
    },
    AttachedVolume: {
      $: 'A volume attached to a node.',
      name: "The volume's name.",
      devicePath: 'Where the device appears on the node.',
    },
    NodeConfigSource: { $: 'Deprecated: a source of kubelet configuration.', configMap: 'A ConfigMap holding the configuration.' },
    ConfigMapNodeConfigSource: {
      $: 'Deprecated: a ConfigMap holding kubelet configuration.',
      namespace: "The ConfigMap's namespace.",
      name: "The ConfigMap's name.",
      uid: "The ConfigMap's uid.",
      resourceVersion: "The ConfigMap's resourceVersion.",
      kubeletConfigKey: 'The key holding the configuration.',
    },
    NodeConfigStatus: {
      $: 'Deprecated: the state of dynamic kubelet configuration.',
      assigned: 'The configuration the node was told to use.',
      active: 'The configuration in use.',
      lastKnownGood: 'The configuration to fall back to.',
      error: 'Any problem applying it.',
    },
    NodeFeatures: {
      $: 'Optional features of a node.',
      supplementalGroupsPolicy: 'Whether the node supports the pod securityContext.supplementalGroupsPolicy field.',
    },
    NodeRuntimeHandler: {
      $: 'A container runtime handler available on a node.',
      name: "The handler's name; empty for the default handler.",
      features: 'What the handler supports.',
    },
    NodeRuntimeHandlerFeatures: {
      $: 'Features of a runtime handler.',
      recursiveReadOnlyMounts: 'Whether it supports recursive read-only mounts.',
      userNamespaces: 'Whether it supports user namespaces (pods with hostUsers false).',
    },
    Taint: {
      $: 'A mark on a node that repels pods without a matching toleration.',
      key: 'The taint key, e.g. node.kubernetes.io/not-ready or dedicated.',
      value: 'The taint value (optional).',
      effect:
        'NoSchedule (new pods without a toleration are not scheduled here), PreferNoSchedule (avoided if possible) or NoExecute (also evicts running pods that do not tolerate it).',
      timeAdded: 'When a NoExecute taint was added; set by the server.',
    },
    ResourceQuota: {
      spec: 'The limits: hard caps per resource, optionally only for some kinds of pods (scopes).',
      status: 'The limits in force and how much of each is used.',
    },
    ResourceQuotaSpec: {
      $: 'What a quota limits.',
      hard: 'The most each resource may total in the namespace, e.g. {pods: "10", requests.cpu: "4", limits.memory: 8Gi, count/deployments.apps: "5"}. A create that would go over is refused.',
      scopes: 'Only count objects in all these scopes, e.g. Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass.',
      scopeSelector: 'Like scopes, with operators and values, e.g. pods of certain priority classes.',
    },
    ResourceQuotaStatus: {
      $: 'The state of a quota.',
      hard: 'The limits in force.',
      used: 'How much of each limited resource is used now.',
    },
    ScopeSelector: { $: 'Scope requirements, combined with AND.', matchExpressions: 'The requirements.' },
    ScopedResourceSelectorRequirement: {
      $: 'One scope requirement of a quota.',
      scopeName:
        'The scope: Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity or VolumeAttributesClass.',
      operator: 'In, NotIn, Exists or DoesNotExist.',
      values: 'Values for In and NotIn (e.g. priority class names); empty for Exists and DoesNotExist.',
    },
    LimitRange: { spec: 'The limits and defaults, per kind of object.' },
    LimitRangeSpec: { $: 'The limits of a LimitRange.', limits: 'One entry per kind of object limited.' },
    LimitRangeItem: {
      $: 'Limits and defaults for one kind of object (Container, Pod or PersistentVolumeClaim).',
      type: 'What is limited: Container, Pod or PersistentVolumeClaim.',
      max: 'The most a single object may ask for, per resource.',
      min: 'The least a single object may ask for, per resource.',
      default: 'The limits given to containers that set none.',
      defaultRequest: 'The requests given to containers that set none.',
      maxLimitRequestRatio: 'The largest allowed ratio of limit to request, per resource (e.g. 2 means a limit at most twice the request).',
    },
    TopologySelectorTerm: { $: 'A topology requirement, by node labels.', matchLabelExpressions: 'The requirements, combined with AND.' },
    TopologySelectorLabelRequirement: {
      $: 'A node label and the values it may have.',
      key: 'The label key, e.g. topology.kubernetes.io/zone.',
      values: 'The allowed values, any of which matches.',
    },
  },
};
