import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Store } from '../storage/store.ts';
import { MemoryBackend } from '../storage/memory-backend.ts';
import type { AuthzAttributes } from './authorizer-types.ts';
import type { UserInfo } from './user-info.ts';
import { createAuthorizer, unionAuthorizer } from './authorizer.ts';
import { reconcileBootstrapPolicy } from './rbac/reconcile.ts';

const res = (user: UserInfo, verb: string, group: string, resource: string, extra: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  user,
  verb,
  resourceRequest: true,
  path: '',
  apiGroup: group,
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace: '',
  name: '',
  ...extra,
});
const url = (user: UserInfo, path: string): AuthzAttributes => ({ ...res(user, 'get', '', ''), resourceRequest: false, path });

test('the Node,RBAC chain over the bootstrap policy', async () => {
  const store = await Store.open(new MemoryBackend());
  try {
    await reconcileBootstrapPolicy(store, pino({ level: 'silent' }));
    const authz = createAuthorizer(store);
    const anon = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    const admin = { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };
    const sched = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
    const sim = { username: 'system:ksim:kubelet-sim', groups: ['system:authenticated'] };
    const node = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
    const cases: [string, AuthzAttributes, string, string][] = [
      ['masters', res({ username: 'x', groups: ['system:masters'] }, 'delete', '', 'nodes'), 'allow', ''],
      [
        'kubeadm admin',
        res(admin, 'create', 'apps', 'deployments', { namespace: 'lab' }),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
      ],
      [
        'anonymous /healthz',
        url(anon, '/healthz'),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
      ],
      ['anonymous /api', url(anon, '/api'), 'noOpinion', ''],
      ['anonymous pods', res(anon, 'list', '', 'pods'), 'noOpinion', ''],
      [
        'authenticated discovery',
        url(admin, '/apis/apps/v1'),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
      ],
      [
        'scheduler binds',
        res(sched, 'create', '', 'pods', { namespace: 'lab', name: 'web', subresource: 'binding' }),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"',
      ],
      ['scheduler cannot delete nodes', res(sched, 'delete', '', 'nodes', { name: 'n1' }), 'noOpinion', ''],
      [
        'kubelet-sim impersonates a node',
        res(sim, 'impersonate', '', 'users', { name: 'system:node:n7' }),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "system:ksim:kubelet-sim" of ClusterRole "system:ksim:kubelet-sim" to User "system:ksim:kubelet-sim"',
      ],
      ['kubelet-sim cannot impersonate system:masters', res(sim, 'impersonate', '', 'groups', { name: 'system:masters' }), 'noOpinion', ''],
      ['node own lease', res(node, 'get', 'coordination.k8s.io', 'leases', { namespace: 'kube-node-lease', name: 'n1' }), 'allow', ''],
      [
        'node, unrelated secret',
        res(node, 'get', '', 'secrets', { namespace: 'lab', name: 's' }),
        'noOpinion',
        "no relationship found between node 'n1' and this object",
      ],
      [
        'node falls through to RBAC',
        res(node, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews'),
        'allow',
        'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
      ],
    ];
    for (const [why, a, decision, reason] of cases) assert.deepEqual(authz.authorize(a), { decision, reason }, why);
    const nodeRules = authz.rulesFor!(node, 'lab')!;
    assert.equal(nodeRules.incomplete, true);
    assert.equal(nodeRules.evaluationError, 'node authorizer does not support user rule resolution');
    assert.ok(nodeRules.resourceRules.some((r) => r.resources?.includes('selfsubjectaccessreviews')));
  } finally {
    await store.close();
  }
});

test('unionAuthorizer: first opinion wins, reasons of the silent ones are joined', () => {
  const say = (decision: 'allow' | 'deny' | 'noOpinion', reason: string) => ({ name: reason, authorize: () => ({ decision, reason }) });
  const a = res({ username: 'u', groups: [] }, 'get', '', 'pods');
  assert.deepEqual(unionAuthorizer([say('noOpinion', 'one'), say('noOpinion', 'two')]).authorize(a), {
    decision: 'noOpinion',
    reason: 'one\ntwo',
  });
  assert.deepEqual(unionAuthorizer([say('noOpinion', 'one'), say('deny', 'no'), say('allow', 'yes')]).authorize(a), {
    decision: 'deny',
    reason: 'no',
  });
});
