import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestUrl } from '../http/request-url.ts';
import { requestAttributes } from './request-attributes.ts';

// [method, target, expected (a subset of the attributes)], after kube's RequestInfoFactory tests.
const CASES: [string, string, Record<string, unknown>][] = [
  ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces', namespace: '', name: '', resourceRequest: true }],
  ['GET', '/api/v1/namespaces/other', { verb: 'get', resource: 'namespaces', namespace: 'other', name: 'other' }],
  ['PUT', '/api/v1/namespaces/other/finalize', { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'finalize' }],
  ['GET', '/api/v1/namespaces/other/pods', { verb: 'list', resource: 'pods', namespace: 'other', name: '' }],
  ['GET', '/api/v1/namespaces/other/pods/foo', { verb: 'get', resource: 'pods', namespace: 'other', name: 'foo' }],
  ['GET', '/api/v1/namespaces/other/pods/foo/log', { verb: 'get', resource: 'pods', name: 'foo', subresource: 'log' }],
  ['GET', '/api/v1/pods', { verb: 'list', resource: 'pods', namespace: '' }],
  ['GET', '/api/v1/namespaces/other/pods?watch=true', { verb: 'watch', resource: 'pods', namespace: 'other' }],
  ['GET', '/api/v1/watch/namespaces/other/pods', { verb: 'watch', resource: 'pods', namespace: 'other' }],
  ['POST', '/api/v1/namespaces/other/pods', { verb: 'create', resource: 'pods' }],
  ['DELETE', '/api/v1/namespaces/other/pods', { verb: 'deletecollection', resource: 'pods' }],
  ['DELETE', '/api/v1/namespaces/other/pods/foo', { verb: 'delete', name: 'foo' }],
  ['PATCH', '/apis/apps/v1/namespaces/lab/deployments/web/scale', { verb: 'patch', apiGroup: 'apps', subresource: 'scale' }],
  ['GET', '/apis/apps/v1/namespaces/lab/deployments', { verb: 'list', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' }],
  ['GET', '/apis/nosuch.io/v1/widgets', { verb: 'list', apiGroup: 'nosuch.io', resource: 'widgets', resourceRequest: true }],
  ['GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1', { verb: 'list', resource: 'nodes', name: 'n1' }],
  ['GET', '/api/v1/nodes?watch=1&fieldSelector=metadata.name%3D%3Dn2', { verb: 'watch', name: 'n2' }],
  ['GET', '/api/v1/namespaces/a/pods/p/exec?command=ls', { verb: 'create', subresource: 'exec' }],
  ['POST', '/api/v1/namespaces/a/pods/p/exec?command=ls', { verb: 'create', subresource: 'exec' }],
  ['GET', '/api/v1/namespaces/a/services/s/proxy/x/y', { verb: 'get', resource: 'services', subresource: 'proxy' }],
  ['GET', '/api/v1/proxy/namespaces/a/services/s', { verb: 'proxy', resource: 'services', name: 's', subresource: '' }],
  ['GET', '/healthz', { verb: 'get', resourceRequest: false, path: '/healthz' }],
  ['HEAD', '/version', { verb: 'head', resourceRequest: false }],
  ['GET', '/api', { verb: 'get', resourceRequest: false, path: '/api' }],
  ['GET', '/api/v1', { verb: 'get', resourceRequest: false }],
  ['GET', '/apis/apps', { verb: 'get', resourceRequest: false }],
  ['GET', '/apis/apps/v1', { verb: 'get', resourceRequest: false }],
  ['POST', '/metrics', { verb: 'post', resourceRequest: false }],
  ['GET', '/api/v1/namespaces/%zz/pods', { verb: 'get', resourceRequest: false }],
];

test('request attributes are read from the method and path as kube reads them', () => {
  for (const [method, target, want] of CASES) {
    const got = requestAttributes(method, parseRequestUrl(target));
    for (const [k, v] of Object.entries(want)) assert.equal(got[k as keyof typeof got], v, `${method} ${target}: ${k}`);
  }
});
