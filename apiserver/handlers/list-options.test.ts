import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { checkListOptions, listOptionErrors } from './list-options.ts';

const FORBID_NO_RV = 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided';
const FORBID_CONTINUE = 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided';
const NEEDS_NOT_OLDER = 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan';

// [query, watch, the messages kube's ValidateListOptions gives, in order]
const cases: [string, boolean, string[]][] = [
  ['', false, []],
  ['resourceVersion=5&resourceVersionMatch=Exact', false, []],
  ['resourceVersion=0&resourceVersionMatch=NotOlderThan', false, []],
  ['resourceVersionMatch=NotOlderThan', false, [FORBID_NO_RV]],
  [
    'resourceVersion=0&resourceVersionMatch=Exact',
    false,
    ['resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
  ],
  [
    'resourceVersion=5&resourceVersionMatch=Foo',
    false,
    ['resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""'],
  ],
  [
    'resourceVersionMatch=Foo&continue=abc',
    false,
    [FORBID_NO_RV, FORBID_CONTINUE, 'resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""'],
  ],
  ['sendInitialEvents=true', false, ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list']],
  ['sendInitialEvents=false', false, ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list']],
  ['', true, []],
  ['sendInitialEvents=true&resourceVersionMatch=NotOlderThan', true, []],
  ['sendInitialEvents=false&resourceVersionMatch=NotOlderThan', true, []],
  ['sendInitialEvents=true', true, [NEEDS_NOT_OLDER]],
  [
    'resourceVersionMatch=NotOlderThan',
    true,
    ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
  ],
  [
    'sendInitialEvents=true&resourceVersionMatch=Exact',
    true,
    [NEEDS_NOT_OLDER, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"'],
  ],
  ['sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=x', true, [FORBID_CONTINUE]],
];

test('list and watch options are checked as kube checks them', () => {
  for (const [query, watch, want] of cases) {
    const got = listOptionErrors(new URLSearchParams(query), watch).map((e) => e.message);
    assert.deepEqual(got, want, `${watch ? 'watch' : 'list'} ?${query}`);
  }
});

test('invalid options are a 422 for ListOptions.meta.k8s.io with a cause per violation', () => {
  assert.doesNotThrow(() => checkListOptions(new URLSearchParams('resourceVersion=1&resourceVersionMatch=Exact'), false));
  try {
    checkListOptions(new URLSearchParams('resourceVersionMatch=Foo&continue=abc'), false);
    assert.fail('no error');
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 422);
    assert.equal(err.reason, 'Invalid');
    assert.equal(
      err.message,
      `ListOptions.meta.k8s.io "" is invalid: [${FORBID_NO_RV}, ${FORBID_CONTINUE}, resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""]`,
    );
    assert.equal(err.details?.kind, 'ListOptions');
    assert.equal(err.details?.group, 'meta.k8s.io');
    assert.deepEqual(
      err.details?.causes?.map((c) => [c.reason, c.field]),
      [
        ['FieldValueForbidden', 'resourceVersionMatch'],
        ['FieldValueForbidden', 'resourceVersionMatch'],
        ['FieldValueNotSupported', 'resourceVersionMatch'],
      ],
    );
  }
});
