import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, cmpQuantity, parseQuantity, QUANTITY_FORMAT_ERROR, type Quantity } from './quantity.ts';

describe('quantity canonical form', () => {
  const cases: [unknown, string, boolean?][] = [
    ['0.5', '500m'],
    [0.5, '500m'],
    [1, '1'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['100u', '1m', true],
    ['100u', '100u'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1000Mi', '1000Mi'],
    ['512', '512'],
    ['2048', '2048'],
    ['1G', '1G'],
    ['1000M', '1G'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['129e6', '129e6'],
    ['128974848', '128974848'],
    ['0Mi', '0'],
    ['1Ki', '1Ki'],
    ['0.1', '100m'],
    ['12k', '12k'],
  ];
  for (const [input, want, milli] of cases) {
    it(`${JSON.stringify(input)}${milli ? ' (milli)' : ''} -> ${want}`, () => assert.equal(canonicalQuantity(input, milli), want));
  }
});

describe('quantity parse errors', () => {
  const cases: [unknown, string][] = [
    ['abc', QUANTITY_FORMAT_ERROR],
    ['1Gb', QUANTITY_FORMAT_ERROR],
    ['', QUANTITY_FORMAT_ERROR],
    ['1Kii', "unable to parse quantity's suffix"],
    ['1.2.3', QUANTITY_FORMAT_ERROR],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(parseQuantity(input), want));
});

describe('quantity compare', () => {
  const q = (s: string) => parseQuantity(s) as Quantity;
  it('orders across suffixes', () => {
    assert.equal(cmpQuantity(q('1Gi'), q('1G')), 1);
    assert.equal(cmpQuantity(q('500m'), q('0.5')), 0);
    assert.equal(cmpQuantity(q('2'), q('1500m')), 1);
    assert.equal(cmpQuantity(q('100Mi'), q('200Mi')), -1);
  });
});
