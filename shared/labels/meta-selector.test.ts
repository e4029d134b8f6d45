// Table tests for metav1.LabelSelector conversion and kubectl-style printing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LabelSelector as MetaLabelSelector } from 'kubernetes-types/meta/v1.js';
import { isEmptySelector, labelSelectorString, matchesLabels } from './selector.ts';
import { formatLabelSelector, selectorFromLabelSelector } from './meta-selector.ts';

describe('formatLabelSelector', () => {
  const cases: [name: string, sel: MetaLabelSelector | null | undefined, text: string][] = [
    ['nil selector', undefined, '<none>'],
    ['null selector', null, '<none>'],
    ['empty selector', {}, '<none>'],
    ['empty maps', { matchLabels: {}, matchExpressions: [] }, '<none>'],
    ['matchLabels sorted by key', { matchLabels: { tier: 'fe', app: 'web' } }, 'app=web,tier=fe'],
    [
      'labels and expressions',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a'] },
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'zone', operator: 'Exists' },
        ],
      },
      'app=web,!canary,env notin (prod),tier in (a,b),zone',
    ],
    [
      'same key keeps matchLabels first',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'Exists' }] },
      'app=web,app',
    ],
    ['bad operator', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '<error>'],
    ['bad key', { matchLabels: { 'a b': 'x' } }, '<error>'],
  ];
  for (const [name, sel, text] of cases) {
    it(name, () => assert.equal(formatLabelSelector(sel), text));
  }
});

describe('selectorFromLabelSelector', () => {
  it('nil matches nothing, {} matches everything', () => {
    assert.equal(matchesLabels(selectorFromLabelSelector(undefined), { a: 'b' }), false);
    assert.equal(matchesLabels(selectorFromLabelSelector(null), undefined), false);
    assert.equal(isEmptySelector(selectorFromLabelSelector(null)), false);
    assert.equal(matchesLabels(selectorFromLabelSelector({}), undefined), true);
    assert.equal(isEmptySelector(selectorFromLabelSelector({})), true);
  });

  const matchCases: [sel: MetaLabelSelector, labels: Record<string, string>, match: boolean][] = [
    [{ matchLabels: { app: 'web' } }, { app: 'web', x: 'y' }, true],
    [{ matchLabels: { app: 'web' } }, { app: 'db' }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, { tier: 'b' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { tier: '' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, { tier: '' }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { app: 'web' }, false],
  ];
  for (const [sel, labels, match] of matchCases) {
    it(`${JSON.stringify(sel)} on ${JSON.stringify(labels)} -> ${match}`, () => {
      assert.equal(matchesLabels(selectorFromLabelSelector(sel), labels), match);
    });
  }

  const errorCases: [sel: MetaLabelSelector, message: string][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    [
      { matchLabels: { 'a b': 'x' } },
      "key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    [{ matchLabels: { app: 'x'.repeat(64) } }, `values[0][app]: Invalid value: "${'x'.repeat(64)}": must be no more than 63 bytes`],
  ];
  for (const [sel, message] of errorCases) {
    it(`rejects ${JSON.stringify(sel).slice(0, 60)}`, () => {
      assert.throws(() => selectorFromLabelSelector(sel), { message });
    });
  }

  it('keeps structured values unsorted in memory but prints them sorted', () => {
    const sel = selectorFromLabelSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['z', 'a', 'z'] }] });
    assert.deepEqual(sel.requirements[0].values, ['z', 'a', 'z']);
    assert.equal(labelSelectorString(sel), 'k in (a,z,z)');
  });
});
