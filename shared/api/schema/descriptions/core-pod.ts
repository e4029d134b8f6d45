// core/v1, the Pod itself: PodSpec, PodStatus, the pod template, scheduling
// (affinity, tolerations, topology spread) and the pod-wide security context.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const termsNote = 'Only checked when the pod is scheduled: a pod already running stays even if the rule stops holding.';

export const corePod: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    Pod: {
      spec: 'What the pod should run: its containers, volumes, scheduling rules, restart policy and security settings. Most of it cannot be changed once the pod exists.',
      status:
        'What the kubelet and scheduler observed about the pod: its phase, conditions, IP addresses and the state of every container. Read-only for users.',
    },
    PodTemplateSpec: {
      $: 'The pod a controller creates: metadata (usually labels that its selector matches) and a PodSpec. Changing the template of a Deployment, StatefulSet or DaemonSet starts a rollout.',
      metadata:
        "Labels and annotations copied to every pod made from this template. The labels must satisfy the owning controller's selector.",
      spec: 'The PodSpec of every pod made from this template.',
    },
    PodSpec: {
      $: 'The desired state of a pod: which containers run, with which volumes, where it may be scheduled and how it is restarted.',
      containers: 'The main containers of the pod, started together (at least one). Each needs a name unique in the pod and an image.',
      initContainers:
        'Containers that run one after another, each to completion, before the main containers start; a failure restarts the sequence according to restartPolicy. An init container with restartPolicy Always is a sidecar: it starts in order and keeps running beside the main containers.',
      ephemeralContainers:
        'Temporary containers added to a running pod for debugging, with `kubectl debug`. They are added through the pods/ephemeralcontainers subresource, are never restarted and cannot be removed.',
      volumes: 'Volumes that containers of this pod can mount by name (see volumeMounts in each container).',
      restartPolicy:
        'What the kubelet does when a container exits: Always (restart it, the default, and the only value Deployments accept), OnFailure (restart only on a non-zero exit code) or Never. Restarts back off exponentially up to five minutes.',
      terminationGracePeriodSeconds:
        'How many seconds the containers get between SIGTERM (after preStop hooks) and SIGKILL when the pod is deleted. Defaults to 30; 0 kills at once.',
      activeDeadlineSeconds:
        'How many seconds the pod may run, counted from its start, before the kubelet fails it and kills its containers. A positive integer; unset means no limit.',
      dnsPolicy:
        "Which DNS settings the containers get: ClusterFirst (the cluster DNS, the default), ClusterFirstWithHostNet (the same for hostNetwork pods), Default (the node's own resolver) or None (only dnsConfig).",
      dnsConfig:
        "Extra DNS settings (nameservers, search domains, resolver options) merged into the containers' resolv.conf; all of it when dnsPolicy is None.",
      nodeSelector:
        'Node labels the pod requires, e.g. {disktype: ssd}: the pod only goes to nodes that have all of them. For more expressive rules use affinity.nodeAffinity.',
      serviceAccountName:
        'The ServiceAccount the pod runs as, whose token is mounted in the containers and whose permissions (RBAC) the pod\'s API calls get. Defaults to "default" in the pod\'s namespace.',
      serviceAccount: 'Deprecated older name of serviceAccountName; set serviceAccountName instead.',
      automountServiceAccountToken:
        "Whether a token for the service account is mounted at /var/run/secrets/kubernetes.io/serviceaccount. Unset takes the ServiceAccount's own setting (true by default).",
      nodeName:
        'The node the pod runs on. Normally empty in what you write: the scheduler fills it in through the binding subresource. Setting it yourself skips the scheduler.',
      hostNetwork: "Run the pod in the node's network namespace, so it sees the node's interfaces and uses its ports. Defaults to false.",
      hostPID: "Share the node's process ID namespace, so containers see every process on the node. Defaults to false.",
      hostIPC: "Share the node's IPC namespace (shared memory, semaphores). Defaults to false.",
      shareProcessNamespace:
        "Put all containers of the pod in one process namespace, so they can see and signal each other's processes; the first process is then not PID 1 in each container. Defaults to false.",
      securityContext:
        "Security settings for the whole pod (user and group IDs, fsGroup, seccomp, sysctls); a container's own securityContext overrides the shared ones.",
      imagePullSecrets:
        "Secrets of type kubernetes.io/dockerconfigjson in the pod's namespace holding registry credentials to pull private images with.",
      hostname: 'The hostname the containers see. Defaults to the pod name (cut to 63 characters).',
      hostnameOverride:
        'The hostname the containers see, replacing the one made from hostname and subdomain; DNS records are not changed. Not allowed with hostNetwork or setHostnameAsFQDN.',
      subdomain:
        'With a headless Service of this name in the namespace, gives the pod the DNS name <hostname>.<subdomain>.<namespace>.svc.<cluster domain>. StatefulSets set it from serviceName.',
      setHostnameAsFQDN:
        'Make the hostname inside the containers the fully qualified domain name rather than the short name. Defaults to false.',
      affinity:
        'Rules that attract the pod to some nodes (nodeAffinity), or place it near (podAffinity) or away from (podAntiAffinity) other pods.',
      schedulerName: 'Which scheduler places the pod. Defaults to "default-scheduler".',
      tolerations:
        "Taints the pod tolerates. A node's NoSchedule and NoExecute taints keep pods off (and evict them) unless they carry a matching toleration.",
      hostAliases: "Extra lines for the containers' /etc/hosts, mapping IP addresses to host names.",
      priorityClassName:
        'The PriorityClass that gives the pod its priority. Higher-priority pods are scheduled first and may preempt lower ones. Empty means the global default class, or 0.',
      priority: 'The numeric priority, filled in by admission from priorityClassName; do not set it yourself. Higher is more important.',
      preemptionPolicy:
        'Whether this pod may evict lower-priority pods to make room: PreemptLowerPriority (the default) or Never. Usually taken from the PriorityClass.',
      readinessGates:
        'Extra pod conditions, set by some other controller, that must be True as well before the pod counts as Ready (and receives Service traffic).',
      runtimeClassName:
        "The RuntimeClass whose container runtime handler runs the pod (e.g. a sandboxed runtime). Empty means the node's default.",
      enableServiceLinks:
        'Inject environment variables (NAME_SERVICE_HOST, NAME_SERVICE_PORT, ...) for every Service in the namespace, in the old Docker links style. Defaults to true.',
      overhead:
        "Resources the pod's sandbox itself uses, added by its RuntimeClass on admission and counted by the scheduler and quota. Do not set it yourself.",
      topologySpreadConstraints:
        'Rules that spread the pods of a group (picked by labelSelector) evenly over zones, nodes or other topology domains.',
      os: 'The operating system the pod needs ("linux" or "windows"). It changes which security settings are validated.',
      hostUsers:
        "When false, the pod gets its own user namespace: root in the container maps to an unprivileged user on the node. Defaults to true (share the node's users).",
      schedulingGates:
        'Names that hold the pod back from scheduling while any of them is present. Whoever added a gate removes it; gates can only be removed, not added, after creation.',
      resourceClaims:
        'Dynamic resources (devices, through ResourceClaims) the pod uses; containers refer to them by name in resources.claims.',
      resources:
        "CPU and memory requests and limits for the pod as a whole, shared by its containers. Optional: without it the pod's totals are the sums of its containers'.",
      workloadRef: 'Names the workload and pod group this pod belongs to, for schedulers that place a group of pods together.',
    },
    PodStatus: {
      $: 'The most recently observed state of a pod, written by the scheduler and the kubelet.',
      phase:
        'A summary of where the pod is in its life: Pending (accepted, not all containers running yet, including image pulls), Running (bound to a node, at least one container running or restarting), Succeeded (all containers exited 0, none will restart), Failed (all exited, at least one failed) or Unknown (the node cannot be reached).',
      conditions:
        'Observations about the pod: PodScheduled, Initialized, ContainersReady, Ready (able to serve, so it is in Service endpoints), PodReadyToStartContainers and any readiness gates.',
      message: 'A human-readable note on why the pod is in this state.',
      reason: 'A short CamelCase reason for the pod\'s state, e.g. "Evicted" or "DeadlineExceeded".',
      nominatedNodeName:
        'The node the scheduler expects to place the pod on once the lower-priority pods it is preempting there are gone. Not a promise: the pod may land elsewhere.',
      hostIP: 'The primary IP address of the node the pod is on.',
      hostIPs: 'All IP addresses of the node the pod is on (one per IP family); the first equals hostIP.',
      podIP: 'The primary IP address the pod got from the cluster network. Empty until it has one.',
      podIPs: 'All IP addresses of the pod (one per IP family on dual-stack clusters); the first equals podIP.',
      startTime: 'When the kubelet acknowledged the pod, before its images were pulled.',
      initContainerStatuses: 'The state of each init container, in the order they are declared.',
      containerStatuses: 'The state of each main container: ready, restart count, current and last state.',
      ephemeralContainerStatuses: 'The state of each ephemeral (debug) container.',
      qosClass:
        "The quality-of-service class derived from the containers' requests and limits: Guaranteed (every container has equal requests and limits for CPU and memory), Burstable (some requests) or BestEffort (none). It decides who is evicted first under pressure.",
      resize:
        "Deprecated: the state of an in-place resize of the pod's resources; newer servers report it as PodResizePending and PodResizeInProgress conditions.",
      resourceClaimStatuses: 'For each entry of spec.resourceClaims, the ResourceClaim that was created for it.',
      extendedResourceClaimStatus:
        'The ResourceClaim made to satisfy the extended resources (such as example.com/gpu) the containers request, and which request serves which container.',
      observedGeneration: "The pod's metadata.generation that the kubelet last acted on.",
      allocatedResources: 'The resources the node has set aside for the pod as a whole.',
      resources: 'The pod-level requests and limits that are in force, when spec.resources is used.',
    },
    PodCondition: conditionFields('pod', 'PodScheduled, Initialized, ContainersReady, Ready, PodReadyToStartContainers, DisruptionTarget', {
      lastProbeTime: 'When the condition was last checked.',
      observedGeneration: "The pod's metadata.generation when the condition was set.",
    }),
    PodIP: { $: 'One IP address of a pod.', ip: 'The IP address (IPv4 or IPv6).' },
    HostIP: { $: "One IP address of the pod's node.", ip: 'The IP address (IPv4 or IPv6).' },
    PodResourceClaimStatus: {
      $: "Which ResourceClaim a pod's resource claim entry was resolved to.",
      name: 'The name of the entry in spec.resourceClaims.',
      resourceClaimName: 'The ResourceClaim made for it from the template; empty when none was needed.',
    },
    PodExtendedResourceClaimStatus: {
      $: 'The ResourceClaim made for the extended resources of a pod.',
      resourceClaimName: 'The name of the ResourceClaim.',
      requestMappings: "Which container's extended resource is served by which request in the claim.",
    },
    ContainerExtendedResourceRequest: {
      $: "Links a container's extended resource to a request in a ResourceClaim.",
      containerName: 'The container that asked for the resource.',
      resourceName: 'The extended resource name, such as example.com/gpu.',
      requestName: 'The request in the ResourceClaim that provides it.',
    },
    PodDNSConfig: {
      $: "DNS settings added to the containers' resolv.conf.",
      nameservers: 'IP addresses of DNS servers, added to the ones dnsPolicy gives (at most three in all).',
      searches: 'Search domains for short names, added to those dnsPolicy gives.',
      options: 'Resolver options such as ndots:2 or edns0; a value here replaces one of the same name from dnsPolicy.',
    },
    PodDNSConfigOption: {
      $: 'One resolver option in resolv.conf.',
      name: 'The option name, e.g. "ndots".',
      value: 'Its value, e.g. "2"; empty for flags.',
    },
    HostAlias: {
      $: 'One /etc/hosts entry.',
      ip: 'The IP address the names resolve to.',
      hostnames: 'Host names that resolve to ip.',
    },
    PodOS: { $: 'The operating system a pod needs.', name: 'The operating system: "linux" or "windows".' },
    PodReadinessGate: {
      $: 'A pod condition that must be True for the pod to be Ready.',
      conditionType: 'The type of the condition in status.conditions to wait for.',
    },
    PodSchedulingGate: {
      $: 'A gate that keeps a pod from being scheduled.',
      name: 'The gate name, unique in the pod; whoever added it removes it when the pod may be scheduled.',
    },
    PodResourceClaim: {
      $: 'A dynamic resource the pod uses, given a name that containers refer to.',
      name: 'The name containers use in resources.claims, unique in the pod.',
      resourceClaimName: 'An existing ResourceClaim in the namespace to use. Exactly one of this and resourceClaimTemplateName is set.',
      resourceClaimTemplateName: 'A ResourceClaimTemplate from which a ResourceClaim is made for this pod alone, and deleted with it.',
    },
    WorkloadReference: {
      $: 'Ties a pod to a workload and one of its pod groups, for gang scheduling.',
      name: "The name of the Workload object in the pod's namespace.",
      podGroup: 'The pod group in that workload the pod belongs to.',
      podGroupReplicaKey: 'Which replica of the pod group the pod belongs to, when the group is repeated.',
    },
    LocalObjectReference: {
      $: 'The name of another object in the same namespace.',
      name: 'The name of the object (for image pull secrets, a Secret).',
    },
    Affinity: {
      $: 'Scheduling rules relative to nodes and to other pods.',
      nodeAffinity: 'Which nodes the pod may or prefers to run on, by node labels.',
      podAffinity: 'Run near pods that match a selector (on the same node, zone, ... as given by topologyKey).',
      podAntiAffinity: 'Keep away from pods that match a selector, e.g. to put the replicas of a Deployment on different nodes.',
    },
    NodeAffinity: {
      $: 'Node selection by labels, as a hard rule, soft preferences, or both.',
      requiredDuringSchedulingIgnoredDuringExecution: `A rule the node must satisfy for the pod to be placed there. ${termsNote}`,
      preferredDuringSchedulingIgnoredDuringExecution:
        'Weighted preferences: among the nodes that fit, the scheduler favours those matching terms with the greatest total weight.',
    },
    PodAffinity: {
      $: 'Rules to place a pod in the same topology domain as certain other pods.',
      requiredDuringSchedulingIgnoredDuringExecution: `Terms that must all hold: for each, some matching pod must already run in the same domain. ${termsNote}`,
      preferredDuringSchedulingIgnoredDuringExecution:
        'Weighted terms the scheduler tries to satisfy, favouring nodes with the greatest total weight.',
    },
    PodAntiAffinity: {
      $: 'Rules to keep a pod out of topology domains where certain other pods run.',
      requiredDuringSchedulingIgnoredDuringExecution: `Terms that must all hold: for each, no matching pod may run in the same domain. ${termsNote}`,
      preferredDuringSchedulingIgnoredDuringExecution:
        'Weighted terms the scheduler tries to satisfy, favouring nodes where fewer matching pods run.',
    },
    PodAffinityTerm: {
      $: 'Names a group of pods (by labels and namespaces) and a topology key: "in the same domain as those pods" (or not, for anti-affinity).',
      labelSelector: 'Which pods count. Unset matches no pods.',
      namespaces: 'Namespaces to look for the pods in. Empty (and no namespaceSelector) means the namespace of this pod.',
      namespaceSelector: 'Namespaces to look in, by their labels; combined with namespaces. An empty selector means every namespace.',
      topologyKey:
        'The node label that defines a domain: kubernetes.io/hostname for "the same node", topology.kubernetes.io/zone for "the same zone". Required.',
      matchLabelKeys:
        'Label keys whose values are taken from this pod and added to labelSelector as "key In (value)", e.g. pod-template-hash to look only at pods of the same revision.',
      mismatchLabelKeys: 'Like matchLabelKeys, but adds "key NotIn (value)".',
    },
    WeightedPodAffinityTerm: {
      $: 'A pod affinity term with a weight, for preferences.',
      weight: 'How much satisfying this term counts, from 1 to 100.',
      podAffinityTerm: 'The term to satisfy.',
    },
    PreferredSchedulingTerm: {
      $: 'A node selector term with a weight, for preferences.',
      weight: 'How much matching this term counts, from 1 to 100.',
      preference: 'The node selector term to match.',
    },
    NodeSelector: {
      $: 'A set of node selector terms: a node matches when it matches any one of them.',
      nodeSelectorTerms: 'The terms, combined with OR. Required and not empty.',
    },
    NodeSelectorTerm: {
      $: 'Requirements on a node, combined with AND. An empty term matches no node.',
      matchExpressions: 'Requirements on node labels.',
      matchFields: 'Requirements on node fields; only metadata.name is supported.',
    },
    NodeSelectorRequirement: {
      $: 'One requirement on a node label (or field): a key, an operator and values.',
      key: 'The label key (or, in matchFields, the field name) the requirement is about.',
      operator:
        'In, NotIn (the value is, or is not, one of values), Exists, DoesNotExist, or Gt and Lt (the value, read as an integer, is greater or less than the single value given).',
      values: 'Values to compare with: one or more for In and NotIn, exactly one integer for Gt and Lt, none for Exists and DoesNotExist.',
    },
    Toleration: {
      $: 'Lets a pod be scheduled on (or stay on) nodes with a matching taint.',
      key: 'The taint key to tolerate. Empty with operator Exists tolerates every taint.',
      operator:
        'How the taint value is compared: Equal (the default: value must match), Exists (any value; leave value empty), or Gt and Lt (the taint value, as an integer, must be greater or less than value).',
      value: 'The taint value to match with Equal (or the number to compare with for Gt and Lt).',
      effect: 'Which taint effect is tolerated: NoSchedule, PreferNoSchedule or NoExecute. Empty tolerates all three.',
      tolerationSeconds:
        'For NoExecute taints only: how many seconds the pod may stay on the node after the taint appears before it is evicted. Unset means forever; 0 or less means at once.',
    },
    TopologySpreadConstraint: {
      $: 'A rule that keeps the pods of one group evenly spread over the domains of a topology key.',
      maxSkew:
        'The largest allowed difference between the number of matching pods in the fullest and emptiest eligible domain. At least 1.',
      topologyKey: 'The node label that defines the domains, e.g. topology.kubernetes.io/zone or kubernetes.io/hostname. Required.',
      whenUnsatisfiable:
        'What to do when no node keeps the skew within maxSkew: DoNotSchedule (leave the pod pending, the default) or ScheduleAnyway (place it where the skew grows least).',
      labelSelector: "Which pods are counted in each domain (usually the labels of this pod's own group).",
      minDomains:
        'With DoNotSchedule: the number of eligible domains to assume at least. While fewer exist, an empty domain is taken to have 0 pods, which forces spreading to new domains. Defaults to 1.',
      nodeAffinityPolicy:
        "Whether nodes the pod's nodeSelector and nodeAffinity exclude are left out of the count: Honor (the default) or Ignore.",
      nodeTaintsPolicy: 'Whether nodes with taints the pod does not tolerate are left out of the count: Honor, or Ignore (the default).',
      matchLabelKeys:
        'Label keys whose values are taken from this pod and added to labelSelector, e.g. pod-template-hash to spread each revision separately.',
    },
    PodSecurityContext: {
      $: "Security settings for all containers of a pod. A container's securityContext overrides the fields both have.",
      runAsUser: "The user ID the containers' processes run as. Defaults to the image's user (often 0, root).",
      runAsGroup: "The primary group ID of the containers' processes. Defaults to the runtime's default (usually from the image).",
      runAsNonRoot: 'When true, the kubelet refuses to start a container that would run as user 0. Unset means no check.',
      supplementalGroups: 'Extra group IDs added to the first process of every container.',
      supplementalGroupsPolicy:
        "How the container's supplementary groups are computed: Merge (add the groups /etc/passwd gives the user in the image, the default) or Strict (only fsGroup, supplementalGroups and runAsGroup).",
      fsGroup:
        'A group ID given to every process and to the files of volumes that support ownership management: new files belong to it and volumes are made group-writable for it.',
      fsGroupChangePolicy:
        'When volume ownership is changed to fsGroup: Always (on every mount, the default) or OnRootMismatch (only when the volume root does not already match, which is faster for big volumes).',
      seLinuxOptions: 'The SELinux context for all containers. Defaults to a random one chosen by the runtime.',
      seLinuxChangePolicy:
        'How volumes get their SELinux label: "Recursive" (relabel every file) or "MountOption" (label at mount time, faster, when the volume supports it).',
      seccompProfile: 'The seccomp (system call filter) profile for all containers.',
      appArmorProfile: 'The AppArmor profile for all containers.',
      sysctls:
        'Namespaced kernel parameters set for the pod, e.g. net.ipv4.ip_local_port_range. Unsafe ones must be allowed by the kubelet.',
      windowsOptions: 'Windows-specific settings for all containers; ignored on Linux.',
    },
    SELinuxOptions: {
      $: 'An SELinux context.',
      user: 'The SELinux user.',
      role: 'The SELinux role.',
      type: 'The SELinux type, e.g. container_t.',
      level: 'The SELinux level (sensitivity and categories), e.g. s0:c123,c456.',
    },
    SeccompProfile: {
      $: 'Which seccomp profile filters the system calls of a container.',
      type: "RuntimeDefault (the container runtime's default filter), Unconfined (no filter) or Localhost (a profile file on the node, named by localhostProfile).",
      localhostProfile: "With type Localhost: the profile's path, relative to the kubelet's seccomp directory.",
    },
    AppArmorProfile: {
      $: 'Which AppArmor profile confines a container.',
      type: "RuntimeDefault (the runtime's default profile), Unconfined (none) or Localhost (a profile loaded on the node, named by localhostProfile).",
      localhostProfile: 'With type Localhost: the name of the profile loaded on the node.',
    },
    Sysctl: { $: 'A kernel parameter to set.', name: 'The parameter, e.g. net.core.somaxconn.', value: 'The value to set it to.' },
    WindowsSecurityContextOptions: {
      $: 'Windows-only security settings.',
      gmsaCredentialSpecName: 'The name of the GMSACredentialSpec resource to use.',
      gmsaCredentialSpec: 'The contents of the GMSA credential spec, filled in by a webhook.',
      runAsUserName: "The Windows user name the entrypoint runs as. Defaults to the image's user.",
      hostProcess:
        'Run the container as a Windows host process with access to the node. Requires hostNetwork; all containers of the pod must agree.',
    },
  },
};
