// buildGraph: owners, nodes, services through their EndpointSlices, and the
// claims and ConfigMaps a Pod mounts; no edge to an object that is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph, type GraphObjects } from './graph-model.ts';

const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
});
const owned = (kind: string, owner: string) => ({ ownerReferences: [{ kind, name: owner, uid: `uid-${owner}`, controller: true }] });

const objects: GraphObjects = {
  deployments: [meta('web')],
  replicasets: [meta('web-abc', owned('Deployment', 'web'))],
  pods: [
    {
      ...meta('web-abc-1', owned('ReplicaSet', 'web-abc')),
      spec: {
        nodeName: 'node-1',
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cfg', configMap: { name: 'settings' } },
          { name: 'token', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { serviceAccountToken: {} }] } },
          { name: 'missing', configMap: { name: 'not-there' } },
        ],
      },
    },
    { ...meta('web-abc-2', owned('ReplicaSet', 'web-abc')), spec: { nodeName: 'node-9' } },
  ],
  nodes: [{ metadata: { name: 'node-1', uid: 'uid-node-1' } }],
  services: [meta('web-svc')],
  endpointslices: [
    {
      ...meta('web-svc-x', { labels: { 'kubernetes.io/service-name': 'web-svc' } }),
      endpoints: [
        { addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', name: 'web-abc-1', namespace: 'default' } },
        { addresses: ['10.0.0.9'] },
      ],
    },
  ],
  persistentvolumeclaims: [meta('data')],
  configmaps: [meta('settings'), meta('kube-root-ca.crt')],
};

test('every object is a node, with the reference of its history', () => {
  const g = buildGraph(objects);
  assert.equal(g.nodes.length, 10);
  const node = g.nodes.find((n) => n.id === 'Node//node-1');
  assert.deepEqual(node?.ref, { group: '', resource: 'nodes', kind: 'Node', namespace: undefined, name: 'node-1' });
  assert.deepEqual(g.nodes.find((n) => n.kind === 'ReplicaSet')?.ref, {
    group: 'apps',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespace: 'default',
    name: 'web-abc',
  });
});

test('the edges: ownership, nodes, service selection and mounts', () => {
  const g = buildGraph(objects);
  assert.deepEqual(
    g.edges.map((e) => `${e.kind} ${e.source} ${e.target}`),
    [
      'owns Deployment/default/web ReplicaSet/default/web-abc',
      'owns ReplicaSet/default/web-abc Pod/default/web-abc-1',
      'runs-on Pod/default/web-abc-1 Node//node-1',
      'mounts Pod/default/web-abc-1 PersistentVolumeClaim/default/data',
      'mounts Pod/default/web-abc-1 ConfigMap/default/settings',
      'mounts Pod/default/web-abc-1 ConfigMap/default/kube-root-ca.crt',
      'owns ReplicaSet/default/web-abc Pod/default/web-abc-2',
      'selects Service/default/web-svc EndpointSlice/default/web-svc-x',
      'endpoint EndpointSlice/default/web-svc-x Pod/default/web-abc-1',
    ],
  );
});

test('an owner reference without a known uid falls back to kind and name; objects without names are skipped', () => {
  const g = buildGraph({
    deployments: [meta('web')],
    replicasets: [
      { metadata: { name: 'rs', namespace: 'default', ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'stale' }] } },
      {},
    ],
  });
  assert.deepEqual(
    g.edges.map((e) => e.id),
    ['owns:Deployment/default/web->ReplicaSet/default/rs'],
  );
  assert.equal(g.nodes.length, 2);
});

test('an empty input is an empty graph', () => {
  assert.deepEqual(buildGraph({}), { nodes: [], edges: [] });
});
