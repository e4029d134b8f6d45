import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { ClusterNet, podDnsConfig, resolvConf, type NetSource } from './cluster-net.ts';
import { SimNetwork } from './images/network.ts';

function source(services: Service[], endpoints: Endpoints[], pods: Pod[] = []): NetSource {
  const key = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  return {
    service: (ns, n) => services.find((s) => key(s) === `${ns}/${n}`),
    endpoints: (ns, n) => endpoints.find((e) => key(e) === `${ns}/${n}`),
    serviceByIP: (ip) => services.find((s) => s.spec?.clusterIP === ip),
    podByIP: (ip) => pods.find((p) => p.status?.podIP === ip),
    pod: (ns, n) => pods.find((p) => key(p) === `${ns}/${n}`),
  };
}

const svc = (name: string, clusterIP: string, extra: Service['spec'] = {}): Service => ({
  metadata: { namespace: 'default', name },
  spec: { clusterIP, ports: [{ port: 80, targetPort: 9376 }], ...extra },
});
const eps = (name: string, addrs: { ip: string; hostname?: string }[]): Endpoints => ({
  metadata: { namespace: 'default', name },
  subsets: [{ addresses: addrs, ports: [{ port: 9376 }] }],
});
const THREE = [{ ip: '10.244.0.2' }, { ip: '10.244.0.3' }, { ip: '10.244.0.4' }];

test('a headless Service resolves to every ready Pod address; a hostname in its subdomain to that Pod', () => {
  const src = source(
    [svc('nginx', 'None')],
    [
      eps(
        'nginx',
        THREE.map((a, i) => ({ ...a, hostname: `web-${i}` })),
      ),
    ],
  );
  const net = new ClusterNet(src, 'default', { network: new SimNetwork() });
  const r = net.resolve('nginx');
  assert.equal(r?.fqdn, 'nginx.default.svc.cluster.local');
  assert.deepEqual(
    [...(r?.ips ?? [])].sort(),
    THREE.map((a) => a.ip),
  );
  assert.equal(net.resolve('web-1.nginx')?.ip, '10.244.0.3');
  assert.equal(net.resolve('web-2.nginx.default.svc.cluster.local')?.ip, '10.244.0.4');
  assert.equal(net.resolve('web-9.nginx'), undefined);
  assert.equal(net.resolve('10-244-0-3.default.pod.cluster.local')?.ip, '10.244.0.3');
});

test('names are tried along the search path, and only the cluster resolver knows cluster names', () => {
  const src = source([svc('web', '10.96.5.5'), { ...svc('db', '10.96.6.6'), metadata: { namespace: 'prod', name: 'db' } }], []);
  const cluster = new ClusterNet(src, 'default', { network: new SimNetwork() });
  assert.equal(cluster.resolve('web')?.ip, '10.96.5.5');
  assert.equal(cluster.resolve('db'), undefined);
  assert.equal(cluster.resolve('db.prod')?.ip, '10.96.6.6');
  assert.equal(cluster.resolve('db.prod.svc')?.ip, '10.96.6.6');
  assert.equal(cluster.resolve('web.default.svc.cluster.local.')?.ip, '10.96.5.5');
  assert.deepEqual(cluster.candidates('web'), ['web.default.svc.cluster.local', 'web.svc.cluster.local', 'web.cluster.local', 'web']);
  const pod = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({
    metadata: { namespace: 'default', name: 'p' },
    spec: { containers: [], ...spec },
  });
  const dflt = podDnsConfig(pod({ dnsPolicy: 'Default' }), '172.18.0.1');
  assert.deepEqual(dflt.nameservers, ['172.18.0.1']);
  assert.equal(new ClusterNet(src, 'default', { dns: dflt }).resolve('web'), undefined);
  const none = podDnsConfig(
    pod({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['10.96.0.10'], searches: ['prod.svc.cluster.local'], options: [{ name: 'ndots', value: '2' }] },
    }),
    '172.18.0.1',
  );
  assert.equal(resolvConf(none), 'search prod.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:2\n');
  assert.equal(new ClusterNet(src, 'default', { dns: none }).resolve('db')?.ip, '10.96.6.6');
  const first = podDnsConfig(
    pod({ dnsConfig: { searches: ['corp.example'], options: [{ name: 'ndots', value: '1' }, { name: 'edns0' }] } }),
    '172.18.0.1',
  );
  assert.equal(
    resolvConf(first),
    'search default.svc.cluster.local svc.cluster.local cluster.local corp.example\nnameserver 10.96.0.10\noptions ndots:1 edns0\n',
  );
  assert.deepEqual(podDnsConfig(pod({ hostNetwork: true }), '172.18.0.1').nameservers, ['172.18.0.1']);
  assert.deepEqual(podDnsConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), '172.18.0.1').nameservers, [
    '10.96.0.10',
  ]);
});

function hostnames(network: SimNetwork) {
  for (const [i, a] of THREE.entries()) network.listen(a.ip, 9376, { http: () => ({ status: 200, body: `pod-${i}` }) });
  for (const a of THREE) network.addPod(a.ip);
}

test('a Service spreads requests over its ready endpoints at random', () => {
  const network = new SimNetwork();
  hostnames(network);
  const net = new ClusterNet(source([svc('hn', '10.96.7.7')], [eps('hn', THREE)]), 'default', { network, clientIP: '10.244.0.9' });
  const seen = new Set<string>();
  for (let i = 0; i < 60; i++) {
    const r = net.httpGet('http://hn');
    assert.ok(r.ok);
    seen.add(r.body);
  }
  assert.deepEqual([...seen].sort(), ['pod-0', 'pod-1', 'pod-2']);
  // A port the Service does not have, and a Service without endpoints, are refused.
  assert.deepEqual(net.httpGet('http://hn:81'), { ok: false, error: 'refused', ip: '10.96.7.7' });
});

test('sessionAffinity ClientIP keeps a client on one endpoint until the timeout', () => {
  const network = new SimNetwork();
  hostnames(network);
  let now = 0;
  const service = svc('hn', '10.96.7.7', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
  const src = source([service], [eps('hn', THREE)]);
  const a = new ClusterNet(src, 'default', { network, clientIP: '10.244.0.9', now: () => now });
  const bodies = new Set<string>();
  for (let i = 0; i < 30; i++) bodies.add((a.httpGet('hn') as { body: string }).body);
  assert.equal(bodies.size, 1);
  // Another client's choice is its own; a long pause (past the timeout) lets the choice change.
  let changed = false;
  for (let i = 0; i < 30 && !changed; i++) {
    now += 61_000;
    changed = (a.httpGet('hn') as { body: string }).body !== [...bodies][0];
  }
  assert.ok(changed);
});

test('a Pod of this process with nothing listening refuses; the listener answers while open', () => {
  const network = new SimNetwork();
  network.addPod('10.244.0.2');
  const net = new ClusterNet(source([], []), 'default', { network });
  assert.deepEqual(net.httpGet('10.244.0.2'), { ok: false, error: 'refused', ip: '10.244.0.2' });
  const close = network.listen('10.244.0.2', 80, { http: (req) => ({ status: 200, body: req.path }) });
  assert.deepEqual(net.httpGet('10.244.0.2/x'), { ok: true, status: 200, body: '/x' });
  close();
  assert.equal(net.httpGet('10.244.0.2').ok, false);
});

test("with EndpointSlices the network reads them: ready endpoints only, hostnames from the endpoint's hostname", () => {
  const network = new SimNetwork();
  hostnames(network);
  const src: NetSource = {
    ...source([svc('web', 'None'), svc('hn', '10.96.7.7')], []),
    endpointSlices: (_ns, name) => [
      {
        metadata: { namespace: 'default', name: `${name}-abcde`, labels: { 'kubernetes.io/service-name': name } },
        addressType: 'IPv4',
        ports: [{ port: 9376 }],
        endpoints: [
          { addresses: ['10.244.0.2'], hostname: 'web-0', conditions: { ready: true } },
          { addresses: ['10.244.0.3'], hostname: 'web-1', conditions: { ready: false } },
          { addresses: ['10.244.0.4'], hostname: 'web-2', conditions: { ready: true } },
        ],
      },
    ],
  };
  const net = new ClusterNet(src, 'default', { network });
  assert.deepEqual([...(net.resolve('web')?.ips ?? [])].sort(), ['10.244.0.2', '10.244.0.4']);
  assert.equal(net.resolve('web-2.web')?.ip, '10.244.0.4');
  assert.equal(net.resolve('web-1.web'), undefined);
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) seen.add((net.httpGet('hn') as { body: string }).body);
  assert.deepEqual([...seen].sort(), ['pod-0', 'pod-2']);
});

const runningPod = (name: string, ip: string, labels: Record<string, string>, ns = 'default'): Pod => ({
  metadata: { namespace: ns, name, labels },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 9376 }] }] },
  status: { phase: 'Running', podIP: ip },
});

test('NetworkPolicy: a dropped connection is a timeout; an allowed one is answered; DNS needs its own egress rule', () => {
  const network = new SimNetwork();
  const server = runningPod('web', '10.244.1.5', { app: 'web' });
  const client = runningPod('client', '10.244.1.6', { role: 'client' });
  const other = runningPod('other', '10.244.1.7', { role: 'other' });
  network.listen('10.244.1.5', 9376, { http: () => ({ status: 200, body: 'hello\n' }) });
  const policies: NetworkPolicy[] = [];
  const src: NetSource = {
    ...source([svc('web', '10.96.7.7')], [eps('web', [{ ip: '10.244.1.5' }])], [server, client, other]),
    networkPolicies: (ns) => policies.filter((p) => p.metadata?.namespace === ns),
  };
  const from = (ip: string) => new ClusterNet(src, 'default', { network, clientIP: ip });
  assert.deepEqual(from('10.244.1.6').httpGet('http://web'), { ok: true, status: 200, body: 'hello\n' });
  policies.push({ metadata: { namespace: 'default', name: 'deny' }, spec: { podSelector: {} } });
  assert.deepEqual(from('10.244.1.6').httpGet('http://web'), { ok: false, error: 'timeout', ip: '10.96.7.7' });
  assert.deepEqual(from('10.244.1.6').tcp('10.244.1.5', 9376, ''), { ok: false, error: 'timeout', ip: '10.244.1.5' });
  policies.push({
    metadata: { namespace: 'default', name: 'allow-client' },
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 'http' }] }],
    },
  });
  assert.equal(from('10.244.1.6').httpGet('http://web').ok, true);
  assert.deepEqual(from('10.244.1.7').httpGet('http://web'), { ok: false, error: 'timeout', ip: '10.96.7.7' });
  // Egress deny: names no longer resolve until DNS to kube-dns is allowed.
  policies.push({
    metadata: { namespace: 'default', name: 'deny-egress' },
    spec: { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] },
  });
  assert.equal(from('10.244.1.6').dnsReachable(), false);
  const blocked = from('10.244.1.6').httpGet('http://web');
  assert.equal(!blocked.ok && blocked.error, 'resolve');
  policies.push({
    metadata: { namespace: 'default', name: 'allow-dns' },
    spec: {
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
          ports: [{ port: 53, protocol: 'UDP' }],
        },
      ],
    },
  });
  assert.equal(from('10.244.1.6').dnsReachable(), true);
  assert.deepEqual(from('10.244.1.6').httpGet('http://web'), { ok: false, error: 'timeout', ip: '10.96.7.7' });
  assert.equal(from('10.244.1.7').httpGet('http://web').ok, false, 'other is still refused at the server');
});

test('the ingress address answers through the NetSource; the Host header decides', () => {
  const seen: string[] = [];
  const src: NetSource = {
    ...source([], []),
    ingress: () => ({
      http: (req) => {
        seen.push(req.host);
        return { status: 200, body: `host ${req.host}` };
      },
    }),
  };
  const net = new ClusterNet(src, 'default', { network: new SimNetwork(), clientIP: '10.244.1.6' });
  assert.deepEqual(net.httpGet('http://172.18.255.200/', { headers: { Host: 'foo.example' } }), {
    ok: true,
    status: 200,
    body: 'host foo.example',
  });
  assert.deepEqual(seen, ['foo.example']);
});
