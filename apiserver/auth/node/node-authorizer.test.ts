import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Store } from '../../storage/store.ts';
import { MemoryBackend } from '../../storage/memory-backend.ts';
import { NODE_RULES } from '../rbac/bootstrap-policy.ts';
import { nodeAuthorizer, type NodeAuthzAttributes } from './node-authorizer.ts';
import { PodGraph, PODS_BUCKET, storePodGraph } from './pod-graph.ts';

const pod = (ns: string, name: string, nodeName: string, spec: Pod['spec'] = { containers: [] }): Pod => ({
  metadata: { namespace: ns, name },
  spec: { ...spec, nodeName },
});
const graph = new PodGraph();
graph.set(
  '/registry/core/pods/lab/a',
  1,
  pod('lab', 'a', 'node-a', {
    serviceAccountName: 'builder',
    imagePullSecrets: [{ name: 'pull' }],
    containers: [
      {
        name: 'c',
        env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }],
        envFrom: [{ configMapRef: { name: 'env-cm' } }],
      },
    ],
    volumes: [
      { name: 'v', secret: { secretName: 'vol-secret' } },
      { name: 'p', projected: { sources: [{ configMap: { name: 'proj-cm' } }] } },
      { name: 'd', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'e', ephemeral: {} },
    ],
  }),
);
graph.set(
  '/registry/core/pods/lab/b',
  1,
  pod('lab', 'b', 'node-b', { containers: [], volumes: [{ name: 'v', secret: { secretName: 'only-b' } }] }),
);
graph.set(
  '/registry/core/pods/lab/pending',
  1,
  pod('lab', 'pending', '', { containers: [], volumes: [{ name: 'v', secret: { secretName: 'pending-secret' } }] }),
);
// Stored objects for the PersistentVolume edge: pv-data bound both ways to lab/data (a claim of node-a's Pod a);
// pv-half names lab/data but the claim is bound to another volume; pv-free is bound to nothing.
const stored: Record<string, object> = {
  '/registry/core/persistentvolumes/pv-data': { spec: { claimRef: { namespace: 'lab', name: 'data' } } },
  '/registry/core/persistentvolumeclaims/lab/data': { spec: { volumeName: 'pv-data' } },
  '/registry/core/persistentvolumes/pv-half': { spec: { claimRef: { namespace: 'lab', name: 'data' } } },
  '/registry/core/persistentvolumes/pv-free': { spec: {} },
};
const authz = nodeAuthorizer(
  () => graph,
  NODE_RULES,
  (key) => (stored[key] ? JSON.stringify(stored[key]) : undefined),
);

const nodeA = { username: 'system:node:node-a', groups: ['system:nodes', 'system:authenticated'] };
const ask = (verb: string, resource: string, extra: Partial<NodeAuthzAttributes> = {}): NodeAuthzAttributes => ({
  user: nodeA,
  verb,
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace: '',
  name: '',
  ...extra,
});

test('Node authorizer: a node reaches its own objects and what its pods use, and no more', () => {
  const no = (reason = '') => ({ decision: 'noOpinion', reason });
  const yes = { decision: 'allow', reason: '' };
  const lab = { namespace: 'lab' };
  const cases: [string, NodeAuthzAttributes, object][] = [
    ['own Node', ask('get', 'nodes', { name: 'node-a' }), yes],
    ['other Node', ask('get', 'nodes', { name: 'node-b' }), no("node 'node-a' cannot read 'node-b', only its own Node object")],
    ['all Nodes', ask('list', 'nodes'), no("node 'node-a' cannot read all nodes, only its own Node object")],
    ['Node status', ask('patch', 'nodes', { name: 'node-b', subresource: 'status' }), yes],
    ['Node delete', ask('delete', 'nodes', { name: 'node-a' }), no()],
    ['own Lease', ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'node-a' }), yes],
    [
      'other Lease',
      ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'node-b' }),
      no('can only access node lease with the same name as the requesting node'),
    ],
    [
      'Lease elsewhere',
      ask('get', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'default', name: 'node-a' }),
      no('can only access leases in the "kube-node-lease" system namespace'),
    ],
    ['own Pod', ask('get', 'pods', { ...lab, name: 'a' }), yes],
    ["other node's Pod", ask('get', 'pods', { ...lab, name: 'b' }), no("no relationship found between node 'node-a' and this object")],
    ['pods with its field selector', ask('watch', 'pods', { fieldSelector: 'spec.nodeName=node-a' }), yes],
    [
      'pods with another field selector',
      ask('list', 'pods', { fieldSelector: 'spec.nodeName=node-b' }),
      no('can only list/watch pods with spec.nodeName field selector'),
    ],
    ['all pods', ask('list', 'pods'), no('can only list/watch pods with spec.nodeName field selector')],
    ['pod status of any pod', ask('update', 'pods', { ...lab, name: 'b', subresource: 'status' }), yes],
    ['secret from a volume', ask('get', 'secrets', { ...lab, name: 'vol-secret' }), yes],
    ['secret from env', ask('get', 'secrets', { ...lab, name: 'env-secret' }), yes],
    ['image pull secret', ask('watch', 'secrets', { ...lab, name: 'pull' }), yes],
    [
      "secret only used by node B's pod",
      ask('get', 'secrets', { ...lab, name: 'only-b' }),
      no("no relationship found between node 'node-a' and this object"),
    ],
    [
      'secret of an unscheduled pod',
      ask('get', 'secrets', { ...lab, name: 'pending-secret' }),
      no("no relationship found between node 'node-a' and this object"),
    ],
    ['list secrets', ask('list', 'secrets', lab), no('No Object name found')],
    ['write a secret', ask('update', 'secrets', { ...lab, name: 'vol-secret' }), no('can only read resources of this type')],
    ['configmap from envFrom', ask('get', 'configmaps', { ...lab, name: 'env-cm' }), yes],
    ['configmap from a projected volume', ask('get', 'configmaps', { ...lab, name: 'proj-cm' }), yes],
    ['pvc', ask('get', 'persistentvolumeclaims', { ...lab, name: 'data' }), yes],
    ['ephemeral pvc', ask('get', 'persistentvolumeclaims', { ...lab, name: 'a-e' }), yes],
    ['list pvcs', ask('list', 'persistentvolumeclaims', lab), no('can only get individual resources of this type')],
    ['pv bound to its pod claim', ask('get', 'persistentvolumes', { name: 'pv-data' }), yes],
    [
      'pv whose claim is bound elsewhere',
      ask('get', 'persistentvolumes', { name: 'pv-half' }),
      no("no relationship found between node 'node-a' and this object"),
    ],
    ['unbound pv', ask('get', 'persistentvolumes', { name: 'pv-free' }), no("no relationship found between node 'node-a' and this object")],
    ['list pvs', ask('list', 'persistentvolumes'), no('can only get individual resources of this type')],
    ['token of its pod SA', ask('create', 'serviceaccounts', { ...lab, name: 'builder', subresource: 'token' }), yes],
    [
      'token of another SA',
      ask('create', 'serviceaccounts', { ...lab, name: 'default', subresource: 'token' }),
      no("no relationship found between node 'node-a' and this object"),
    ],
    [
      'get a service account',
      ask('get', 'serviceaccounts', { ...lab, name: 'builder' }),
      no('can only create tokens for individual service accounts'),
    ],
    ['services: static node rules', ask('list', 'services'), yes],
    ['events: static node rules', ask('create', 'events', lab), yes],
    ['deployments: nothing', ask('get', 'deployments', { apiGroup: 'apps', ...lab, name: 'x' }), no()],
    ['not a node', { ...ask('get', 'nodes', { name: 'node-a' }), user: { username: 'system:node:node-a', groups: [] } }, no()],
  ];
  for (const [why, attrs, want] of cases) assert.deepEqual(authz.authorize(attrs), want, why);
  assert.equal(authz.rulesFor!(nodeA, 'lab')?.incomplete, true);
  assert.equal(authz.rulesFor!({ username: 'bob', groups: [] }, 'lab'), undefined);
});

test('storePodGraph follows pod writes, binds and deletes', async () => {
  const store = await Store.open(new MemoryBackend());
  try {
    const current = storePodGraph(store);
    const key = `${PODS_BUCKET}/lab/web`;
    const withSecret = (nodeName: string) =>
      pod('lab', 'web', nodeName, { containers: [], volumes: [{ name: 's', secret: { secretName: 's1' } }] });
    await store.txn(key, () => withSecret(''));
    assert.equal(current().relatedTo('n1', 'secret', 'lab', 's1'), false);
    await store.txn(key, () => withSecret('n1'));
    assert.equal(current().relatedTo('n1', 'secret', 'lab', 's1'), true);
    await store.txn(key, () => withSecret('n2'));
    assert.equal(current().relatedTo('n1', 'secret', 'lab', 's1'), false);
    assert.equal(current().relatedTo('n2', 'pod', 'lab', 'web'), true);
    await store.txn(key, () => null);
    assert.equal(current().relatedTo('n2', 'secret', 'lab', 's1'), false);
  } finally {
    await store.close();
  }
});
