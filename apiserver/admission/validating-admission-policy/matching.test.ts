import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchResources, ruleMatches, type MatchRequest, type MatchResources, type ResourceRule } from './matching.ts';

const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const request = (over: Partial<MatchRequest> = {}): MatchRequest => ({
  resource: deployments,
  subresource: '',
  operation: 'CREATE',
  namespace: 'lab',
  name: 'web',
  objectLabels: { app: 'web' },
  namespaceLabels: { env: 'test' },
  ...over,
});
const rule = (over: Partial<ResourceRule> = {}): ResourceRule => ({
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  operations: ['CREATE'],
  resources: ['deployments'],
  ...over,
});

test('resource rules: operations, groups, versions, resources with * and subresources, scope, resourceNames', () => {
  const cases: Array<[string, ResourceRule, Partial<MatchRequest>, boolean]> = [
    ['exact', rule(), {}, true],
    ['other operation', rule(), { operation: 'UPDATE' }, false],
    ['* operation', rule({ operations: ['*'] }), { operation: 'DELETE' }, true],
    ['other group', rule({ apiGroups: [''] }), {}, false],
    ['* group and version', rule({ apiGroups: ['*'], apiVersions: ['*'] }), {}, true],
    ['* resource', rule({ resources: ['*'] }), {}, true],
    ['* resource is not a subresource', rule({ resources: ['*'] }), { subresource: 'scale' }, false],
    ['resource without subresource', rule(), { subresource: 'status' }, false],
    ['named subresource', rule({ resources: ['deployments/scale'] }), { subresource: 'scale' }, true],
    ['*/scale', rule({ resources: ['*/scale'] }), { subresource: 'scale' }, true],
    ['deployments/*', rule({ resources: ['deployments/*'] }), { subresource: 'status' }, true],
    ['deployments/* matches the resource itself too (kube: sub * matches an empty one)', rule({ resources: ['deployments/*'] }), {}, true],
    ['Namespaced scope, namespaced request', rule({ scope: 'Namespaced' }), {}, true],
    ['Cluster scope, namespaced request', rule({ scope: 'Cluster' }), {}, false],
    ['Cluster scope, cluster request', rule({ scope: 'Cluster' }), { namespace: '' }, true],
  ];
  for (const [name, r, over, want] of cases) {
    const req = request(over);
    assert.equal(ruleMatches(r, req, req.resource), want, name);
  }
  const mr = (r: ResourceRule): MatchResources => ({
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    resourceRules: [r],
  });
  assert.equal(matchResources(mr(rule({ resourceNames: ['web'] })), request()).matches, true);
  assert.equal(matchResources(mr(rule({ resourceNames: ['api'] })), request()).matches, false);
});

test('selectors, exclusions and equivalent versions', () => {
  const base: MatchResources = { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [rule()] };
  const cases: Array<[string, MatchResources, Partial<MatchRequest>, boolean | string]> = [
    ['all', base, {}, true],
    ['namespace selected', { ...base, namespaceSelector: { matchLabels: { env: 'test' } } }, {}, true],
    ['namespace not selected', { ...base, namespaceSelector: { matchLabels: { env: 'prod' } } }, {}, false],
    [
      'namespace selector in expressions',
      { ...base, namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] } },
      {},
      true,
    ],
    [
      'missing namespace is an error',
      { ...base, namespaceSelector: { matchLabels: { env: 'test' } } },
      { namespaceLabels: undefined },
      'namespaces "lab" not found',
    ],
    [
      'cluster-scoped resources are never exempt',
      { ...base, namespaceSelector: { matchLabels: { env: 'prod' } }, resourceRules: [rule({ apiGroups: ['*'], resources: ['*'] })] },
      { namespace: '', resource: { group: '', version: 'v1', resource: 'nodes' } },
      true,
    ],
    ['object selected', { ...base, objectSelector: { matchLabels: { app: 'web' } } }, {}, true],
    ['old object selected', { ...base, objectSelector: { matchLabels: { app: 'old' } } }, { oldObjectLabels: { app: 'old' } }, true],
    ['object not selected', { ...base, objectSelector: { matchLabels: { app: 'api' } } }, {}, false],
    ['excluded', { ...base, excludeResourceRules: [rule({ resourceNames: ['web'] })] }, {}, false],
    ['not excluded', { ...base, excludeResourceRules: [rule({ resourceNames: ['api'] })] }, {}, true],
    [
      'equivalent version',
      { ...base, resourceRules: [rule({ apiVersions: ['v1beta1'] })] },
      { equivalents: [{ group: 'apps', version: 'v1beta1', resource: 'deployments' }] },
      true,
    ],
    [
      'exact policy ignores equivalents',
      { ...base, matchPolicy: 'Exact', resourceRules: [rule({ apiVersions: ['v1beta1'] })] },
      { equivalents: [{ group: 'apps', version: 'v1beta1', resource: 'deployments' }] },
      false,
    ],
  ];
  for (const [name, mr, over, want] of cases) {
    const got = matchResources(mr, request(over));
    if (typeof want === 'string') assert.deepEqual(got, { matches: false, error: want }, name);
    else assert.equal(got.matches, want, name);
  }
});
