import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './networking.ts';

const now = new Date('2026-11-30T12:00:00Z');
const created = '2026-11-30T11:59:00Z';
const meta = (name: string) => ({ name, namespace: 'default', creationTimestamp: created });

test('NetworkPolicy rows: the pod selector, <none> when empty', () => {
  assert.deepEqual(networkPolicyPrinter.row({ metadata: meta('deny'), spec: { podSelector: {} } }, { now }).cells, [
    'deny',
    '<none>',
    '60s',
  ]);
  assert.deepEqual(
    networkPolicyPrinter.row({ metadata: meta('web'), spec: { podSelector: { matchLabels: { app: 'web' } } } }, { now }).cells,
    ['web', 'app=web', '60s'],
  );
});

test('Ingress rows: class, hosts, address, ports', () => {
  const ing = {
    metadata: meta('web'),
    spec: {
      ingressClassName: 'nginx',
      rules: [{ host: 'foo.example' }, { host: 'bar.example' }],
      tls: [{ hosts: ['foo.example'] }],
    },
    status: { loadBalancer: { ingress: [{ ip: '172.18.255.200' }] } },
  };
  assert.deepEqual(ingressPrinter.row(ing, { now }).cells, ['web', 'nginx', 'foo.example,bar.example', '172.18.255.200', '80, 443', '60s']);
  const bare = {
    metadata: meta('x'),
    spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } },
    status: { loadBalancer: {} },
  };
  assert.deepEqual(ingressPrinter.row(bare, { now }).cells, ['x', '<none>', '*', '', '80', '60s']);
  const many = {
    metadata: meta('m'),
    spec: { rules: ['a', 'b', 'c', 'd', 'e'].map((h) => ({ host: `${h}.io` })) },
    status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] } },
  };
  assert.deepEqual(ingressPrinter.row(many, { now }).cells.slice(2, 4), ['a.io,b.io,c.io + 2 more...', '10.0.0.1,10.0.0....']);
});

test('IngressClass rows: controller and parameters', () => {
  const ic = { metadata: { name: 'nginx', creationTimestamp: created }, spec: { controller: 'k8s.io/ingress-nginx' } };
  assert.deepEqual(ingressClassPrinter.row(ic, { now }).cells, ['nginx', 'k8s.io/ingress-nginx', '<none>', '60s']);
  const p = {
    ...ic,
    spec: { controller: 'example.com/lb', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } },
  };
  assert.equal(ingressClassPrinter.row(p, { now }).cells[2], 'IngressParameters.k8s.example.com/external-lb');
});
