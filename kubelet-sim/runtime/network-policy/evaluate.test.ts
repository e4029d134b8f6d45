// Tables of NetworkPolicy decisions: isolation per direction, selectors, ipBlock, ports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import { evaluate, inCIDR, type Connection, type Endpoint } from './evaluate.ts';

const pod = (ns: string, labels: Record<string, string>, ip: string, nsLabels: Record<string, string> = {}): Endpoint => ({
  ip,
  pod: {
    namespace: ns,
    labels,
    namespaceLabels: { 'kubernetes.io/metadata.name': ns, ...nsLabels },
    ports: [
      { name: 'http', containerPort: 80, protocol: 'TCP' },
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
    ],
  },
});
const np = (name: string, ns: string, spec: NetworkPolicySpec): NetworkPolicy => ({ metadata: { name, namespace: ns }, spec });

const web = pod('default', { app: 'web' }, '10.244.1.2');
const client = pod('default', { role: 'client' }, '10.244.1.3');
const stranger = pod('default', { role: 'other' }, '10.244.2.4');
const prodClient = pod('prod', { role: 'client' }, '10.244.2.5', { team: 'a' });
const dns = pod('kube-system', { 'k8s-app': 'kube-dns' }, '10.244.0.2');
const external: Endpoint = { ip: '192.168.5.9' };

const conn = (from: Endpoint, to: Endpoint, port = 80, protocol: Connection['protocol'] = 'TCP'): Connection => ({
  from,
  to,
  port,
  protocol,
});

const denyAll = np('default-deny', 'default', { podSelector: {} });
const denyEgress = np('deny-egress', 'default', { podSelector: {}, policyTypes: ['Egress'] });
const allowClient = np('allow-client', 'default', {
  podSelector: { matchLabels: { app: 'web' } },
  ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }],
});
const allowTeamA = np('allow-team-a', 'default', {
  podSelector: { matchLabels: { app: 'web' } },
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }],
});
const allowTeamAClients = np('allow-team-a-clients', 'default', {
  podSelector: { matchLabels: { app: 'web' } },
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { role: 'other' } } }] }],
});
const allowDNS = np('allow-dns', 'default', {
  podSelector: {},
  policyTypes: ['Egress'],
  egress: [
    {
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ],
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ],
    },
  ],
});
const allowAllIngress = np('allow-all', 'default', { podSelector: {}, ingress: [{}] });
const ipBlock = np('ipblock', 'default', {
  podSelector: { matchLabels: { app: 'web' } },
  ingress: [{ from: [{ ipBlock: { cidr: '192.168.0.0/16', except: ['192.168.5.0/24'] } }] }],
});
const ports = (p: NetworkPolicySpec['ingress']) => np('ports', 'default', { podSelector: { matchLabels: { app: 'web' } }, ingress: p });

describe('NetworkPolicy evaluation', () => {
  const cases: [string, NetworkPolicy[], Connection, boolean | 'egress' | 'ingress'][] = [
    ['no policy: everything flows', [], conn(client, web), true],
    ['default deny blocks ingress', [denyAll], conn(client, web), 'ingress'],
    ['default deny (ingress only) does not isolate egress to another namespace', [denyAll], conn(client, dns, 53, 'UDP'), true],
    ['a Pod is never blocked from itself', [denyAll], conn(web, web), true],
    ['allow by podSelector: the labelled client passes', [denyAll, allowClient], conn(client, web), true],
    ['allow by podSelector: another Pod is dropped', [denyAll, allowClient], conn(stranger, web), 'ingress'],
    ['podSelector alone means the policy namespace only', [allowClient], conn(prodClient, web), 'ingress'],
    ['namespaceSelector admits every Pod of the namespace', [allowTeamA], conn(prodClient, web), true],
    ['namespaceSelector does not admit its own namespace without the label', [allowTeamA], conn(client, web), 'ingress'],
    ['namespaceSelector and podSelector together: both must match', [allowTeamAClients], conn(prodClient, web), 'ingress'],
    [
      'namespaceSelector and podSelector together: match',
      [allowTeamAClients],
      conn(pod('prod', { role: 'other' }, '10.244.3.3', { team: 'a' }), web),
      true,
    ],
    ['egress deny blocks DNS', [denyEgress], conn(client, dns, 53, 'UDP'), 'egress'],
    ['egress deny blocks Pod to Pod', [denyEgress], conn(client, web), 'egress'],
    ['DNS allowed under egress deny', [denyEgress, allowDNS], conn(client, dns, 53, 'UDP'), true],
    ['DNS rule does not open port 80', [denyEgress, allowDNS], conn(client, web), 'egress'],
    ['DNS rule does not open UDP 53 to another Pod', [denyEgress, allowDNS], conn(client, web, 53, 'UDP'), 'egress'],
    ['allow-all ingress overrides default deny', [denyAll, allowAllIngress], conn(stranger, web), true],
    ['ipBlock admits its range', [ipBlock], conn({ ip: '192.168.1.1' }, web), true],
    ['ipBlock except is left out', [ipBlock], conn(external, web), 'ingress'],
    ['ipBlock does not admit Pods by selector', [ipBlock], conn(client, web), 'ingress'],
    ['port number matches', [ports([{ ports: [{ port: 80 }] }])], conn(client, web), true],
    ['port number mismatch', [ports([{ ports: [{ port: 8080 }] }])], conn(client, web), 'ingress'],
    ['protocol defaults to TCP: UDP is not admitted', [ports([{ ports: [{ port: 53 }] }])], conn(client, web, 53, 'UDP'), 'ingress'],
    ['named port is the destination container port', [ports([{ ports: [{ port: 'http' }] }])], conn(client, web), true],
    ['named port with another number', [ports([{ ports: [{ port: 'http' }] }])], conn(client, web, 8080), 'ingress'],
    ['endPort range', [ports([{ ports: [{ port: 8000, endPort: 9000 }] }])], conn(client, web, 8080), true],
    ['endPort range excludes beyond', [ports([{ ports: [{ port: 8000, endPort: 9000 }] }])], conn(client, web, 9001), 'ingress'],
    ['protocol only: every port of it', [ports([{ ports: [{ protocol: 'TCP' }] }])], conn(client, web, 1234), true],
    [
      'ports and from are ANDed',
      [ports([{ ports: [{ port: 80 }], from: [{ podSelector: { matchLabels: { role: 'client' } } }] }])],
      conn(stranger, web),
      'ingress',
    ],
    [
      'rules are ORed',
      [ports([{ ports: [{ port: 81 }] }, { from: [{ podSelector: { matchLabels: { role: 'other' } } }] }])],
      conn(stranger, web),
      true,
    ],
    [
      'policyTypes Ingress with no rules isolates; egress untouched',
      [np('i', 'default', { podSelector: {}, policyTypes: ['Ingress'] })],
      conn(web, client),
      'ingress',
    ],
    [
      'egress rules without policyTypes default Egress in',
      [np('e', 'default', { podSelector: { matchLabels: { role: 'client' } }, egress: [{ ports: [{ port: 443 }] }] })],
      conn(client, web),
      'egress',
    ],
    ['a policy of another namespace does not isolate', [np('x', 'prod', { podSelector: {} })], conn(client, web), true],
    ['egress to an external address under deny', [denyEgress], conn(client, external), 'egress'],
    [
      'egress ipBlock to an external address',
      [
        denyEgress,
        np('out', 'default', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }] }),
      ],
      conn(client, external),
      true,
    ],
  ];
  for (const [name, policies, c, want] of cases)
    it(name, () => {
      const v = evaluate(c, policies);
      if (want === true) assert.deepEqual(v, { allowed: true });
      else assert.equal(v.allowed ? 'allowed' : v.by, want === false ? 'ingress' : want);
    });

  it('names the policies that isolate', () => {
    assert.deepEqual(evaluate(conn(client, web), [denyAll]), { allowed: false, by: 'ingress', policies: ['default-deny'] });
  });
});

describe('inCIDR', () => {
  const cases: [string, string, boolean][] = [
    ['10.1.2.3', '10.0.0.0/8', true],
    ['11.1.2.3', '10.0.0.0/8', false],
    ['192.168.5.9', '192.168.5.0/24', true],
    ['192.168.6.9', '192.168.5.0/24', false],
    ['1.2.3.4', '0.0.0.0/0', true],
    ['1.2.3.4', '1.2.3.4/32', true],
    ['1.2.3.5', '1.2.3.4/32', false],
    ['255.255.255.255', '128.0.0.0/1', true],
    ['fe80::1', '10.0.0.0/8', false],
  ];
  for (const [ip, cidr, want] of cases) it(`${ip} in ${cidr}`, () => assert.equal(inCIDR(ip, cidr), want));
});
