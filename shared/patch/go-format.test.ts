// Tests for the Go-style rendering used in kube's patch error messages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goQuote, goTypeName, goValue } from './go-format.ts';

describe('goValue (%v)', () => {
  const cases: [value: unknown, text: string][] = [
    [null, '<nil>'],
    ['a b', 'a b'],
    [true, 'true'],
    [80, '80'],
    [-3, '-3'],
    [1.5, '1.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [123456.5, '123456.5'],
    [1234567.5, '1.2345675e+06'],
    [[], '[]'],
    [['a', 1, null], '[a 1 <nil>]'],
    [{}, 'map[]'],
    [{ name: 'x', $patch: 'delete', image: 'y' }, 'map[$patch:delete image:y name:x]'],
    [{ b: [{ c: 1 }], a: { z: 'q' } }, 'map[a:map[z:q] b:[map[c:1]]]'],
  ];
  for (const [value, text] of cases) it(text, () => assert.equal(goValue(value), text));
});

describe('goTypeName', () => {
  const cases: [value: unknown, text: string][] = [
    [{}, 'map[string]interface {}'],
    [[], '[]interface {}'],
    ['s', 'string'],
    [1, 'int64'],
    [1.5, 'float64'],
    [false, 'bool'],
    [null, '%!s(<nil>)'],
  ];
  for (const [value, text] of cases) it(text, () => assert.equal(goTypeName(value), text));
});

describe('goQuote (%q)', () => {
  const cases: [value: string, text: string][] = [
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\there\n', '"tab\\there\\n"'],
    ['\x01', '"\\x01"'],
  ];
  for (const [value, text] of cases) it(JSON.stringify(value), () => assert.equal(goQuote(value), text));
});
