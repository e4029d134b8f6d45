// resource.Quantity canonical forms, as kube prints quota usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity } from './quantity.ts';

test('canonicalQuantity matches Quantity.String()', () => {
  const cases: [string | number | undefined, string][] = [
    [undefined, '0'],
    ['0', '0'],
    ['0Mi', '0'],
    ['1', '1'],
    [3, '3'],
    ['10', '10'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['0.1m', '100u'],
    ['2.5k', '2500'],
    ['100k', '100k'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['512Mi', '512Mi'],
    ['1Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['1023', '1023'],
    ['1e3', '1e3'],
    ['12e6', '12e6'],
    ['1E', '1E'],
    ['-500m', '-500m'],
    ['nonsense', 'nonsense'],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, String(input));
});
