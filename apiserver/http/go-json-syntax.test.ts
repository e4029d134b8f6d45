import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from './go-json-syntax.ts';

const err = (text: string | Buffer) => goJsonSyntaxError(typeof text === 'string' ? Buffer.from(text) : text);

test('valid JSON has no error', () => {
  for (const ok of ['{}', '[]', ' {"a":[1,-2.5e+3,true,false,null,"x\\u00e9\\n"]} ', '0', '"s"', '[[],{}]'])
    assert.equal(err(ok), undefined, ok);
});

test("Go's scanner messages", () => {
  const cases: [string | Buffer, string][] = [
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"metadata":{"name":"d1"},"data":{"a":"1"}', 'unexpected end of JSON input'],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul', 'unexpected end of JSON input'],
    ['"a\\qb"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    [Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), "invalid character 'ï' looking for beginning of value"],
    ['['.repeat(10_001), "invalid character '[' exceeded max depth"],
  ];
  for (const [text, message] of cases) assert.equal(err(text), message, String(text).slice(0, 40));
});
