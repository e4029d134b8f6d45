import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeYaml, YamlDecodeError } from './yaml-decode.ts';

function refused(text: string, message: string): void {
  assert.throws(
    () => decodeYaml(text),
    (err: unknown) => err instanceof YamlDecodeError && err.message === message,
  );
}

test('plain YAML and JSON decode as before, aliases included', () => {
  assert.deepEqual(decodeYaml('a: 1\nb: [x, {c: d}]\n'), { a: 1, b: ['x', { c: 'd' }] });
  assert.deepEqual(decodeYaml('{"a": {"b": [1, 2]}}'), { a: { b: [1, 2] } });
  assert.deepEqual(decodeYaml('base: &b {x: 1}\nuse: *b\n'), { base: { x: 1 }, use: { x: 1 } });
});

test("an alias inside its own anchor is go-yaml's error, not a circular object", () => {
  refused('a: &a\n  b: *a\n', "yaml: anchor 'a' value contains itself");
  refused('- &x [1, *x]\n', "yaml: anchor 'x' value contains itself");
  refused('a: *nope\n', "yaml: unknown anchor 'nope' referenced");
});

test('a billion laughs is refused without being expanded', () => {
  const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) {
    const name = String.fromCharCode(97 + i);
    const prev = String.fromCharCode(96 + i);
    levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  const started = Date.now();
  refused(levels.join('\n') + '\n', 'yaml: document contains excessive aliasing');
  assert.ok(Date.now() - started < 2000);
  // go-yaml's own case: 1000 KB of maps with 100 aliases.
  refused(
    `{a: &a [{a}${',{a}'.repeat((1000 * 1024) / 4 - 100)}], b: &b [*a${',*a'.repeat(99)}]}`,
    'yaml: document contains excessive aliasing',
  );
  // A few aliases of a small anchor are fine.
  assert.equal(
    (decodeYaml(`a: &a [1, 2, 3]\n${Array.from({ length: 50 }, (_, i) => `k${i}: *a`).join('\n')}\n`) as { k49: unknown[] }).k49.length,
    3,
  );
});

test('nesting past 10,000 levels is refused before parsing', () => {
  refused('['.repeat(1000 * 1024), 'yaml: exceeded max depth of 10000');
  refused('- '.repeat(1000 * 1024), 'yaml: exceeded max depth of 10000');
  // Deep but within the limit: the yaml package gives up (its recursion is shallower), with an error, not a crash.
  assert.throws(() => decodeYaml('['.repeat(5000) + ']'.repeat(5000)), YamlDecodeError);
});
