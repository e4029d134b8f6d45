import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { Store } from '../../storage/store.ts';
import { pickEndpoint } from './service-proxy.ts';
import { goDialError, matchProxyPath, splitSchemeNamePort } from './proxy.ts';

function store(objects: Record<string, unknown>): Store {
  return { get: (k: string) => (objects[k] ? { json: JSON.stringify(objects[k]) } : undefined) } as unknown as Store;
}
const pod = (name: string, ip: string): Pod => ({ metadata: { name, namespace: 'd' }, status: { podIP: ip } });
const svc: Service = {
  metadata: { name: 'web' },
  spec: {
    ports: [
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ],
  },
};
const eps = (subsets: Endpoints['subsets']): Endpoints => ({ metadata: { name: 'web' }, subsets });
const base = {
  '/registry/core/services/d/web': svc,
  '/registry/core/pods/d/a': pod('a', '10.0.0.1'),
  '/registry/core/pods/d/b': pod('b', '10.0.0.2'),
};
const ready = eps([
  {
    addresses: [
      { ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'a' } },
      { ip: '10.0.0.2', targetRef: { kind: 'Pod', name: 'b' } },
    ],
    ports: [
      { name: 'http', port: 8080 },
      { name: 'metrics', port: 9091 },
    ],
  },
]);

const cases: [string, Record<string, unknown>, string, { pod: string; port: number } | [number, string]][] = [
  [
    'a port number is the Service port of that name',
    { ...base, '/registry/core/endpoints/d/web': ready },
    'web:80',
    { pod: 'a', port: 8080 },
  ],
  ['a port name', { ...base, '/registry/core/endpoints/d/web': ready }, 'web:metrics', { pod: 'a', port: 9091 }],
  ['a scheme, a name and a port', { ...base, '/registry/core/endpoints/d/web': ready }, 'https:web:80', { pod: 'a', port: 8080 }],
  [
    'no Service port with that number',
    { ...base, '/registry/core/endpoints/d/web': ready },
    'web:81',
    [503, 'no service port 81 found for service "web"'],
  ],
  ['no endpoints', { ...base, '/registry/core/endpoints/d/web': eps([]) }, 'web:80', [503, 'no endpoints available for service "web"']],
  [
    'an unnamed port asked for by name matches nothing',
    { ...base, '/registry/core/endpoints/d/web': ready },
    'web',
    [503, 'no endpoints available for service "web"'],
  ],
  [
    'an address that is not its Pod any more is skipped',
    { ...base, '/registry/core/pods/d/a': pod('a', '10.9.9.9'), '/registry/core/endpoints/d/web': ready },
    'web:80',
    { pod: 'b', port: 8080 },
  ],
  ['no Endpoints object', base, 'web:http', [404, 'endpoints "web" not found']],
  ['no Service for a port number', {}, 'web:80', [404, 'services "web" not found']],
  ['too many colons', base, 'a:b:c:d', [400, 'invalid service request "a:b:c:d"']],
];

test("services/proxy picks an endpoint as kube's ResourceLocation does", () => {
  for (const [name, objects, id, want] of cases) {
    try {
      const got = pickEndpoint(store(objects), 'd', id, () => 0);
      assert.deepEqual({ pod: got.pod.metadata?.name, port: got.port }, want, name);
    } catch (err) {
      if (!(err instanceof StatusError) || !Array.isArray(want)) throw err;
      assert.deepEqual([err.code, err.message], want, name);
    }
  }
});

test('proxy paths and SplitSchemeNamePort', () => {
  assert.deepEqual(matchProxyPath('/api/v1/namespaces/d/services/web:80/proxy/a/b'), {
    resource: 'services',
    namespace: 'd',
    id: 'web:80',
    rest: '/a/b',
  });
  assert.deepEqual(matchProxyPath('/api/v1/nodes/n1/proxy'), { resource: 'nodes', namespace: '', id: 'n1', rest: '' });
  assert.equal(matchProxyPath('/api/v1/namespaces/d/services/web/status'), undefined);
  assert.equal(matchProxyPath('/api/v1/namespaces/d/configmaps/x/proxy/'), undefined);
  assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
  assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
  assert.equal(splitSchemeNamePort('ftp:web:21'), undefined);
  assert.equal(splitSchemeNamePort(':80'), undefined);
});

test("dial errors read as Go's", () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:10250'), {
    code: 'ECONNREFUSED',
    address: '127.0.0.1',
    port: 10250,
  });
  assert.equal(goDialError(refused), 'dial tcp 127.0.0.1:10250: connect: connection refused');
  assert.equal(goDialError(new Error('other')), 'other');
});
