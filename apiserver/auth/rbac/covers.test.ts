import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { compactRules, compactString, covers } from './covers.ts';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };

test('covers: kube Covers semantics', () => {
  const cases: [string, PolicyRule[], PolicyRule[], boolean][] = [
    ['same rule', [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods'])], true],
    ['verb subset', [r(['get', 'list'], [''], ['pods'])], [r(['list'], [''], ['pods'])], true],
    ['missing verb', [r(['get'], [''], ['pods'])], [r(['get', 'delete'], [''], ['pods'])], false],
    ['split across owner rules', [r(['get'], [''], ['pods']), r(['delete'], [''], ['pods'])], [r(['get', 'delete'], [''], ['pods'])], true],
    ['star everything', [r(['*'], ['*'], ['*'])], [r(['escalate'], ['rbac.authorization.k8s.io'], ['roles'])], true],
    ['*/scale covers deployments/scale', [r(['get'], ['apps'], ['*/scale'])], [r(['get'], ['apps'], ['deployments/scale'])], true],
    ['*/scale does not cover deployments', [r(['get'], ['apps'], ['*/scale'])], [r(['get'], ['apps'], ['deployments'])], false],
    ['names: owner unrestricted', [r(['get'], [''], ['secrets'])], [r(['get'], [''], ['secrets'], ['a'])], true],
    ['names: owner restricted, servant not', [r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'])], false],
    ['names: other name', [r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'], ['b'])], false],
    ['URL prefix', [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] }], true],
    ['URL not covered', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }], false],
    ['resource rule does not cover a URL', [r(['*'], ['*'], ['*'])], [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }], false],
  ];
  for (const [why, owner, servant, want] of cases) assert.equal(covers(owner, servant)[0], want, why);
  assert.deepEqual(covers([r(['get'], [''], ['pods'])], [r(['get', 'delete'], ['', 'apps'], ['pods'])])[1], [
    r(['delete'], [''], ['pods']),
    r(['get'], ['apps'], ['pods']),
    r(['delete'], ['apps'], ['pods']),
  ]);
});

test('compactRules and compactString print what is missing as kube does', () => {
  const compact = compactRules([r(['get'], [''], ['pods']), r(['list'], [''], ['pods']), { verbs: ['get'], nonResourceURLs: ['/x'] }]);
  assert.deepEqual(compact.map(compactString), [
    '{NonResourceURLs:["/x"], Verbs:["get"]}',
    '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
  ]);
  assert.equal(
    compactString(r(['get'], ['apps'], ['deployments'], ['web'])),
    '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
  );
});
