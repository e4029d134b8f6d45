// Table tests for JSON patch: each operation, pointer escaping, array index
// rules, evanphx/json-patch v4's quirks, and its exact error messages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from './json-patch.ts';
import { PatchError } from './patch-error.ts';

type Case = [name: string, doc: unknown, ops: unknown, want: unknown];

describe('applyJsonPatch: results', () => {
  const cases: Case[] = [
    ['add a key', { a: 1 }, [{ op: 'add', path: '/b', value: 2 }], { a: 1, b: 2 }],
    ['add replaces an existing key', { a: 1 }, [{ op: 'add', path: '/a', value: [1] }], { a: [1] }],
    ['add nested', { spec: { x: 1 } }, [{ op: 'add', path: '/spec/y', value: { z: true } }], { spec: { x: 1, y: { z: true } } }],
    ['add without value adds null', { a: 1 }, [{ op: 'add', path: '/b' }], { a: 1, b: null }],
    ['add inserts into an array', { l: ['a', 'c'] }, [{ op: 'add', path: '/l/1', value: 'b' }], { l: ['a', 'b', 'c'] }],
    ['add at index == length appends', { l: ['a'] }, [{ op: 'add', path: '/l/1', value: 'b' }], { l: ['a', 'b'] }],
    ['add with - appends', { l: ['a'] }, [{ op: 'add', path: '/l/-', value: 'b' }], { l: ['a', 'b'] }],
    [
      'add with -1 appends (negative indexes count from the end)',
      { l: ['a', 'b'] },
      [{ op: 'add', path: '/l/-1', value: 'c' }],
      { l: ['a', 'b', 'c'] },
    ],
    ['add with -2 inserts before the last', { l: ['a', 'b'] }, [{ op: 'add', path: '/l/-2', value: 'x' }], { l: ['a', 'x', 'b'] }],
    ['add inside an array element', { l: [{ n: 1 }] }, [{ op: 'add', path: '/l/0/m', value: 2 }], { l: [{ n: 1, m: 2 }] }],
    [
      '~1 is a slash',
      { metadata: { labels: {} } },
      [{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' }],
      { metadata: { labels: { 'app.kubernetes.io/name': 'web' } } },
    ],
    ['~0 is a tilde, decoded after ~1', { a: {} }, [{ op: 'add', path: '/a/x~01', value: 1 }], { a: { 'x~1': 1 } }],
    ['empty key', { a: 1 }, [{ op: 'add', path: '/', value: 2 }], { a: 1, '': 2 }],
    [
      '"__proto__" is an ordinary key',
      {},
      [{ op: 'add', path: '/__proto__', value: { polluted: true } }],
      JSON.parse('{"__proto__":{"polluted":true}}'),
    ],
    ['remove a key', { a: 1, b: 2 }, [{ op: 'remove', path: '/a' }], { b: 2 }],
    ['remove a null-valued key', { a: null }, [{ op: 'remove', path: '/a' }], {}],
    ['remove an array element', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }], { l: [1, 3] }],
    ['remove the last element with -1', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }], { l: [1, 2] }],
    ['replace a key', { a: 1 }, [{ op: 'replace', path: '/a', value: 'x' }], { a: 'x' }],
    ['replace of a missing key adds it (v4 quirk)', { spec: {} }, [{ op: 'replace', path: '/spec/x', value: 1 }], { spec: { x: 1 } }],
    ['replace an array element', { l: [1, 2] }, [{ op: 'replace', path: '/l/0', value: 9 }], { l: [9, 2] }],
    ['replace the whole document', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
    ['move a key', { a: 1, b: {} }, [{ op: 'move', from: '/a', path: '/b/c' }], { b: { c: 1 } }],
    ['move within an array', { l: ['a', 'b', 'c'] }, [{ op: 'move', from: '/l/0', path: '/l/-' }], { l: ['b', 'c', 'a'] }],
    [
      'copy a value (deep)',
      { a: { x: [1] } },
      [
        { op: 'copy', from: '/a', path: '/b' },
        { op: 'add', path: '/b/x/-', value: 2 },
      ],
      { a: { x: [1] }, b: { x: [1, 2] } },
    ],
    ['copy from a missing key copies null (v4 quirk)', { a: 1 }, [{ op: 'copy', from: '/nope', path: '/b' }], { a: 1, b: null }],
    [
      'test passes, then add',
      { a: { b: [1, { c: 'x' }] } },
      [
        { op: 'test', path: '/a', value: { b: [1, { c: 'x' }] } },
        { op: 'add', path: '/d', value: 1 },
      ],
      { a: { b: [1, { c: 'x' }] }, d: 1 },
    ],
    ['test null against a missing key passes', { a: 1 }, [{ op: 'test', path: '/b', value: null }], { a: 1 }],
    ['test null against a null value passes', { a: null }, [{ op: 'test', path: '/a', value: null }], { a: null }],
    ['test of the whole document', { a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }], { a: 1 }],
    ['a document that is an array', [1, 2], [{ op: 'add', path: '/0', value: 0 }], [0, 1, 2]],
    ['no operations', { a: 1 }, [], { a: 1 }],
  ];
  for (const [name, doc, ops, want] of cases) {
    it(name, () => assert.deepEqual(applyJsonPatch(doc, ops), want));
  }
});

describe('applyJsonPatch: errors', () => {
  const cases: [name: string, doc: unknown, ops: unknown, message: string, code: number][] = [
    ['patch is not a list', {}, { op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch', 400],
    ['operation is not an object', {}, ['add'], 'json: cannot unmarshal string into Go value of type jsonpatch.Operation', 400],
    ['unknown op', {}, [{ op: 'frob', path: '/a' }], 'Unexpected kind: frob', 422],
    ['missing op', {}, [{ path: '/a' }], 'Unexpected kind: unknown', 422],
    ['add without path', {}, [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value', 422],
    [
      'replace with a numeric path',
      {},
      [{ op: 'replace', path: 1 }],
      'replace operation failed to decode path: json: cannot unmarshal number into Go value of type string',
      422,
    ],
    [
      'add under a missing parent',
      { spec: {} },
      [{ op: 'add', path: '/spec/x/y', value: 1 }],
      'add operation does not apply: doc is missing path: "/spec/x/y": missing value',
      422,
    ],
    [
      'add under a string',
      { a: 's' },
      [{ op: 'add', path: '/a/b', value: 1 }],
      'add operation does not apply: doc is missing path: "/a/b": missing value',
      422,
    ],
    [
      'add at the root path',
      {},
      [{ op: 'add', path: '', value: 1 }],
      'add operation does not apply: doc is missing path: "": missing value',
      422,
    ],
    [
      'add past the end',
      { l: [1] },
      [{ op: 'add', path: '/l/2', value: 1 }],
      "error in add for path: '/l/2': Unable to access invalid index: 2: invalid index referenced",
      422,
    ],
    [
      'add before the start',
      { l: [1] },
      [{ op: 'add', path: '/l/-3', value: 1 }],
      "error in add for path: '/l/-3': Unable to access invalid index: -3: invalid index referenced",
      422,
    ],
    [
      'add with a non-numeric index',
      { l: [1] },
      [{ op: 'add', path: '/l/x', value: 1 }],
      `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
      422,
    ],
    [
      'remove a missing key',
      { a: {} },
      [{ op: 'remove', path: '/a/b' }],
      "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value",
      422,
    ],
    [
      'remove under a missing parent',
      {},
      [{ op: 'remove', path: '/a/b' }],
      'remove operation does not apply: doc is missing path: "/a/b": missing value',
      422,
    ],
    [
      'remove past the end',
      { l: [1] },
      [{ op: 'remove', path: '/l/1' }],
      "error in remove for path: '/l/1': Unable to access invalid index: 1: invalid index referenced",
      422,
    ],
    [
      'remove with -',
      { l: [1] },
      [{ op: 'remove', path: '/l/-' }],
      `error in remove for path: '/l/-': strconv.Atoi: parsing "-": invalid syntax`,
      422,
    ],
    [
      'replace under a missing parent',
      { spec: {} },
      [{ op: 'replace', path: '/spec/x/y', value: 1 }],
      'replace operation does not apply: doc is missing path: /spec/x/y: missing value',
      422,
    ],
    [
      'replace past the end',
      { l: [1] },
      [{ op: 'replace', path: '/l/1', value: 1 }],
      'replace operation does not apply: doc is missing key: /l/1: missing value',
      422,
    ],
    [
      'replace the document with a string',
      {},
      [{ op: 'replace', path: '', value: 'x' }],
      'replace operation value must be object or array: %!w(<nil>)',
      422,
    ],
    [
      'move without from',
      {},
      [{ op: 'move', path: '/a' }],
      'move operation failed to decode from: operation, missing from field: missing value',
      422,
    ],
    [
      'move a missing key',
      { a: {} },
      [{ op: 'move', from: '/a/x', path: '/b' }],
      "error in move for path: 'x': Unable to remove nonexistent key: x: missing value",
      422,
    ],
    [
      'move into a missing parent',
      { a: 1 },
      [{ op: 'move', from: '/a', path: '/b/c' }],
      'move operation does not apply: doc is missing destination path: /b/c: missing value',
      422,
    ],
    [
      'move a value into itself',
      { a: { b: 1 } },
      [{ op: 'move', from: '/a', path: '/a/b' }],
      'move operation does not apply: doc is missing destination path: /a/b: missing value',
      422,
    ],
    [
      'copy from a missing parent',
      {},
      [{ op: 'copy', from: '/a/b', path: '/c' }],
      'copy operation does not apply: doc is missing from path: /a/b: missing value',
      422,
    ],
    [
      'copy to a missing parent',
      { a: 1 },
      [{ op: 'copy', from: '/a', path: '/b/c' }],
      'copy operation does not apply: doc is missing destination path: /b/c: missing value',
      422,
    ],
    [
      'copy past the end',
      { a: 1, l: [] },
      [{ op: 'copy', from: '/a', path: '/l/5' }],
      'error while adding value during copy: Unable to access invalid index: 5: invalid index referenced',
      422,
    ],
    ['test a different value', { a: 1 }, [{ op: 'test', path: '/a', value: 2 }], 'testing value /a failed: test failed', 422],
    ['test a value against null', { a: 1 }, [{ op: 'test', path: '/a', value: null }], 'testing value /a failed: test failed', 422],
    ['test a missing key against a value', { a: 1 }, [{ op: 'test', path: '/b', value: 1 }], 'testing value /b failed: test failed', 422],
    [
      'test under a missing parent',
      {},
      [{ op: 'test', path: '/a/b', value: 1 }],
      'test operation does not apply: is missing path: /a/b: missing value',
      422,
    ],
    [
      'test past the end',
      { l: [] },
      [{ op: 'test', path: '/l/0', value: 1 }],
      "error in test for path: '/l/0': Unable to access invalid index: 0: invalid index referenced",
      422,
    ],
    [
      'a later failure discards earlier operations',
      { a: 1 },
      [
        { op: 'add', path: '/b', value: 2 },
        { op: 'test', path: '/a', value: 3 },
      ],
      'testing value /a failed: test failed',
      422,
    ],
  ];
  for (const [name, doc, ops, message, code] of cases) {
    it(name, () => {
      assert.throws(
        () => applyJsonPatch(doc, ops),
        (err: unknown) => {
          assert.ok(err instanceof PatchError);
          assert.equal(err.message, message);
          assert.equal(err.code, code);
          return true;
        },
      );
    });
  }
});

describe('applyJsonPatch: purity', () => {
  it('never modifies the document or the operations', () => {
    const doc = { a: { l: [1, 2] } };
    const ops = [
      { op: 'add', path: '/a/l/-', value: { x: 1 } },
      { op: 'add', path: '/a/l/2/y', value: 2 },
      { op: 'remove', path: '/a/l/0' },
    ];
    const docBefore = structuredClone(doc);
    const opsBefore = structuredClone(ops);
    const out = applyJsonPatch(doc, ops);
    assert.deepEqual(out, { a: { l: [2, { x: 1, y: 2 }] } });
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(ops, opsBefore);
  });
});

describe('applyJsonPatch: the accumulated copy limit', () => {
  it('counts the JSON bytes every copy adds and stops past maxCopyBytes, with the library message', () => {
    const doc = { l: ['abcdefgh'] };
    const doubling = Array.from({ length: 30 }, () => ({ op: 'copy', from: '/l', path: '/l/-' }));
    assert.throws(
      () => applyJsonPatch(doc, doubling, { maxCopyBytes: 1000 }),
      (err: unknown) => {
        assert.ok(err instanceof PatchError);
        assert.equal(err.code, 422);
        assert.match(err.message, /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 1000$/);
        return true;
      },
    );
    // '"abcdefgh"' is 10 bytes: 99 copies are 990, the 101st byte fails.
    const copies = (n: number) => Array.from({ length: n }, () => ({ op: 'copy', from: '/l/0', path: '/l/-' }));
    assert.equal(applyJsonPatch(doc, copies(100), { maxCopyBytes: 1000 }).l.length, 101);
    assert.throws(
      () => applyJsonPatch(doc, copies(101), { maxCopyBytes: 1000 }),
      /accumulated size increase of copy is 1010, exceeding the limit 1000/,
    );
    // Without a limit, nothing is counted.
    assert.equal(applyJsonPatch(doc, copies(101)).l.length, 102);
  });
});
