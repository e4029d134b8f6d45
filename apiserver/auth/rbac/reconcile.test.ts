import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { Store } from '../../storage/store.ts';
import { MemoryBackend } from '../../storage/memory-backend.ts';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLES } from './bootstrap-policy.ts';
import { RBAC_BUCKETS } from './policy-index.ts';
import { reconcileBootstrapPolicy, reconcileBinding, reconcileRole } from './reconcile.ts';

const log = pino({ level: 'silent' });
const read = <T>(store: Store, key: string) => JSON.parse(store.get(key)!.json) as T;

test('reconcileBootstrapPolicy creates everything once, then restores only what is missing', async () => {
  const store = await Store.open(new MemoryBackend());
  try {
    await reconcileBootstrapPolicy(store, log);
    assert.equal(store.objectCount(RBAC_BUCKETS.clusterRoles), BOOTSTRAP_CLUSTER_ROLES.length);
    assert.equal(store.objectCount(RBAC_BUCKETS.clusterRoleBindings), BOOTSTRAP_CLUSTER_ROLE_BINDINGS.length);
    assert.equal(store.objectCount(RBAC_BUCKETS.roles), BOOTSTRAP_ROLES.length);
    const admin = read<ClusterRole>(store, `${RBAC_BUCKETS.clusterRoles}/cluster-admin`);
    assert.equal(admin.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
    assert.equal(admin.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.ok(admin.metadata?.uid && admin.metadata.creationTimestamp);

    const rev = store.revision;
    await reconcileBootstrapPolicy(store, log);
    assert.equal(store.revision, rev, 'a second start writes nothing');

    // A user edits a bootstrap role: drops a rule, adds one; and drops a binding's subject.
    const key = `${RBAC_BUCKETS.clusterRoles}/system:basic-user`;
    const extra = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] };
    await store.txn(key, (cur) => ({ ...cur!, rules: [(cur as ClusterRole).rules![1], extra] }));
    const bkey = `${RBAC_BUCKETS.clusterRoleBindings}/system:public-info-viewer`;
    await store.txn(bkey, (cur) => ({ ...cur!, subjects: [(cur as ClusterRoleBinding).subjects![1]] }));
    // And protects another from updates.
    const pkey = `${RBAC_BUCKETS.clusterRoles}/system:discovery`;
    await store.txn(pkey, (cur) => ({
      ...cur!,
      metadata: { ...cur!.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
      rules: [],
    }));
    await reconcileBootstrapPolicy(store, log);
    const basic = read<ClusterRole>(store, key);
    const expected = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata?.name === 'system:basic-user')!.rules!;
    // As kube's reconciler, the missing part is added broken down: one rule per resource and verb.
    const part = (resource: string) => ({ apiGroups: ['authorization.k8s.io'], resources: [resource], verbs: ['create'] });
    assert.deepEqual(
      basic.rules,
      [expected[1], extra, part('selfsubjectaccessreviews'), part('selfsubjectrulesreviews')],
      'missing rule added, extra kept',
    );
    assert.deepEqual(
      read<ClusterRoleBinding>(store, bkey).subjects?.map((s) => s.name),
      ['system:unauthenticated', 'system:authenticated'],
    );
    assert.deepEqual(read<ClusterRole>(store, pkey).rules, [], 'autoupdate=false is left alone');
  } finally {
    await store.close();
  }
});

test('reconcileRole and reconcileBinding: union, roleRef changes recreate', () => {
  const exp: ClusterRole = {
    metadata: { name: 'r', labels: { a: '1' } },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  };
  assert.equal(reconcileRole(structuredClone(exp), exp).op, 'none');
  const cur: ClusterRole = {
    metadata: { name: 'r', labels: { a: '2', b: '3' } },
    rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }],
  };
  assert.equal(reconcileRole(cur, exp).op, 'none', 'covered by a broader rule, existing label value kept');
  const agg: ClusterRole = { metadata: { name: 'v' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] } };
  const r = reconcileRole({ metadata: { name: 'v' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: 'true' } }] } }, agg);
  assert.deepEqual(r.obj?.aggregationRule?.clusterRoleSelectors, [{ matchLabels: { y: 'true' } }, { matchLabels: { x: 'true' } }]);
  const b: ClusterRoleBinding = {
    metadata: { name: 'b' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'x' },
  };
  assert.equal(reconcileBinding({ ...b, roleRef: { ...b.roleRef, name: 'y' } }, b).op, 'recreate');
});
