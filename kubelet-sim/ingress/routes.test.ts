// Tables for the Ingress API's path matching and ksim's ingress-nginx's choice of backend.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import { isOurs, pathMatches, route } from './routes.ts';

describe('path matching (the Ingress API examples)', () => {
  const cases: [string, string, string, boolean][] = [
    ['Prefix', '/', '/anything', true],
    ['Exact', '/foo', '/foo', true],
    ['Exact', '/foo', '/bar', false],
    ['Exact', '/foo', '/foo/', false],
    ['Exact', '/foo/', '/foo', false],
    ['Prefix', '/foo', '/foo', true],
    ['Prefix', '/foo', '/foo/', true],
    ['Prefix', '/foo/', '/foo', true],
    ['Prefix', '/foo/', '/foo/', true],
    ['Prefix', '/aaa/bb', '/aaa/bbb', false],
    ['Prefix', '/aaa/bbb', '/aaa/bbb', true],
    ['Prefix', '/aaa/bbb/', '/aaa/bbb', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbb/', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbb/ccc', true],
    ['Prefix', '/aaa/bbb', '/aaa/bbbxyz', false],
    ['Prefix', '/aaa', '/aaa/ccc', true],
    ['ImplementationSpecific', '/aaa', '/aaa/ccc', true],
    ['ImplementationSpecific', '/aaa', '/aaab', false],
  ];
  for (const [type, rule, req, want] of cases) it(`${type} ${rule} ~ ${req}`, () => assert.equal(pathMatches(type, rule, req), want));
});

const nginx: IngressClass = {
  metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
  spec: { controller: 'k8s.io/ingress-nginx' },
};
const other: IngressClass = { metadata: { name: 'traefik' }, spec: { controller: 'traefik.io/ingress-controller' } };
const be = (name: string) => ({ service: { name, port: { number: 80 } } });
const ing = (name: string, spec: Ingress['spec'], annotations?: Record<string, string>, created = '2026-01-01T00:00:00Z'): Ingress => ({
  metadata: { name, namespace: 'default', annotations, creationTimestamp: created },
  spec,
});
const paths = (...p: [string, string, string][]) => ({ paths: p.map(([path, pathType, svc]) => ({ path, pathType, backend: be(svc) })) });

describe('the backend for a request', () => {
  const fanout = ing('fanout', {
    ingressClassName: 'nginx',
    rules: [
      { host: 'foo.example', http: paths(['/', 'Prefix', 'foo'], ['/api', 'Prefix', 'foo-api'], ['/api/v1/exact', 'Exact', 'exact']) },
      { host: 'bar.example', http: paths(['/', 'Prefix', 'bar']) },
      { host: '*.wild.example', http: paths(['/', 'Prefix', 'wild']) },
      { http: paths(['/any', 'Prefix', 'any']) },
    ],
  });
  const withDefault = ing('default', { ingressClassName: 'nginx', defaultBackend: be('fallback') }, undefined, '2026-01-02T00:00:00Z');
  const rewrite = ing(
    'rewrite',
    { ingressClassName: 'nginx', rules: [{ host: 'rw.example', http: paths(['/app(/|$)(.*)', 'ImplementationSpecific', 'app']) }] },
    { 'nginx.ingress.kubernetes.io/rewrite-target': '/$2' },
  );
  const foreign = ing('foreign', {
    ingressClassName: 'traefik',
    rules: [{ host: 'foo.example', http: paths(['/x', 'Exact', 'traefik']) }],
  });
  const all = [fanout, withDefault, rewrite, foreign];
  const cases: [string, string, string | undefined, string?][] = [
    ['foo.example', '/', 'foo'],
    ['foo.example:8080', '/index.html', 'foo'],
    ['FOO.example', '/api/users', 'foo-api'],
    ['foo.example', '/apis', 'foo'],
    ['foo.example', '/api/v1/exact', 'exact'],
    ['foo.example', '/x', 'foo'],
    ['bar.example', '/anything', 'bar'],
    ['a.wild.example', '/', 'wild'],
    ['a.b.wild.example', '/any', 'any'],
    ['unknown.example', '/any/thing', 'any'],
    ['unknown.example', '/', 'fallback'],
    ['172.18.255.200', '/', 'fallback'],
    ['rw.example', '/app/hello', 'app', '/hello'],
    ['rw.example', '/app', 'app', '/'],
  ];
  for (const [host, path, want, rewritten] of cases)
    it(`${host}${path} -> ${want ?? '404'}`, () => {
      const r = route(all, [nginx, other], host, path);
      assert.equal(r?.backend.service?.name, want);
      if (rewritten) assert.equal(r?.path, rewritten);
    });

  it('no default backend: the controller answers 404 (no route)', () => {
    assert.equal(route([fanout], [nginx], 'unknown.example', '/'), undefined);
  });
  it('an Ingress without a class is ours only while our class is the default', () => {
    const classless = ing('c', { defaultBackend: be('c') });
    assert.equal(isOurs(classless, [nginx]), true);
    assert.equal(isOurs(classless, [{ ...nginx, metadata: { name: 'nginx' } }]), false);
    assert.equal(
      isOurs(ing('a', { defaultBackend: be('c') }, { 'kubernetes.io/ingress.class': 'nginx' }), [
        { ...nginx, metadata: { name: 'nginx' } },
      ]),
      true,
    );
    assert.equal(isOurs(foreign, [nginx, other]), false);
  });
});
