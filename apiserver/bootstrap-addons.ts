// The addons kubeadm's addon phase installs at first start, as kubeadm's
// CoreDNS manifests (cmd/kubeadm/app/phases/addons/dns) have them: the
// `coredns` ServiceAccount, the `system:coredns` ClusterRole and its
// binding, the `coredns` ConfigMap with the Corefile, the `coredns`
// Deployment (two replicas, k8s-app=kube-dns, tolerating the control-plane
// taint) and the `kube-dns` Service at 10.96.0.10 (the cluster DNS address
// kubelet writes into every Pod's resolv.conf). Written only when missing,
// so a user's change to them survives a restart. kube-proxy's DaemonSet is
// not among them: ksim's Service routing is kubelet-sim's own.
import type { StoredObject } from './storage/types.ts';

/** bootstrap.ts's `ensure`, bound to its context. */
export type Ensure = <T extends StoredObject & { apiVersion: string }>(
  group: string,
  plural: string,
  namespace: string,
  obj: T,
) => Promise<void>;

/** kube-dns's ClusterIP: the tenth address of the service CIDR, as kubeadm picks it. */
export const CLUSTER_DNS_IP = '10.96.0.10';
/** The CoreDNS release kubeadm v1.35 installs. */
export const COREDNS_IMAGE = 'registry.k8s.io/coredns/coredns:v1.12.1';
const DNS_DOMAIN = 'cluster.local';
const LABELS = { 'k8s-app': 'kube-dns' };

const COREFILE = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${DNS_DOMAIN} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${DNS_DOMAIN}
       disable denial ${DNS_DOMAIN}
    }
    loop
    reload
    loadbalance
}
`;

/** Creates whichever of CoreDNS's objects is missing. */
export async function ensureAddons(ensure: Ensure): Promise<void> {
  await ensure('', 'serviceaccounts', 'kube-system', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns' } });
  await ensure('rbac.authorization.k8s.io', 'clusterroles', '', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'system:coredns' },
    rules: [
      { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ],
  });
  await ensure('rbac.authorization.k8s.io', 'clusterrolebindings', '', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'system:coredns' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
    subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: 'kube-system' }],
  });
  await ensure('', 'configmaps', 'kube-system', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'coredns' },
    data: { Corefile: COREFILE },
  });
  await ensure('apps', 'deployments', 'kube-system', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'coredns', labels: LABELS },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          priorityClassName: 'system-cluster-critical',
          serviceAccountName: 'coredns',
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] },
                    topologyKey: 'kubernetes.io/hostname',
                  },
                },
              ],
            },
          },
          tolerations: [
            { key: 'CriticalAddonsOnly', operator: 'Exists' },
            { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
          ],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [
            {
              name: 'coredns',
              image: COREDNS_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
              args: ['-conf', '/etc/coredns/Corefile'],
              volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
              ports: [
                { containerPort: 53, name: 'dns', protocol: 'UDP' },
                { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
                { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
                { containerPort: 8080, name: 'liveness-probe', protocol: 'TCP' },
                { containerPort: 8181, name: 'readiness-probe', protocol: 'TCP' },
              ],
              livenessProbe: {
                httpGet: { path: '/health', port: 'liveness-probe', scheme: 'HTTP' },
                initialDelaySeconds: 60,
                timeoutSeconds: 5,
                successThreshold: 1,
                failureThreshold: 5,
              },
              readinessProbe: { httpGet: { path: '/ready', port: 'readiness-probe', scheme: 'HTTP' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
                readOnlyRootFilesystem: true,
              },
            },
          ],
          dnsPolicy: 'Default',
          volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
        },
      },
    },
  });
  await ensure('', 'services', 'kube-system', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kube-dns',
      labels: { ...LABELS, 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
      annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: CLUSTER_DNS_IP,
      clusterIPs: [CLUSTER_DNS_IP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
      ],
      selector: LABELS,
    },
  });
}
