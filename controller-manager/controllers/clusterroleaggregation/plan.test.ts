import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { BOOTSTRAP_CLUSTER_ROLES } from '../../../apiserver/auth/rbac/bootstrap-policy.ts';
import { aggregatedRules, planAggregation } from './plan.ts';

const get = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });
const role = (name: string, labels: Record<string, string>, rules: ClusterRole['rules']): ClusterRole => ({
  metadata: { name, labels },
  rules,
});
const agg = (name: string, ...keys: string[]): ClusterRole => ({
  metadata: { name },
  aggregationRule: { clusterRoleSelectors: keys.map((k) => ({ matchLabels: { [k]: 'true' } })) },
});

test('aggregatedRules: union of the matching roles, deduplicated, by selector then name', () => {
  const all = [
    role('b', { x: 'true' }, [get('pods'), get('secrets')]),
    role('a', { x: 'true', y: 'true' }, [get('pods')]),
    role('c', { y: 'true' }, [get('configmaps')]),
    role('d', {}, [get('nodes')]),
  ];
  assert.deepEqual(aggregatedRules(agg('r', 'x', 'y'), all), [get('pods'), get('secrets'), get('configmaps')]);
  assert.deepEqual(aggregatedRules(agg('r', 'z'), all), []);
  assert.equal(aggregatedRules(role('plain', {}, []), all), undefined);
  // A role that selects itself does not feed on its own rules.
  const self = { ...agg('self', 'x'), metadata: { name: 'self', labels: { x: 'true' } }, rules: [get('leases')] };
  assert.deepEqual(aggregatedRules(self, [...all, self]), [get('pods'), get('secrets')]);
});

test('planAggregation writes only when the rules change', () => {
  const all = [role('a', { x: 'true' }, [get('pods')])];
  const r = agg('r', 'x');
  assert.deepEqual(planAggregation(r, all)?.rules, [get('pods')]);
  assert.equal(planAggregation({ ...r, rules: [get('pods')] }, all), undefined);
  assert.equal(planAggregation(agg('r', 'none'), all), undefined, 'no rules and none wanted');
});

test('the bootstrap view, edit and admin roles converge as in kube', () => {
  // The controller re-queues every aggregated role on each change: run it to a fixed point.
  const roles = new Map(BOOTSTRAP_CLUSTER_ROLES.map((r) => [r.metadata!.name!, structuredClone(r)]));
  for (let round = 0, changed = true; changed; round++) {
    assert.ok(round < 5, 'converges');
    changed = false;
    for (const r of roles.values()) {
      const next = planAggregation(r, [...roles.values()]);
      if (next) {
        roles.set(r.metadata!.name!, next);
        changed = true;
      }
    }
  }
  const can = (name: string, verb: string, group: string, resource: string) =>
    (roles.get(name)!.rules ?? []).some((r) => r.apiGroups?.includes(group) && r.resources?.includes(resource) && r.verbs.includes(verb));
  assert.equal(can('view', 'get', '', 'pods'), true);
  assert.equal(can('view', 'get', '', 'secrets'), false);
  assert.equal(can('edit', 'get', '', 'pods'), true, 'edit includes view');
  assert.equal(can('edit', 'create', 'apps', 'deployments'), true);
  assert.equal(can('edit', 'create', 'rbac.authorization.k8s.io', 'roles'), false);
  assert.equal(can('admin', 'create', 'rbac.authorization.k8s.io', 'roles'), true);
  assert.equal(can('admin', 'get', '', 'pods'), true, 'admin includes edit and view');
});
