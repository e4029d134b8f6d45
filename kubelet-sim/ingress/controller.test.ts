// ksim's ingress-nginx answering requests: the routed Service's endpoint, nginx's error pages, policies on its traffic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { NetSource } from '../runtime/cluster-net.ts';
import { SimNetwork } from '../runtime/images/network.ts';
import { IngressController } from './controller.ts';

const nginx: IngressClass = { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } };
const svc = (name: string, ip: string): Service => ({
  metadata: { namespace: 'shop', name },
  spec: { clusterIP: ip, ports: [{ port: 80, targetPort: 5678 }] },
});
const eps = (name: string, ip?: string): Endpoints => ({
  metadata: { namespace: 'shop', name },
  subsets: ip ? [{ addresses: [{ ip }], ports: [{ port: 5678 }] }] : [],
});
const pod = (name: string, ip: string): Pod => ({
  metadata: { namespace: 'shop', name, labels: { app: name } },
  spec: { containers: [] },
  status: { phase: 'Running', podIP: ip },
});
const ingress: Ingress = {
  metadata: { namespace: 'shop', name: 'shop' },
  spec: {
    ingressClassName: 'nginx',
    rules: [
      {
        host: 'foo.example',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'foo', port: { number: 80 } } } },
            { path: '/empty', pathType: 'Prefix', backend: { service: { name: 'empty', port: { number: 80 } } } },
            { path: '/down', pathType: 'Prefix', backend: { service: { name: 'down', port: { number: 80 } } } },
          ],
        },
      },
    ],
  },
};

function setup(policies: NetworkPolicy[] = []) {
  const network = new SimNetwork();
  network.listen('10.244.1.5', 5678, { http: (req) => ({ status: 200, body: `foo ${req.path} ${req.host}\n` }) });
  network.addPod('10.244.1.9');
  const services = [svc('foo', '10.96.1.1'), svc('empty', '10.96.1.2'), svc('down', '10.96.1.3')];
  const endpoints = [eps('foo', '10.244.1.5'), eps('empty'), eps('down', '10.244.1.9')];
  const pods = [pod('foo', '10.244.1.5'), pod('down', '10.244.1.9')];
  const key = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  const net: NetSource = {
    service: (ns, n) => services.find((s) => key(s) === `${ns}/${n}`),
    endpoints: (ns, n) => endpoints.find((e) => key(e) === `${ns}/${n}`),
    serviceByIP: (ip) => services.find((s) => s.spec?.clusterIP === ip),
    podByIP: (ip) => pods.find((p) => p.status?.podIP === ip),
    pod: (ns, n) => pods.find((p) => key(p) === `${ns}/${n}`),
    networkPolicies: (ns) => policies.filter((p) => p.metadata?.namespace === ns),
  };
  return new IngressController({ ingresses: () => [ingress], classes: () => [nginx], net, network });
}
const req = (host: string, path: string) => ({ method: 'GET', path, query: new URLSearchParams(), host, clientIP: '10.244.2.2' });

test('a matching rule reaches the Service endpoint with the Host header kept', () => {
  assert.deepEqual(setup().http(req('foo.example', '/index.html')), { status: 200, body: 'foo /index.html foo.example\n' });
});

test("nginx's pages: 404 for no rule, 503 without endpoints, 502 when the endpoint refuses", () => {
  const c = setup();
  const page = (host: string, path: string) => {
    const r = c.http(req(host, path));
    return [r.status, /<title>(.*)<\/title>/.exec(r.body)?.[1], r.body.includes('<hr><center>nginx</center>')];
  };
  assert.deepEqual(page('bar.example', '/'), [404, '404 Not Found', true]);
  assert.deepEqual(page('foo.example', '/empty'), [503, '503 Service Temporarily Unavailable', true]);
  assert.deepEqual(page('foo.example', '/down'), [502, '502 Bad Gateway', true]);
});

test('a policy that does not admit the controller makes nginx time out (504); admitting its namespace lets it through', () => {
  const deny: NetworkPolicy = { metadata: { namespace: 'shop', name: 'deny' }, spec: { podSelector: {} } };
  assert.equal(setup([deny]).http(req('foo.example', '/')).status, 504);
  const allow: NetworkPolicy = {
    metadata: { namespace: 'shop', name: 'from-ingress' },
    spec: {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }] }],
    },
  };
  assert.equal(setup([deny, allow]).http(req('foo.example', '/')).status, 200);
});
