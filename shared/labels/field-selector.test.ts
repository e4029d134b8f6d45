// Table tests for field selectors: parsing, escaping, matching, and the
// exact-match helper the apiserver uses for indexes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  escapeFieldValue,
  exactMatch,
  fieldSelectorFields,
  fieldSelectorString,
  matchesFields,
  parseFieldSelector,
  unescapeFieldValue,
} from './field-selector.ts';

describe('parseFieldSelector: accepted input', () => {
  const cases: [input: string, printed: string][] = [
    ['', ''],
    [',', ''],
    ['=', ''],
    ['spec.nodeName=node-1', 'spec.nodeName=node-1'],
    ['spec.nodeName==node-1', 'spec.nodeName=node-1'],
    ['status.phase!=Running', 'status.phase!=Running'],
    ['metadata.name=b,metadata.namespace=a', 'metadata.name=b,metadata.namespace=a'],
    ['metadata.namespace=a,metadata.name=b', 'metadata.name=b,metadata.namespace=a'],
    ['a=b,,c=d', 'a=b,c=d'],
    ['spec.nodeName=', 'spec.nodeName='],
    ['a= b ', 'a= b '],
    ['a=x\\,y', 'a=x\\,y'],
    ['a=x\\=y', 'a=x\\=y'],
    ['a=x\\\\y', 'a=x\\\\y'],
    ['=x', '=x'],
  ];
  for (const [input, printed] of cases) {
    it(JSON.stringify(input), () => assert.equal(fieldSelectorString(parseFieldSelector(input)), printed));
  }

  it('keeps whitespace in field and value, as kube does', () => {
    assert.deepEqual(parseFieldSelector(' a = b').requirements, [{ field: ' a ', operator: '=', value: ' b' }]);
  });

  it('unescapes values', () => {
    assert.deepEqual(parseFieldSelector('a=x\\,y\\=z\\\\,b!=c').requirements, [
      { field: 'a', operator: '=', value: 'x,y=z\\' },
      { field: 'b', operator: '!=', value: 'c' },
    ]);
  });
});

describe('parseFieldSelector: errors', () => {
  const cases: [input: string, message: string][] = [
    ['spec.nodeName', "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a!b', "invalid selector: 'a!b'; can't understand 'a!b'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a==b,c', "invalid selector: 'a==b,c'; can't understand 'c'"],
    ['a=\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=x\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a\\=b=c', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => assert.throws(() => parseFieldSelector(input), { message }));
  }
});

describe('escapeFieldValue / unescapeFieldValue', () => {
  const cases: [raw: string, escaped: string][] = [
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['\\,=', '\\\\\\,\\='],
  ];
  for (const [raw, escaped] of cases) {
    it(JSON.stringify(raw), () => {
      assert.equal(escapeFieldValue(raw), escaped);
      assert.equal(unescapeFieldValue(escaped), raw);
    });
  }
});

describe('matchesFields', () => {
  const pod: Record<string, string> = { 'metadata.name': 'web-1', 'spec.nodeName': 'node-1', 'status.phase': 'Running' };
  const get = (f: string): string | undefined => pod[f];
  const cases: [selector: string, match: boolean][] = [
    ['', true],
    ['spec.nodeName=node-1', true],
    ['spec.nodeName=node-2', false],
    ['spec.nodeName!=node-2', true],
    ['spec.nodeName=node-1,status.phase!=Running', false],
    ['spec.nodeName=node-1,status.phase!=Pending', true],
    ['spec.schedulerName=', true],
    ['spec.schedulerName!=', false],
    ['spec.schedulerName!=x', true],
  ];
  for (const [selector, match] of cases) {
    it(`${selector} -> ${match}`, () => assert.equal(matchesFields(parseFieldSelector(selector), get), match));
  }
});

describe('fieldSelectorFields and exactMatch', () => {
  it('lists each named field once', () => {
    assert.deepEqual(fieldSelectorFields(parseFieldSelector('b=1,a=2,b!=3')), ['a', 'b']);
    assert.deepEqual(fieldSelectorFields(parseFieldSelector('')), []);
  });
  const cases: [selector: string, field: string, want: string | undefined][] = [
    ['spec.nodeName=node-1', 'spec.nodeName', 'node-1'],
    ['spec.nodeName==node-1', 'spec.nodeName', 'node-1'],
    ['spec.nodeName=', 'spec.nodeName', ''],
    ['spec.nodeName!=node-1', 'spec.nodeName', undefined],
    ['status.phase=Running', 'spec.nodeName', undefined],
    ['a=2,a=1', 'a', '1'],
    ['a!=2,a=1', 'a', '1'],
  ];
  for (const [selector, field, want] of cases) {
    it(`${selector} / ${field}`, () => assert.equal(exactMatch(parseFieldSelector(selector), field), want));
  }
});
