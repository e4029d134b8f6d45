import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warningHeaders } from './warning-headers.ts';

const wire = (values: string[]): string[] => values.map((v) => Buffer.from(v, 'latin1').toString('utf8'));

test('warning texts go out quoted as kube quotes them, as UTF-8 bytes', () => {
  const values = warningHeaders(['unknown field "ünknown€"', 'a\\b']);
  // Every character is a byte: Node accepts the header.
  for (const v of values) assert.ok(/^[\x20-\xff]*$/.test(v), v);
  assert.deepEqual(wire(values), ['299 - "unknown field \\"ünknown€\\""', '299 - "a\\\\b"']);
});

test('texts are sent once each, and ones with control characters are left out', () => {
  assert.deepEqual(wire(warningHeaders(['x', 'x', '', 'tab\there', 'nel\u0085', 'y'])), ['299 - "x"', '299 - "y"']);
});

test('past 4096 runes in all, every text is cut to 256 runes', () => {
  const long = (i: number) => `${i}:` + '€'.repeat(1000);
  const few = warningHeaders([long(1), long(2), long(3), long(4)]);
  assert.equal(wire(few)[0].length, '299 - "'.length + 1002 + 1);
  const many = wire(warningHeaders([long(1), long(2), long(3), long(4), long(5)]));
  assert.equal(many.length, 5);
  for (const v of many) assert.equal(v, `299 - "${v.slice(7, 9)}${'€'.repeat(254)}"`);
});
