import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, parseFlags, type FlagSpec } from './flags.ts';

const SPEC = {
  'data-dir': { type: 'string', default: '.ksim', help: '' },
  port: { type: 'number', default: 6443, help: '' },
  verbose: { type: 'boolean', help: '' },
} satisfies FlagSpec;

test('flags: defaults, both value forms, booleans', () => {
  assert.deepEqual(parseFlags([], SPEC), { 'data-dir': '.ksim', port: 6443, verbose: false });
  assert.deepEqual(parseFlags(['--data-dir', '/x', '--port=0', '--verbose'], SPEC), { 'data-dir': '/x', port: 0, verbose: true });
  assert.equal(parseFlags(['--verbose=false'], SPEC).verbose, false);
});

test('flags: clear errors for unknown flags and bad values', () => {
  const cases: [string[], RegExp][] = [
    [['--nope'], /unknown flag --nope/],
    [['--port', 'abc'], /--port: "abc" is not a number/],
    [['--port'], /--port needs a value/],
    [['stray'], /unexpected argument "stray"/],
    [['--verbose=maybe'], /not true or false/],
  ];
  for (const [argv, re] of cases)
    assert.throws(
      () => parseFlags(argv, SPEC),
      (e: unknown) => e instanceof FlagError && re.test(e.message),
    );
});
