// Table tests for strategic merge patch on lists: merging by key, primitive
// lists, the list directives, and the order kube gives the result.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSchemaFor } from './merge-keys.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

const deployment = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'Deployment',
  spec: { replicas: 1, template: { metadata: { labels: { app: 'web' } }, spec: { containers, ...extra } } },
});
const containersOf = (d: any): unknown[] => d.spec.template.spec.containers;

type Case = [name: string, kind: string, original: unknown, patch: unknown, want: unknown];

describe('strategic merge patch: lists merged by key', () => {
  const app = {
    name: 'app',
    image: 'app:v1',
    env: [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ],
  };
  const sidecar = { name: 'sidecar', image: 'proxy:v1' };
  const cases: Case[] = [
    [
      'changes one container, keeps the other in place',
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'proxy:v2' }] } } } },
      deployment([app, { name: 'sidecar', image: 'proxy:v2' }]),
    ],
    [
      "merges a container's env by name",
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '3' }] }] } } } },
      deployment([
        {
          ...app,
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '3' },
          ],
        },
        sidecar,
      ]),
    ],
    [
      'a new env var goes first (patch items lead when not in the live list)',
      'Deployment',
      deployment([app]),
      { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'C', value: '9' }] }] } } } },
      deployment([
        {
          ...app,
          env: [
            { name: 'C', value: '9' },
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
      ]),
    ],
    [
      'a new container goes first',
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ name: 'debug', image: 'busybox' }] } } } },
      deployment([{ name: 'debug', image: 'busybox' }, app, sidecar]),
    ],
    [
      'deletes a container by name with $patch: delete',
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } },
      deployment([app]),
    ],
    [
      '$patch: delete removes every item with that key',
      'Pod',
      { spec: { containers: [{ name: 'a' }, { name: 'b', image: 'x' }, { name: 'a', image: 'dup' }] } },
      { spec: { containers: [{ name: 'a', $patch: 'delete' }] } },
      { spec: { containers: [{ name: 'b', image: 'x' }] } },
    ],
    [
      'deleting a missing item is a no-op',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [{ name: 'zzz', $patch: 'delete' }] } },
      { spec: { containers: [{ name: 'a' }] } },
    ],
    [
      '$patch: replace in a list replaces it with the other items',
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } } },
      deployment([{ name: 'only', image: 'x' }]),
    ],
    [
      '$patch: replace alone empties the list',
      'Deployment',
      deployment([app, sidecar]),
      { spec: { template: { spec: { containers: [{ $patch: 'replace' }] } } } },
      deployment([]),
    ],
    [
      'patch order wins over live order',
      'Pod',
      { spec: { containers: [{ name: '1' }, { name: '2', v: 'b' }, { name: '3' }] } },
      {
        spec: {
          containers: [
            { name: '3', v: 'c' },
            { name: '1', v: 'a' },
          ],
        },
      },
      {
        spec: {
          containers: [
            { name: '2', v: 'b' },
            { name: '3', v: 'c' },
            { name: '1', v: 'a' },
          ],
        },
      },
    ],
    [
      'container ports merge by containerPort',
      'Pod',
      { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }] } },
      { spec: { containers: [{ name: 'a', ports: [{ containerPort: 443, name: 'https' }] }] } },
      {
        spec: {
          containers: [
            {
              name: 'a',
              ports: [
                { containerPort: 80, name: 'http' },
                { containerPort: 443, name: 'https' },
              ],
            },
          ],
        },
      },
    ],
    [
      'volumeMounts merge by mountPath',
      'Pod',
      { spec: { containers: [{ name: 'a', volumeMounts: [{ mountPath: '/data', name: 'd' }] }] } },
      { spec: { containers: [{ name: 'a', volumeMounts: [{ mountPath: '/data', readOnly: true }] }] } },
      { spec: { containers: [{ name: 'a', volumeMounts: [{ mountPath: '/data', name: 'd', readOnly: true }] }] } },
    ],
    [
      'init and ephemeral containers merge by name',
      'Pod',
      { spec: { initContainers: [{ name: 'i', image: '1' }], ephemeralContainers: [{ name: 'e', env: [{ name: 'X', value: '1' }] }] } },
      { spec: { initContainers: [{ name: 'i', image: '2' }], ephemeralContainers: [{ name: 'e', env: [{ name: 'X', value: '2' }] }] } },
      { spec: { initContainers: [{ name: 'i', image: '2' }], ephemeralContainers: [{ name: 'e', env: [{ name: 'X', value: '2' }] }] } },
    ],
    [
      'imagePullSecrets merge by name; hostAliases by ip; topologySpreadConstraints by topologyKey',
      'Pod',
      {
        spec: {
          imagePullSecrets: [{ name: 'a' }],
          hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }],
          topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1 }],
        },
      },
      {
        spec: {
          imagePullSecrets: [{ name: 'b' }],
          hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
          topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
        },
      },
      {
        spec: {
          imagePullSecrets: [{ name: 'b' }, { name: 'a' }],
          hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
          topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
        },
      },
    ],
    [
      'tolerations have no merge key: replaced whole',
      'Pod',
      {
        spec: {
          tolerations: [
            { key: 'a', operator: 'Exists' },
            { key: 'b', operator: 'Exists' },
          ],
        },
      },
      { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
      { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
    ],
    [
      'container args (no strategy) replaced whole',
      'Pod',
      { spec: { containers: [{ name: 'a', args: ['x', 'y'] }] } },
      { spec: { containers: [{ name: 'a', args: ['z'] }] } },
      { spec: { containers: [{ name: 'a', args: ['z'] }] } },
    ],
    [
      'Service ports merge by port',
      'Service',
      {
        spec: {
          ports: [
            { port: 80, targetPort: 8080 },
            { port: 443, targetPort: 8443 },
          ],
        },
      },
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      {
        spec: {
          ports: [
            { port: 80, targetPort: 9090 },
            { port: 443, targetPort: 8443 },
          ],
        },
      },
    ],
    [
      'status conditions merge by type',
      'Node',
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      },
      { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      },
    ],
    [
      'ownerReferences merge by uid',
      'ReplicaSet',
      { metadata: { ownerReferences: [{ uid: 'u1', name: 'd1', controller: true }] } },
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', controller: false },
            { uid: 'u2', name: 'd2' },
          ],
        },
      },
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', name: 'd1', controller: false },
            { uid: 'u2', name: 'd2' },
          ],
        },
      },
    ],
    [
      'CronJob job template containers merge by name',
      'CronJob',
      {
        spec: {
          schedule: '* * * * *',
          jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: '1' }, { name: 'd' }] } } } },
        },
      },
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: '2' }] } } } } } },
      {
        spec: {
          schedule: '* * * * *',
          jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: '2' }, { name: 'd' }] } } } },
        },
      },
    ],
    [
      'a kind without a schema replaces lists',
      'Widget',
      { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }] } },
      { spec: { containers: [{ name: 'a', image: '2' }] } },
      { spec: { containers: [{ name: 'a', image: '2' }] } },
    ],
    [
      'a list where the live object has none is taken from the patch, directives removed',
      'Pod',
      { spec: {} },
      { spec: { containers: [{ name: 'a', env: [{ name: 'X', $patch: 'delete' }, { name: 'Y' }] }] } },
      { spec: { containers: [{ name: 'a', env: [{ name: 'Y' }] }] } },
    ],
    [
      'an empty patch list on a merged list changes nothing',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [] } },
      { spec: { containers: [{ name: 'a' }] } },
    ],
  ];
  for (const [name, kind, original, patch, want] of cases) {
    it(name, () => assert.deepEqual(applyStrategicMergePatch(original, patch, mergeSchemaFor(kind)), want));
  }
});

describe('strategic merge patch: primitive lists', () => {
  const meta = (finalizers: string[]) => ({ metadata: { name: 'x', finalizers } });
  const cases: [name: string, original: unknown, patch: unknown, want: unknown][] = [
    ['a new finalizer goes first', meta(['a', 'b']), { metadata: { finalizers: ['c'] } }, meta(['c', 'a', 'b'])],
    ['duplicates are merged', meta(['a', 'b']), { metadata: { finalizers: ['b', 'c'] } }, meta(['a', 'b', 'c'])],
    ['patch order wins', meta(['1', '2', '3']), { metadata: { finalizers: ['3', '1'] } }, meta(['2', '3', '1'])],
    ['patch order wins for a full list', meta(['1', '2', '3']), { metadata: { finalizers: ['3', '1', '2'] } }, meta(['3', '1', '2'])],
    [
      '$deleteFromPrimitiveList removes',
      meta(['a', 'b', 'c']),
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
      meta(['a', 'c']),
    ],
    [
      '$deleteFromPrimitiveList of a missing item',
      meta(['a']),
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['z'] } },
      meta(['a']),
    ],
    [
      '$deleteFromPrimitiveList on a missing list adds nothing',
      { metadata: { name: 'x' } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['z'] } },
      { metadata: { name: 'x' } },
    ],
    [
      '$deleteFromPrimitiveList works on a replace-strategy list too',
      { spec: { containers: [{ name: 'a', args: ['1', '2', '3'] }] } },
      { spec: { containers: [{ name: 'a', '$deleteFromPrimitiveList/args': ['2'] }] } },
      { spec: { containers: [{ name: 'a', args: ['1', '3'] }] } },
    ],
    ['null deletes the list', meta(['a']), { metadata: { finalizers: null } }, { metadata: { name: 'x' } }],
    [
      'Node podCIDRs merge',
      { spec: { podCIDRs: ['10.0.0.0/24'] } },
      { spec: { podCIDRs: ['fd00::/64'] } },
      { spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] } },
    ],
  ];
  for (const [name, original, patch, want] of cases) {
    const kind = name.includes('podCIDRs') ? 'Node' : 'Pod';
    it(name, () => assert.deepEqual(applyStrategicMergePatch(original, patch, mergeSchemaFor(kind)), want));
  }
});

describe('strategic merge patch: $setElementOrder', () => {
  const schema = mergeSchemaFor('Deployment');
  const cases: [name: string, original: unknown, patch: unknown, want: unknown[]][] = [
    [
      'reorders and merges',
      deployment([{ name: 'a' }, { name: 'b' }]),
      {
        spec: {
          template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'a', image: 'x' }] } },
        },
      },
      [{ name: 'b' }, { name: 'a', image: 'x' }],
    ],
    [
      'kubectl apply adding a container at the end',
      deployment([{ name: 'a', image: '1' }]),
      {
        spec: {
          template: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: '2' }] } },
        },
      },
      [
        { name: 'a', image: '1' },
        { name: 'b', image: '2' },
      ],
    ],
    [
      'kubectl apply deleting a container',
      deployment([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      {
        spec: {
          template: {
            spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }], containers: [{ name: 'b', $patch: 'delete' }] },
          },
        },
      },
      [{ name: 'a' }, { name: 'c' }],
    ],
    [
      'order only, no patch list',
      deployment([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } } } },
      [{ name: 'c' }, { name: 'a' }, { name: 'b' }],
    ],
    [
      'items the order list does not name are interleaved by live order',
      deployment([{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }] } } } },
      [{ name: 'b' }, { name: 'c' }, { name: 'a' }],
    ],
    [
      'an order naming an item that is nowhere is ignored for it',
      deployment([{ name: '1' }, { name: '3' }]),
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: '3' }, { name: '2' }, { name: '1' }],
              containers: [
                { name: '3', v: 3 },
                { name: '1', v: 1 },
              ],
            },
          },
        },
      },
      [
        { name: '3', v: 3 },
        { name: '1', v: 1 },
      ],
    ],
    [
      'a list the live object lacks is created in order',
      deployment([]),
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/initContainers': [{ name: 'y' }, { name: 'x' }],
              initContainers: [{ name: 'x', $patch: 'delete' }, { name: 'y' }, { name: 'x' }],
            },
          },
        },
      },
      [],
    ],
  ];
  for (const [name, original, patch, want] of cases) {
    it(name, () => {
      const out = applyStrategicMergePatch(original, patch, schema) as any;
      if (name.startsWith('a list the live object lacks')) {
        // The delete item is dropped along with its directive.
        assert.deepEqual(out.spec.template.spec.initContainers, [{ name: 'y' }, { name: 'x' }]);
      } else {
        assert.deepEqual(containersOf(out), want);
      }
    });
  }

  it('orders a primitive list, ignoring names it lacks', () => {
    const out = applyStrategicMergePatch(
      { metadata: { finalizers: ['1', '3'] } },
      { metadata: { '$setElementOrder/finalizers': ['3', '2', '1'] } },
      mergeSchemaFor('Pod'),
    );
    assert.deepEqual(out, { metadata: { finalizers: ['3', '1'] } });
  });

  it('orders a primitive list with additions and deletions, as kubectl apply sends them', () => {
    const out = applyStrategicMergePatch(
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'd'], finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
      mergeSchemaFor('Pod'),
    );
    assert.deepEqual(out, { metadata: { finalizers: ['c', 'a', 'd'] } });
  });
});
