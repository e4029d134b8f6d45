import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const np = (spec: any) => ({ metadata: { name: 'p', namespace: 'default' }, spec });
const ing = (spec: any, extra: any = {}) => ({ metadata: { name: 'web', namespace: 'default', ...extra }, spec });
const svc = (name = 'web', port: any = { number: 80 }) => ({ service: { name, port } });

describe('NetworkPolicy', () => {
  it('defaults policyTypes and the port protocol', () => {
    assert.deepEqual(defaulted('networking.k8s.io/networkpolicies', np({ podSelector: {} })).spec.policyTypes, ['Ingress']);
    const d = defaulted('networking.k8s.io/networkpolicies', np({ podSelector: {}, egress: [{ ports: [{ port: 53 }] }] }));
    assert.deepEqual(d.spec.policyTypes, ['Ingress', 'Egress']);
    assert.equal(d.spec.egress[0].ports[0].protocol, 'TCP');
  });
  const M = (p: any) => invalidMessage('networking.k8s.io/networkpolicies', 'NetworkPolicy', 'networking.k8s.io', p);
  const cases: [string, any, string][] = [
    ['default deny', np({ podSelector: {} }), ''],
    ['allow DNS', np({ podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }] }), ''],
    [
      'empty peer',
      np({ podSelector: {}, ingress: [{ from: [{}] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.ingress[0].from[0]: Required value: must specify a peer',
    ],
    [
      'ipBlock with a selector',
      np({ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer',
    ],
    [
      'except outside the cidr',
      np({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', '10.0.0.0/8'] } }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: [spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`, spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`]',
    ],
    [
      'bad cidr',
      np({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ],
    [
      'endPort below port',
      np({ podSelector: {}, ingress: [{ ports: [{ port: 9000, endPort: 8000 }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.ingress[0].ports[0].endPort: Invalid value: 8000: must be greater than or equal to `port`',
    ],
    [
      'endPort with a named port',
      np({ podSelector: {}, ingress: [{ ports: [{ port: 'http', endPort: 8000 }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.ingress[0].ports[0].endPort: Invalid value: 8000: may not be specified when `port` is non-numeric',
    ],
    [
      'bad protocol',
      np({ podSelector: {}, ingress: [{ ports: [{ port: 80, protocol: 'ICMP' }] }] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    ],
    [
      'bad policy type',
      np({ podSelector: {}, policyTypes: ['Inbound'] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.policyTypes[0]: Unsupported value: "Inbound": supported values: "Ingress", "Egress"',
    ],
    [
      'three policy types',
      np({ podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Egress'] }),
      'NetworkPolicy.networking.k8s.io "p" is invalid: spec.policyTypes: Invalid value: &[]networking.PolicyType{"Ingress", "Egress", "Egress"}: may not specify more than two policyTypes',
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
});

describe('Ingress', () => {
  const M = (p: any) => invalidMessage('networking.k8s.io/ingresses', 'Ingress', 'networking.k8s.io', p);
  const rule = (host: string | undefined, path: any) => ({ host, http: { paths: [path] } });
  const cases: [string, any, string][] = [
    ['valid', ing({ rules: [rule('foo.example', { path: '/', pathType: 'Prefix', backend: svc() })] }), ''],
    ['default backend only', ing({ defaultBackend: svc() }), ''],
    ['tls accepted', ing({ tls: [{ hosts: ['foo.example'], secretName: 'foo-tls' }], defaultBackend: svc() }), ''],
    [
      'neither',
      ing({}),
      'Ingress.networking.k8s.io "web" is invalid: spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified',
    ],
    [
      'no pathType',
      ing({ rules: [rule('foo.example', { path: '/', backend: svc() })] }),
      'Ingress.networking.k8s.io "web" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    ],
    [
      'relative Prefix path',
      ing({ rules: [rule(undefined, { path: 'foo', pathType: 'Prefix', backend: svc() })] }),
      'Ingress.networking.k8s.io "web" is invalid: spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path',
    ],
    [
      'bad pathType',
      ing({ rules: [rule(undefined, { path: '/', pathType: 'Regex', backend: svc() })] }),
      'Ingress.networking.k8s.io "web" is invalid: spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ],
    [
      'IP host',
      ing({ rules: [rule('1.2.3.4', { path: '/', pathType: 'Prefix', backend: svc() })] }),
      'Ingress.networking.k8s.io "web" is invalid: spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ],
    [
      'no port',
      ing({ defaultBackend: { service: { name: 'web' } } }),
      'Ingress.networking.k8s.io "web" is invalid: spec.defaultBackend: Required value: port name or number is required',
    ],
    [
      'class annotation disagrees',
      ing({ ingressClassName: 'nginx', defaultBackend: svc() }, { annotations: { 'kubernetes.io/ingress.class': 'traefik' } }),
      'Ingress.networking.k8s.io "web" is invalid: annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
});

describe('IngressClass', () => {
  const M = (p: any, old?: any) => invalidMessage('networking.k8s.io/ingressclasses', 'IngressClass', 'networking.k8s.io', p, old);
  const ic = (spec: any) => ({ metadata: { name: 'nginx' }, spec });
  it('valid', () => assert.equal(M(ic({ controller: 'k8s.io/ingress-nginx' })), ''));
  it('controller required', () =>
    assert.equal(M(ic({})), 'IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Required value'));
  it('controller immutable', () =>
    assert.equal(
      M(ic({ controller: 'example.com/other' }), ic({ controller: 'k8s.io/ingress-nginx' })),
      'IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable',
    ));
  it('parameters scope defaults to Cluster', () =>
    assert.equal(
      defaulted('networking.k8s.io/ingressclasses', ic({ controller: 'k8s.io/x', parameters: { kind: 'K', name: 'n' } })).spec.parameters
        .scope,
      'Cluster',
    ));
});
