// tableFor: the Table envelope kube returns, includeObject handling, list
// metadata, the default table for kinds without a printer, and a check that
// every served kind yields one cell per column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, findResource } from '../../shared/api/resources.ts';
import { printerFor, tableFor } from './index.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const rt = (group: string, version: string, plural: string) => {
  const r = findResource(group, version, plural);
  assert.ok(r, `${group}/${version}/${plural} is served`);
  return r;
};

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '42',
    creationTimestamp: '2025-06-01T11:55:00Z',
    labels: { app: 'web' },
  },
  spec: { containers: [{ name: 'web', image: 'nginx' }], nodeName: 'node-1' },
  status: {
    phase: 'Succeeded',
    containerStatuses: [
      {
        name: 'web',
        image: 'nginx',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      },
    ],
  },
};

test("a pod list as a Table with PartialObjectMetadata rows (kube's default)", () => {
  const table = tableFor(rt('', 'v1', 'pods'), [pod], {
    now: NOW,
    includeObject: 'Metadata',
    listMeta: { resourceVersion: '57', continue: 'abc', remainingItemCount: 3 },
  });
  assert.deepEqual(table, {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '57', continue: 'abc', remainingItemCount: 3 },
    columnDefinitions: table.columnDefinitions,
    rows: [
      {
        cells: ['web-0', '0/1', 'Completed', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
        conditions: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata },
      },
    ],
  });
  assert.deepEqual(Object.keys(table.columnDefinitions[0]).sort(), ['description', 'format', 'name', 'priority', 'type']);
  // The envelope survives a JSON round trip unchanged (no undefined fields left behind).
  assert.deepEqual(JSON.parse(JSON.stringify(table)), table);
});

test('includeObject=Object embeds the full object; None leaves it out', () => {
  const bare = { metadata: { name: 'cm', creationTimestamp: '2025-06-01T11:00:00Z' }, data: { a: 'b' } };
  const full = tableFor(rt('', 'v1', 'configmaps'), [bare], { now: NOW, includeObject: 'Object' });
  assert.deepEqual(full.rows[0].object, { kind: 'ConfigMap', apiVersion: 'v1', ...bare });
  assert.deepEqual(full.metadata, {});
  const none = tableFor(rt('', 'v1', 'configmaps'), [bare], { now: NOW, includeObject: 'None' });
  assert.deepEqual(none.rows[0], { cells: ['cm', 1, '60m'] });
  assert.equal('object' in none.rows[0], false);
});

test('an empty list still has its columns and no rows', () => {
  const table = tableFor(rt('apps', 'v1', 'deployments'), [], { now: NOW, includeObject: 'Metadata', listMeta: { resourceVersion: '9' } });
  assert.deepEqual(table.rows, []);
  assert.deepEqual(table.metadata, { resourceVersion: '9' });
  assert.deepEqual(
    table.columnDefinitions.map((c) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Ready', 0],
      ['Up-to-date', 0],
      ['Available', 0],
      ['Age', 0],
      ['Containers', 1],
      ['Images', 1],
      ['Selector', 1],
    ],
  );
});

test('kinds without a kube printer get the default Name / Created At table', () => {
  for (const [group, plural] of [
    ['rbac.authorization.k8s.io', 'roles'],
    ['rbac.authorization.k8s.io', 'clusterroles'],
    ['', 'limitranges'],
  ] as const) {
    const table = tableFor(rt(group, 'v1', plural), [{ metadata: { name: 'x', creationTimestamp: '2025-05-31T08:07:06Z' } }], {
      now: NOW,
      includeObject: 'None',
    });
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', 'name'],
        ['Created At', 'date', ''],
      ],
      plural,
    );
    assert.deepEqual(table.rows[0].cells, ['x', '2025-05-31T08:07:06Z']);
  }
  const unknown = printerFor({ group: 'example.com', kind: 'Widget' });
  assert.deepEqual(unknown.row({ metadata: { name: 'w', creationTimestamp: '2025-05-31T08:07:06.123456Z' } }, { now: NOW }).cells, [
    'w',
    '2025-05-31T08:07:06Z',
  ]);
});

test('events.k8s.io events print through the field mapping', () => {
  const ev = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1' },
    regarding: { kind: 'Pod', name: 'p' },
    note: 'hi',
    reason: 'R',
    type: 'Normal',
    eventTime: '2025-06-01T11:59:00.000000Z',
    reportingController: 'ctl',
  };
  const table = tableFor(rt('events.k8s.io', 'v1', 'events'), [ev], { now: NOW, includeObject: 'None' });
  assert.deepEqual(table.rows[0].cells, ['60s', 'Normal', 'R', 'pod/p', '', 'ctl', 'hi', '60s', 1, 'e1']);
});

test('every served kind yields exactly one cell per column, even for a bare object', () => {
  for (const r of RESOURCES) {
    const table = tableFor(r, [{ metadata: { name: 'x', creationTimestamp: '2025-06-01T11:00:00Z' } }, {}], {
      now: NOW,
      includeObject: 'Metadata',
    });
    assert.ok(table.columnDefinitions.length >= 2, r.kind);
    assert.equal(table.columnDefinitions.filter((c) => c.format === 'name').length, 1, `${r.group}/${r.kind} has one name column`);
    for (const row of table.rows) {
      assert.equal(row.cells.length, table.columnDefinitions.length, `${r.group}/${r.kind}`);
      for (const cell of row.cells)
        assert.ok(['string', 'number', 'boolean'].includes(typeof cell), `${r.group}/${r.kind}: ${String(cell)}`);
    }
  }
});
