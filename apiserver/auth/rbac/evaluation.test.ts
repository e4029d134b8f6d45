import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { AuthzAttributes } from '../authorizer-types.ts';
import { ruleAllows } from './evaluation.ts';

const user = { username: 'u', groups: [] };
const res = (verb: string, group: string, resource: string, subresource = '', name = ''): AuthzAttributes => ({
  user,
  verb,
  resourceRequest: true,
  path: '',
  apiGroup: group,
  apiVersion: 'v1',
  resource,
  subresource,
  namespace: 'ns',
  name,
});
const url = (verb: string, path: string): AuthzAttributes => ({ ...res(verb, '', ''), resourceRequest: false, path, namespace: '' });

test('ruleAllows: verbs, groups, resources, subresources, names and URLs as kube matches them', () => {
  const cases: [string, PolicyRule, AuthzAttributes, boolean][] = [
    ['exact', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods'), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', '', 'pods'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', '', 'pods'), true],
    ['other group', { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, res('get', 'apps', 'deployments'), false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, res('get', 'apps', 'deployments'), true],
    ['no groups listed', { verbs: ['get'], resources: ['pods'] }, res('get', '', 'pods'), false],
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', '', 'pods', 'log'), true],
    ['pods does not cover pods/log', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods', 'log'), false],
    ['pods/log', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', 'log'), true],
    ['pods/log does not cover pods', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods'), false],
    ['*/scale', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments', 'scale'), true],
    [
      '*/scale is not */status',
      { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] },
      res('get', 'apps', 'deployments', 'status'),
      false,
    ],
    ['*/scale needs a subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'scale'), false],
    ['res/* is not a kube form', { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, res('get', '', 'pods', 'log'), false],
    [
      'name listed',
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      res('get', '', 'secrets', '', 'a'),
      true,
    ],
    [
      'other name',
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      res('get', '', 'secrets', '', 'b'),
      false,
    ],
    [
      'names and a list',
      { verbs: ['list'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      res('list', '', 'secrets'),
      false,
    ],
    ['resource rule and a URL', { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, url('get', '/healthz'), false],
    ['URL exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz'), true],
    ['URL exact, other path', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz/etcd'), false],
    ['URL prefix *', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, url('get', '/healthz/etcd'), true],
    ['URL prefix * needs the slash', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, url('get', '/healthz'), false],
    ['URL *', { verbs: ['get'], nonResourceURLs: ['*'] }, url('get', '/anything'), true],
    ['URL verb', { verbs: ['get'], nonResourceURLs: ['*'] }, url('post', '/anything'), false],
    ['URL rule and a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, res('get', '', 'pods'), false],
  ];
  for (const [why, rule, attrs, want] of cases) assert.equal(ruleAllows(attrs, rule), want, why);
});
