// Service and Endpoints rows as kubectl prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import { endpointsPrinter, servicePrinter } from './services.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');

const svc = (name: string, spec: Service['spec'], status?: Service['status']): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', creationTimestamp: ago(3 * 86400 + 5 * 3600) },
  spec,
  status,
});

const cases: { name: string; svc: Service; cells: (string | number)[] }[] = [
  {
    name: 'the kubernetes service',
    svc: svc('kubernetes', {
      type: 'ClusterIP',
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
    }),
    cells: ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '3d5h', '<none>'],
  },
  {
    name: 'NodePort',
    svc: svc('web', {
      type: 'NodePort',
      clusterIP: '10.96.120.7',
      clusterIPs: ['10.96.120.7'],
      selector: { app: 'web' },
      ports: [{ port: 80, nodePort: 30080, protocol: 'TCP', targetPort: 8080 }],
    }),
    cells: ['web', 'NodePort', '10.96.120.7', '<none>', '80:30080/TCP', '3d5h', 'app=web'],
  },
  {
    name: 'two ports, one with a node port, UDP, sorted selector',
    svc: svc('dns', {
      type: 'NodePort',
      clusterIPs: ['10.96.0.10'],
      selector: { 'k8s-app': 'kube-dns', app: 'dns' },
      ports: [
        { port: 80, protocol: 'TCP' },
        { port: 443, nodePort: 30001, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ],
    }),
    cells: ['dns', 'NodePort', '10.96.0.10', '<none>', '80/TCP,443:30001/TCP,53/UDP', '3d5h', 'app=dns,k8s-app=kube-dns'],
  },
  {
    name: 'LoadBalancer still pending',
    svc: svc(
      'lb',
      { type: 'LoadBalancer', clusterIPs: ['10.96.5.5'], ports: [{ port: 80, nodePort: 31234, protocol: 'TCP' }] },
      { loadBalancer: {} },
    ),
    cells: ['lb', 'LoadBalancer', '10.96.5.5', '<pending>', '80:31234/TCP', '3d5h', '<none>'],
  },
  {
    name: 'LoadBalancer with ingress and external IPs, never clipped (the server prints wide)',
    svc: svc(
      'lb2',
      {
        type: 'LoadBalancer',
        clusterIPs: ['10.96.5.6'],
        externalIPs: ['198.51.100.1'],
        ports: [{ port: 443, nodePort: 31000, protocol: 'TCP' }],
      },
      { loadBalancer: { ingress: [{ ip: '203.0.113.10' }, { hostname: 'a1b2c3d4e5f6.elb.example.com' }, { ip: '203.0.113.10' }] } },
    ),
    cells: [
      'lb2',
      'LoadBalancer',
      '10.96.5.6',
      '203.0.113.10,a1b2c3d4e5f6.elb.example.com,198.51.100.1',
      '443:31000/TCP',
      '3d5h',
      '<none>',
    ],
  },
  {
    name: 'headless',
    svc: svc('db', {
      type: 'ClusterIP',
      clusterIP: 'None',
      clusterIPs: ['None'],
      selector: { app: 'db' },
      ports: [{ port: 5432, protocol: 'TCP' }],
    }),
    cells: ['db', 'ClusterIP', 'None', '<none>', '5432/TCP', '3d5h', 'app=db'],
  },
  {
    name: 'ExternalName',
    svc: svc('ext', { type: 'ExternalName', externalName: 'db.example.com' }),
    cells: ['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', '3d5h', '<none>'],
  },
  {
    name: 'ClusterIP with external IPs',
    svc: svc('ext-ip', {
      type: 'ClusterIP',
      clusterIPs: ['10.96.9.9'],
      externalIPs: ['192.0.2.1', '192.0.2.2'],
      ports: [{ port: 8080, protocol: 'TCP' }],
    }),
    cells: ['ext-ip', 'ClusterIP', '10.96.9.9', '192.0.2.1,192.0.2.2', '8080/TCP', '3d5h', '<none>'],
  },
];

for (const c of cases) {
  test(`service: ${c.name}`, () => {
    assert.deepEqual(servicePrinter.row(c.svc, { now: NOW }).cells, c.cells);
  });
}

test('service columns', () => {
  assert.deepEqual(
    servicePrinter.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Type:0', 'Cluster-IP:0', 'External-IP:0', 'Port(s):0', 'Age:0', 'Selector:1'],
  );
});

const ep = (subsets: Endpoints['subsets']): Endpoints => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'web', namespace: 'default', creationTimestamp: ago(45) },
  subsets,
});

const endpointCases: { name: string; ep: Endpoints; want: string }[] = [
  { name: 'no subsets', ep: ep(undefined), want: '<none>' },
  {
    name: 'the kubernetes endpoint',
    ep: ep([{ addresses: [{ ip: '172.18.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]),
    want: '172.18.0.2:6443',
  },
  {
    name: 'five addresses: three shown and "+ 2 more..."',
    ep: ep([
      { addresses: ['10.244.1.2', '10.244.1.3', '10.244.2.4', '10.244.2.5', '10.244.3.6'].map((ip) => ({ ip })), ports: [{ port: 80 }] },
    ]),
    want: '10.244.1.2:80,10.244.1.3:80,10.244.2.4:80 + 2 more...',
  },
  {
    name: 'two addresses, two ports',
    ep: ep([
      {
        addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      },
    ]),
    want: '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...',
  },
  { name: 'headless without ports', ep: ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }]), want: '10.0.0.1,10.0.0.2' },
  { name: 'not-ready addresses are not shown', ep: ep([{ notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ port: 80 }] }]), want: '' },
  { name: 'IPv6', ep: ep([{ addresses: [{ ip: 'fd00:10:244::5' }], ports: [{ port: 8080 }] }]), want: '[fd00:10:244::5]:8080' },
];

for (const c of endpointCases) {
  test(`endpoints: ${c.name}`, () => {
    assert.deepEqual(endpointsPrinter.row(c.ep, { now: NOW }).cells, ['web', c.want, '45s']);
  });
}
