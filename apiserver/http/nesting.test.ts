import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonNestingError, yamlNestingError } from './nesting.ts';

test('JSON: more than 10,000 levels is Go scanner error at the bracket that opens level 10,001', () => {
  assert.equal(jsonNestingError('{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)), undefined);
  assert.equal(jsonNestingError('{"a":'.repeat(10_001) + '1' + '}'.repeat(10_001)), "invalid character '{' exceeded max depth");
  assert.equal(jsonNestingError('['.repeat(100_000)), "invalid character '[' exceeded max depth");
  // Brackets in strings do not count, escaped quotes do not end them.
  assert.equal(jsonNestingError(JSON.stringify({ a: '['.repeat(20_000) + '"\\' })), undefined);
  assert.equal(jsonNestingError('[]'.repeat(20_000)), undefined);
});

test('YAML: flow and block nesting past 10,000 levels is go-yaml error', () => {
  assert.equal(yamlNestingError('['.repeat(1000 * 1024)), 'exceeded max depth of 10000');
  assert.equal(yamlNestingError('x: ' + '{'.repeat(1000 * 1024)), 'exceeded max depth of 10000');
  assert.equal(yamlNestingError('- '.repeat(1000 * 1024)), 'exceeded max depth of 10000');
  assert.equal(yamlNestingError('a: 1\n' + '{"a":'.repeat(10_001) + '1' + '}'.repeat(10_001)), 'line 2: exceeded max depth of 10000');
  const blockMap = Array.from({ length: 10_002 }, (_, i) => ' '.repeat(i) + 'a:').join('\n');
  assert.match(yamlNestingError(blockMap) ?? '', /^line \d+: exceeded max depth of 10000$/);
  // go-yaml's own limit tests that must pass.
  assert.equal(yamlNestingError('['.repeat(10_000) + '1' + ',1'.repeat(20_000) + ']'.repeat(10_000)), undefined);
  assert.equal(yamlNestingError(('- '.repeat(1000) + '\n').repeat(512)), undefined);
  assert.equal(yamlNestingError(('- ' + '['.repeat(10_000) + ']'.repeat(10_000) + '\n').repeat(5)), undefined);
  // Brackets in quoted and plain scalars and in comments do not count.
  assert.equal(
    yamlNestingError(`a: "${'['.repeat(20_000)}"\nb: '${'{'.repeat(20_000)}'\nc: x${'['.repeat(20_000)}\n# ${'['.repeat(20_000)}\n`),
    undefined,
  );
  // Many keys at the same indentation are one level.
  assert.equal(yamlNestingError(Array.from({ length: 20_000 }, (_, i) => `k${i}: v`).join('\n')), undefined);
});
