// networking.k8s.io/v1: Ingress and IngressClass (HTTP routing into the
// cluster) and NetworkPolicy (which traffic pods may send and receive).
import type { GroupTable } from './types.ts';

const policyPorts = 'Ports the rule allows, each a protocol and port (or range). Empty allows every port.';

export const networking: GroupTable = {
  prefix: 'io.k8s.api.networking.v1',
  types: {
    Ingress: {
      spec: 'The routing rules: which host and path go to which Service, the TLS certificates, and the class of controller that serves them.',
      status: 'The addresses of the load balancer the ingress controller set up.',
    },
    IngressSpec: {
      $: 'The desired routing of an Ingress. Nothing happens without an ingress controller running in the cluster.',
      ingressClassName: 'The IngressClass whose controller serves this Ingress. Unset means the class marked as default, if any.',
      defaultBackend: 'Where requests that match no rule go. Unset leaves it to the controller (often a 404).',
      tls: 'TLS settings: which hosts are served over HTTPS with which certificate Secret.',
      rules: 'Routing rules by host; requests matching none go to defaultBackend.',
    },
    IngressRule: {
      $: 'Routes for one host (or for all hosts).',
      host: 'The host name to match, e.g. "shop.example.com", or a wildcard for one label, "*.example.com". Not an IP; no port. Empty matches every host.',
      http: 'The paths of this host and their backends.',
    },
    HTTPIngressRuleValue: { $: 'HTTP routes of a host.', paths: 'The paths and their backends. The longest matching path wins.' },
    HTTPIngressPath: {
      $: 'One path and where its requests go.',
      path: 'The URL path to match, starting with "/". Required for Exact and Prefix.',
      pathType:
        'How path is matched: Exact (the whole path, case-sensitive), Prefix (whole "/"-separated segments: /foo matches /foo/bar but not /foobar) or ImplementationSpecific (up to the controller). Required.',
      backend: 'The Service (or other resource) requests are sent to.',
    },
    IngressBackend: {
      $: "Where an Ingress sends requests: a Service, or a resource of the controller's own kind. Exactly one is set.",
      service: "A Service in the Ingress's namespace and one of its ports.",
      resource: 'Another object in the namespace, such as a storage bucket, for controllers that support it.',
    },
    IngressServiceBackend: {
      $: 'A Service port as an Ingress backend.',
      name: "The Service's name, in the Ingress's namespace.",
      port: 'The Service port, by number or by name.',
    },
    ServiceBackendPort: {
      $: 'A Service port, by number or by name (set one).',
      name: 'The name of the Service port.',
      number: "The port number of the Service (its port, not the pods' targetPort).",
    },
    IngressTLS: {
      $: 'A set of hosts served over TLS with one certificate.',
      hosts: 'The host names the certificate covers; they should match hosts of the rules. Unset leaves the choice to the controller.',
      secretName: "A kubernetes.io/tls Secret in the Ingress's namespace with the certificate and key (tls.crt, tls.key).",
    },
    IngressStatus: { $: 'The observed state of an Ingress.', loadBalancer: "Where the controller's load balancer can be reached." },
    IngressLoadBalancerStatus: { $: 'The load balancer of an Ingress.', ingress: 'Its addresses.' },
    IngressLoadBalancerIngress: {
      $: 'One address of an Ingress load balancer.',
      ip: 'Its IP address.',
      hostname: 'Its DNS name.',
      ports: 'The state of each port.',
    },
    IngressPortStatus: {
      $: 'The state of one port of an Ingress load balancer.',
      port: 'The port number.',
      protocol: 'TCP, UDP or SCTP.',
      error: 'Why the port could not be set up; empty when it works.',
    },
    IngressClass: {
      spec: 'The controller that implements the class and its parameters.',
    },
    IngressClassSpec: {
      $: 'What an IngressClass stands for. Annotate one class with ingressclass.kubernetes.io/is-default-class: "true" to make it the default.',
      controller: 'The name of the controller that serves Ingresses of this class, e.g. "k8s.io/ingress-nginx". Cannot be changed.',
      parameters: 'An object with settings for the controller, of a kind it defines.',
    },
    IngressClassParametersReference: {
      $: "The object that holds an IngressClass's settings.",
      apiGroup: 'The API group of the object; empty for the core group.',
      kind: 'The kind of the object.',
      name: 'The name of the object.',
      scope: 'Cluster (the default: a cluster-scoped object) or Namespace.',
      namespace: "With scope Namespace: the object's namespace.",
    },
    NetworkPolicy: {
      spec: 'Which pods the policy applies to and which incoming and outgoing traffic it allows.',
    },
    NetworkPolicySpec: {
      $: 'The pods a policy isolates and the traffic it allows them. Policies add up: traffic is allowed if any policy selecting the pod allows it. Enforced only by network plugins that support it.',
      podSelector: 'The pods in this namespace the policy applies to. An empty selector ({}) means all of them.',
      ingress: 'Incoming traffic allowed to the selected pods. With Ingress in policyTypes and no rules, all incoming traffic is denied.',
      egress: 'Outgoing traffic allowed from the selected pods. With Egress in policyTypes and no rules, all outgoing traffic is denied.',
      policyTypes:
        'Which directions the policy isolates: Ingress, Egress or both. Defaults to Ingress, plus Egress if egress rules are given.',
    },
    NetworkPolicyIngressRule: {
      $: 'Incoming traffic a policy allows: from these peers, to these ports.',
      from: 'Where traffic may come from. Empty allows any source.',
      ports: policyPorts,
    },
    NetworkPolicyEgressRule: {
      $: 'Outgoing traffic a policy allows: to these peers, on these ports.',
      to: 'Where traffic may go. Empty allows any destination. Remember DNS (port 53) when restricting egress.',
      ports: policyPorts,
    },
    NetworkPolicyPeer: {
      $: 'A set of traffic sources or destinations: pods (in namespaces) or an IP block.',
      podSelector: 'Pods, in this namespace (or in the namespaces namespaceSelector picks).',
      namespaceSelector: 'Namespaces, by their labels (e.g. kubernetes.io/metadata.name): all their pods, or those podSelector picks.',
      ipBlock: 'An IP range, usually for traffic to or from outside the cluster. Cannot be combined with the selectors.',
    },
    NetworkPolicyPort: {
      $: 'A port, or range of ports, traffic is allowed on.',
      protocol: 'TCP (the default), UDP or SCTP.',
      port: 'A port number or a named container port. Unset means every port.',
      endPort: 'With a numeric port: the last port of a range port..endPort.',
    },
    IPBlock: {
      $: 'An IP range with exceptions.',
      cidr: 'The range, in CIDR notation, e.g. "10.0.0.0/16" or "2001:db8::/64".',
      except: 'Ranges inside cidr to leave out.',
    },
  },
};
