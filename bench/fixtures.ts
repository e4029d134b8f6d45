// Realistic objects for load: a Pod of about 1.5 KB as a Deployment's
// ReplicaSet would create it (labels, owner, one container with image,
// resources, env, ports) and a Node of about 2 KB as
// a kubelet registers it (labels, capacity, conditions, node info).
import type { Namespace, Node, Pod } from 'kubernetes-types/core/v1.js';

const IMAGES = [
  'registry.k8s.io/nginx-slim:0.27',
  'docker.io/library/redis:7.2.4',
  'quay.io/prometheus/node-exporter:v1.7.0',
  'ghcr.io/example/api-server:2.14.1',
];

/** A Pod named `name` in `namespace`, optionally bound to `nodeName`. */
export function podFixture(name: string, namespace: string, nodeName?: string): Pod {
  const app = `app-${name.length % 7}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: {
        app,
        'app.kubernetes.io/name': app,
        'app.kubernetes.io/part-of': 'bench',
        tier: 'backend',
        'pod-template-hash': '7d4b9c8f6d',
      },
      annotations: { 'kubectl.kubernetes.io/default-container': 'main' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-7d4b9c8f6d`,
          uid: '2f1c6a8e-4b1d-4a53-9d7e-0c2f8a9b6e41',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      containers: [
        {
          name: 'main',
          image: IMAGES[name.length % IMAGES.length],
          imagePullPolicy: 'IfNotPresent',
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
            { name: 'LOG_FORMAT', value: 'json' },
            { name: 'CACHE_SIZE_MB', value: '256' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0,
      enableServiceLinks: true,
    },
  };
}

/** A Node named `name` with the status a kubelet reports. */
export function nodeFixture(name: string, index: number): Node {
  const zone = `zone-${String.fromCharCode(97 + (index % 3))}`;
  const at = '2026-01-01T00:00:00Z';
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
    reason,
    message,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/region': 'region-1',
        'topology.kubernetes.io/zone': zone,
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {
      podCIDR: `10.${(index >> 8) & 255}.${index & 255}.0/24`,
      podCIDRs: [`10.${(index >> 8) & 255}.${index & 255}.0/24`],
      providerID: `ksim://${name}`,
    },
    status: {
      capacity: { cpu: '4', memory: '16131712Ki', pods: '110', 'ephemeral-storage': '104845292Ki', 'hugepages-2Mi': '0' },
      allocatable: { cpu: '3920m', memory: '15414912Ki', pods: '110', 'ephemeral-storage': '96625420948', 'hugepages-2Mi': '0' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `172.16.${(index >> 8) & 255}.${index & 255}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: `ec2${String(index).padStart(29, '0')}`,
        systemUUID: `ec2${String(index).padStart(8, '0')}-0000-4000-8000-000000000000`,
        bootID: `b0${String(index).padStart(6, '0')}-1111-4222-8333-444455556666`,
        kernelVersion: '6.1.0-18-cloud-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.13',
        kubeletVersion: 'v1.30.0',
        kubeProxyVersion: 'v1.30.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** A Namespace named `name`. */
export function namespaceFixture(name: string): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}
