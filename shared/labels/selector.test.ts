// Tests for the selector helpers: exact-match introspection and set selectors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { labelExactMatch, labelSelectorString, matchesLabels, selectorFromSet } from './selector.ts';
import { parseLabelSelector } from './parse-label-selector.ts';

describe('labelExactMatch', () => {
  const cases: [selector: string, label: string, want: string | undefined][] = [
    ['app=web', 'app', 'web'],
    ['app==web', 'app', 'web'],
    ['app in (web)', 'app', 'web'],
    ['app in (a,b)', 'app', undefined],
    ['app!=web', 'app', undefined],
    ['app', 'app', undefined],
    ['tier=x', 'app', undefined],
    ['', 'app', undefined],
  ];
  for (const [selector, label, want] of cases) {
    it(`${selector} / ${label}`, () => assert.equal(labelExactMatch(parseLabelSelector(selector), label), want));
  }
});

describe('selectorFromSet', () => {
  it('matches exactly the set, sorted when printed', () => {
    const sel = selectorFromSet({ tier: 'fe', app: 'web' });
    assert.equal(labelSelectorString(sel), 'app=web,tier=fe');
    assert.equal(matchesLabels(sel, { app: 'web', tier: 'fe', x: '1' }), true);
    assert.equal(matchesLabels(sel, { app: 'web' }), false);
  });
  it('an empty or missing set is everything', () => {
    assert.equal(matchesLabels(selectorFromSet(undefined), undefined), true);
    assert.equal(matchesLabels(selectorFromSet({}), { a: 'b' }), true);
  });
});
