// Tables of SMD behaviour, after the cases of structured-merge-diff's
// fieldpath, typed and merge tests: FieldsV1 round trips, the fields an
// object sets, comparisons, and the updater's ownership, conflicts, force
// and removal, on schemas from types.json and on the deduced shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  apply,
  compare,
  ConflictError,
  DEDUCED,
  FieldSet,
  atomOfStructural,
  merge,
  pathText,
  registerSchemaResolver,
  removeItems,
  schemaFor,
  toFieldSet,
  update,
  type ManagedFields,
} from './index.ts';

const cm = schemaFor('v1', 'ConfigMap');
const deploy = schemaFor('apps/v1', 'Deployment');
const pod = schemaFor('v1', 'Pod');

test('FieldsV1: members, "." for a member with members below, element order', () => {
  const cases: { paths: string[][]; doc: unknown }[] = [
    { paths: [['f:a']], doc: { 'f:a': {} } },
    { paths: [['f:a'], ['f:a', 'f:b']], doc: { 'f:a': { '.': {}, 'f:b': {} } } },
    { paths: [['f:b'], ['f:a', 'f:c']], doc: { 'f:a': { 'f:c': {} }, 'f:b': {} } },
    {
      paths: [
        ['f:l', 'i:10'],
        ['f:l', 'i:2'],
        ['f:l', 'v:"x"'],
        ['f:l', 'k:{"name":"a"}'],
        ['f:l', 'f:z'],
      ],
      doc: { 'f:l': { 'f:z': {}, 'k:{"name":"a"}': {}, 'v:"x"': {}, 'i:2': {}, 'i:10': {} } },
    },
  ];
  for (const c of cases) {
    const s = FieldSet.of(...c.paths);
    assert.deepEqual(s.toFieldsV1(), c.doc);
    assert.deepEqual(Object.keys(s.toFieldsV1()['f:l' as never] ?? {}), Object.keys((c.doc as any)['f:l'] ?? {}));
    assert.ok(FieldSet.fromFieldsV1(c.doc).equals(s));
  }
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:a': {} }));
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:[1]': {} }));
});

test('set algebra', () => {
  const a = FieldSet.of(['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d']);
  const b = FieldSet.of(['f:b', 'f:c'], ['f:e']);
  assert.deepEqual(a.union(b).paths(), [['f:a'], ['f:e'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
  assert.deepEqual(a.difference(b).paths(), [['f:a'], ['f:b', 'f:d']]);
  assert.deepEqual(a.intersection(b).paths(), [['f:b', 'f:c']]);
  assert.ok(a.has(['f:b', 'f:c']));
  assert.ok(!a.has(['f:b']));
  // A parent being a member does not take its children away.
  assert.deepEqual(
    FieldSet.of(['f:a', 'f:b'])
      .difference(FieldSet.of(['f:a']))
      .paths(),
    [['f:a', 'f:b']],
  );
});

test('path text as SMD prints it', () => {
  const cases: [string[], string][] = [
    [['f:data', 'f:color'], '.data.color'],
    [['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'], '.spec.containers[name="web"].image'],
    [['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.ports[containerPort=80,protocol="TCP"]'],
    [['f:finalizers', 'v:"a"'], '.finalizers[="a"]'],
    [['f:args', 'i:3'], '.args[3]'],
  ];
  for (const [p, text] of cases) assert.equal(pathText(p), text);
});

test('toFieldSet by schema', () => {
  const cases: { name: string; atom: typeof cm; obj: unknown; doc: unknown }[] = [
    { name: 'granular map: each key', atom: cm, obj: { data: { a: '1', b: '2' } }, doc: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
    {
      name: 'keyed list items by key, with their fields; an atomic struct as one member',
      atom: deploy,
      obj: {
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: { spec: { containers: [{ name: 'web', image: 'nginx', args: ['a', 'b'] }] } },
        },
      },
      doc: {
        'f:spec': {
          'f:selector': {},
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      },
    },
    {
      name: 'list-map keys with a defaulted key field',
      atom: pod,
      obj: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } },
      doc: {
        'f:spec': {
          'f:containers': {
            'k:{"name":"a"}': {
              '.': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
            },
          },
        },
      },
    },
    {
      name: 'set list items by value',
      atom: pod,
      obj: { metadata: { finalizers: ['a', 'b'] } },
      doc: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } },
    },
    { name: 'an empty struct is a member', atom: deploy, obj: { spec: { strategy: {} } }, doc: { 'f:spec': { 'f:strategy': {} } } },
    {
      name: 'deduced: maps granular (every key a member), lists atomic',
      atom: DEDUCED,
      obj: { spec: { a: { b: 1 }, l: [1, 2] } },
      doc: { 'f:spec': { '.': {}, 'f:a': { '.': {}, 'f:b': {} }, 'f:l': {} } },
    },
  ];
  for (const c of cases) assert.deepEqual(toFieldSet(c.obj, c.atom).toFieldsV1(), c.doc, c.name);
});

test('compare: added, modified, removed', () => {
  const cases: { name: string; lhs: unknown; rhs: unknown; added: unknown; modified: unknown; removed: unknown }[] = [
    {
      name: 'map keys',
      lhs: { data: { a: '1', b: '2' } },
      rhs: { data: { a: '9', c: '3' } },
      added: { 'f:data': { 'f:c': {} } },
      modified: { 'f:data': { 'f:a': {} } },
      removed: { 'f:data': { 'f:b': {} } },
    },
    {
      name: 'a new map is added itself and with its keys',
      lhs: {},
      rhs: { data: { a: '1' } },
      added: { 'f:data': { '.': {}, 'f:a': {} } },
      modified: {},
      removed: {},
    },
    { name: 'null to empty is a modification', lhs: { data: null }, rhs: { data: {} }, added: {}, modified: { 'f:data': {} }, removed: {} },
    { name: 'equal objects', lhs: { data: { a: '1' } }, rhs: { data: { a: '1' } }, added: {}, modified: {}, removed: {} },
  ];
  for (const c of cases) {
    const r = compare(c.lhs, c.rhs, cm);
    assert.deepEqual(r.added.toFieldsV1(), c.added, `${c.name}: added`);
    assert.deepEqual(r.modified.toFieldsV1(), c.modified, `${c.name}: modified`);
    assert.deepEqual(r.removed.toFieldsV1(), c.removed, `${c.name}: removed`);
  }
  // An atomic list changes as one field.
  const lists = compare(
    { spec: { containers: [{ name: 'a', args: ['x'] }] } },
    { spec: { containers: [{ name: 'a', args: ['y'] }] } },
    pod,
  );
  assert.deepEqual(lists.modified.paths(), [['f:spec', 'f:containers', 'k:{"name":"a"}', 'f:args']]);
});

test('merge and removeItems', () => {
  const live = {
    metadata: { labels: { k: 'v' } },
    spec: {
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'y' },
      ],
      nodeSelector: { k: 'v' },
    },
  };
  const config = {
    metadata: { labels: { k2: 'v2' } },
    spec: {
      containers: [
        { name: 'c', image: 'z' },
        { name: 'b', image: 'w' },
      ],
      nodeSelector: { k2: 'v2' },
    },
  };
  assert.deepEqual(merge(live, config, pod), {
    metadata: { labels: { k: 'v', k2: 'v2' } },
    spec: {
      containers: [
        { name: 'a', image: 'x' },
        { name: 'c', image: 'z' },
        { name: 'b', image: 'w' },
      ],
      // nodeSelector is an atomic map: replaced.
      nodeSelector: { k2: 'v2' },
    },
  });
  // An atomic list is replaced.
  assert.deepEqual(
    merge({ spec: { containers: [{ name: 'a', args: ['1', '2'] }] } }, { spec: { containers: [{ name: 'a', args: ['3'] }] } }, pod),
    {
      spec: { containers: [{ name: 'a', args: ['3'] }] },
    },
  );
  assert.deepEqual(removeItems(live, FieldSet.of(['f:spec', 'f:containers', 'k:{"name":"a"}'], ['f:metadata', 'f:labels', 'f:k']), pod), {
    metadata: { labels: {} },
    spec: { containers: [{ name: 'b', image: 'y' }], nodeSelector: { k: 'v' } },
  });
});

/** Runs a sequence of writes, as the merge tests' TestCase operations do. */
type Op = { apply: string; config: unknown; force?: boolean; conflicts?: [string, string][] } | { update: string; object: unknown };

function run(atom: typeof cm, ops: Op[]): { object: unknown; managers: ManagedFields } {
  let object: unknown = {};
  let managers: ManagedFields = new Map();
  for (const op of ops) {
    if ('update' in op) {
      managers = update(object, op.object, 'v1', managers, op.update, { atom });
      object = op.object;
      continue;
    }
    if (op.conflicts) {
      assert.throws(
        () => apply(object, op.config, 'v1', managers, op.apply, op.force ?? false, { atom }),
        (err: unknown) => {
          assert.ok(err instanceof ConflictError);
          assert.deepEqual(
            err.conflicts.map((c) => [c.manager, pathText(c.path)]),
            op.conflicts,
          );
          return true;
        },
      );
      continue;
    }
    const r = apply(object, op.config, 'v1', managers, op.apply, op.force ?? false, { atom });
    if (r.object !== undefined) object = r.object;
    managers = r.managers;
  }
  return { object, managers };
}

const owned = (m: ManagedFields) => Object.fromEntries([...m].map(([k, v]) => [k, v.set.paths().map(pathText)]));

test('updater: ownership, conflicts, force, removal (merge/*_test.go cases)', () => {
  const cases: { name: string; atom?: typeof cm; ops: Op[]; object: unknown; owned: Record<string, string[]> }[] = [
    {
      name: 'two appliers of the same value share the field',
      ops: [
        { apply: 'a', config: { data: { x: '1' } } },
        { apply: 'b', config: { data: { x: '1' } } },
      ],
      object: { data: { x: '1' } },
      owned: { a: ['.data.x'], b: ['.data.x'] },
    },
    {
      name: 'a different value conflicts',
      ops: [
        { apply: 'a', config: { data: { x: '1' } } },
        { apply: 'b', config: { data: { x: '2' } }, conflicts: [['a', '.data.x']] },
      ],
      object: { data: { x: '1' } },
      owned: { a: ['.data.x'] },
    },
    {
      name: 'force takes the field',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { apply: 'b', config: { data: { x: '2' } }, force: true },
      ],
      object: { data: { x: '2', y: '1' } },
      owned: { a: ['.data.y'], b: ['.data.x'] },
    },
    {
      name: 'an update takes what it changes, with no conflict',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { update: 'u', object: { data: { x: '5', y: '1' } } },
      ],
      object: { data: { x: '5', y: '1' } },
      owned: { a: ['.data.y'], u: ['.data.x'] },
    },
    {
      name: 'an applier that stops applying a field removes it',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { apply: 'a', config: { data: { x: '1' } } },
      ],
      object: { data: { x: '1' } },
      owned: { a: ['.data.x'] },
    },
    {
      name: 'unless another applier owns it',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { apply: 'b', config: { data: { y: '1' } } },
        { apply: 'a', config: { data: { x: '1' } } },
      ],
      object: { data: { x: '1', y: '1' } },
      owned: { a: ['.data.x'], b: ['.data.y'] },
    },
    {
      name: 'a field an updater took is not removed by the applier',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { update: 'u', object: { data: { x: '1', y: '2' } } },
        { apply: 'a', config: { data: { x: '1' } } },
      ],
      object: { data: { x: '1', y: '2' } },
      owned: { a: ['.data.x'], u: ['.data.y'] },
    },
    {
      name: 'an update that removes a field takes it from its owner',
      ops: [
        { apply: 'a', config: { data: { x: '1', y: '1' } } },
        { update: 'u', object: { data: { x: '1' } } },
      ],
      object: { data: { x: '1' } },
      owned: { a: ['.data.x'] },
    },
    {
      name: 'keyed list: items merge; an item no longer applied goes',
      atom: pod,
      ops: [
        {
          apply: 'a',
          config: {
            spec: {
              containers: [
                { name: 'web', image: 'nginx' },
                { name: 'log', image: 'tail' },
              ],
            },
          },
        },
        { apply: 'b', config: { spec: { containers: [{ name: 'side', image: 'envoy' }] } } },
        { apply: 'a', config: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      ],
      object: {
        spec: {
          containers: [
            { name: 'web', image: 'nginx' },
            { name: 'side', image: 'envoy' },
          ],
        },
      },
      owned: {
        a: ['.spec.containers[name="web"]', '.spec.containers[name="web"].image', '.spec.containers[name="web"].name'],
        b: ['.spec.containers[name="side"]', '.spec.containers[name="side"].image', '.spec.containers[name="side"].name'],
      },
    },
    {
      name: 'a struct no longer applied at all goes with its fields',
      atom: deploy,
      ops: [
        { apply: 'a', config: { spec: { replicas: 1, strategy: { type: 'Recreate' } } } },
        { apply: 'a', config: { spec: { replicas: 1 } } },
      ],
      object: { spec: { replicas: 1 } },
      owned: { a: ['.spec.replicas'] },
    },
    {
      name: 'deduced shape: a list is one field',
      atom: DEDUCED,
      ops: [
        { apply: 'a', config: { spec: { l: [1, 2] } } },
        { apply: 'b', config: { spec: { l: [3] } }, conflicts: [['a', '.spec.l']] },
      ],
      object: { spec: { l: [1, 2] } },
      owned: { a: ['.spec', '.spec.l'] },
    },
  ];
  for (const c of cases) {
    const r = run(c.atom ?? cm, c.ops);
    assert.deepEqual(r.object, c.object, `${c.name}: object`);
    assert.deepEqual(owned(r.managers), c.owned, `${c.name}: owned`);
  }
});

test('an apply that changes nothing returns no object', () => {
  const first = apply({}, { data: { x: '1' } }, 'v1', new Map(), 'a', false, { atom: cm });
  const again = apply(first.object, { data: { x: '1' } }, 'v1', first.managers, 'a', false, { atom: cm });
  assert.equal(again.object, undefined);
  assert.deepEqual(owned(again.managers), { a: ['.data.x'] });
});

test('a registered resolver answers first (CRD structural schemas)', () => {
  const off = registerSchemaResolver((apiVersion, kind) =>
    apiVersion === 'example.com/v1' && kind === 'Widget'
      ? atomOfStructural({
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                items: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['id'],
                  items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'string' } } },
                },
              },
            },
          },
        })
      : undefined,
  );
  try {
    const s = toFieldSet({ spec: { items: [{ id: 'a', v: '1' }] } }, schemaFor('example.com/v1', 'Widget'));
    assert.deepEqual(s.paths().map(pathText), ['.spec.items[id="a"]', '.spec.items[id="a"].id', '.spec.items[id="a"].v']);
    assert.equal(schemaFor('example.com/v1', 'Gadget').kind, 'deduced');
  } finally {
    off();
  }
  assert.equal(schemaFor('example.com/v1', 'Widget').kind, 'deduced');
});
