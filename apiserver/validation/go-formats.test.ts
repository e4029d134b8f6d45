// Tables for the Go parser ports: each row is an input and the exact error
// Go (resource.ParseQuantity, base64.StdEncoding, time.Parse, strconv.Quote)
// gives for it, or undefined where Go accepts it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  QUANTITY_FORMAT_WRONG,
  QUANTITY_NUMERIC,
  QUANTITY_SUFFIX,
  RFC3339,
  RFC3339_MICRO,
  base64DecodeError,
  goQuote,
  intFits,
  parseQuantityError,
  parseTimeError,
} from './go-formats.ts';

test('resource.ParseQuantity outcomes', () => {
  const cases: [string, string | undefined][] = [
    ['0', undefined],
    ['1', undefined],
    ['100m', undefined],
    ['1Gi', undefined],
    ['1.5Gi', undefined],
    ['+1k', undefined],
    ['-1', undefined],
    ['1e3', undefined],
    ['1E-3', undefined],
    ['.5', undefined],
    ['1.', undefined],
    ['.', undefined],
    ['000', undefined],
    ['12345678901234567890123', undefined],
    ['0.0000000001', undefined],
    ['', QUANTITY_FORMAT_WRONG],
    ['abc', QUANTITY_FORMAT_WRONG],
    ['1x', QUANTITY_FORMAT_WRONG],
    ['1 Gi', QUANTITY_FORMAT_WRONG],
    ['1Gi ', QUANTITY_FORMAT_WRONG],
    ['{}', QUANTITY_FORMAT_WRONG],
    ['true', QUANTITY_FORMAT_WRONG],
    ['1mm', QUANTITY_SUFFIX],
    ['1e', QUANTITY_SUFFIX],
    ['1e+', QUANTITY_SUFFIX],
    ['1Ki5', QUANTITY_SUFFIX],
    ['1K', QUANTITY_SUFFIX],
    ['e-20', QUANTITY_NUMERIC],
  ];
  for (const [input, want] of cases) assert.equal(parseQuantityError(input), want, JSON.stringify(input));
  assert.equal(QUANTITY_FORMAT_WRONG, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
});

test('base64.StdEncoding.Decode errors', () => {
  const cases: [string, string | undefined][] = [
    ['', undefined],
    ['aGVsbG8=', undefined],
    ['aGVsbA==', undefined],
    ['aGVs', undefined],
    ['aGVs\nbG8=', undefined],
    ['aGVsbG8', 'illegal base64 data at input byte 4'],
    ['aGVsbG', 'illegal base64 data at input byte 4'],
    ['a', 'illegal base64 data at input byte 0'],
    ['ab!d', 'illegal base64 data at input byte 2'],
    ['=abc', 'illegal base64 data at input byte 0'],
    ['a===', 'illegal base64 data at input byte 1'],
    ['ab=c', 'illegal base64 data at input byte 2'],
    ['ab=\n=', undefined],
    ['ab=\n', 'illegal base64 data at input byte 4'],
    ['aGVsbG8=\r\nx', 'illegal base64 data at input byte 10'],
    ['YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo==', 'illegal base64 data at input byte 36'],
    ['ab=', 'illegal base64 data at input byte 3'],
    ['aGVsbA==aGVs', 'illegal base64 data at input byte 8'],
    ['aGVsbG8=\n', undefined],
    ['hello world', 'illegal base64 data at input byte 5'],
    ['héllo', 'illegal base64 data at input byte 1'],
  ];
  for (const [input, want] of cases) assert.equal(base64DecodeError(input), want, JSON.stringify(input));
});

test('time.Parse with the RFC 3339 layouts', () => {
  const L = `as "${RFC3339}"`;
  const cases: [string, string | undefined][] = [
    ['2024-01-02T03:04:05Z', undefined],
    ['2024-01-02T03:04:05.123456789Z', undefined],
    ['2024-01-02T03:04:05,5Z', undefined],
    ['2024-01-02T03:04:05+01:00', undefined],
    ['2024-01-02T3:04:05Z', undefined],
    ['2024-02-29T00:00:00Z', undefined],
    ['2024-01-02T24:00:00+24:00', 'parsing time "2024-01-02T24:00:00+24:00": hour out of range'],
    ['2024-01-02', `parsing time "2024-01-02" ${L}: cannot parse "" as "T"`],
    ['2024-01-02 03:04:05Z', `parsing time "2024-01-02 03:04:05Z" ${L}: cannot parse " 03:04:05Z" as "T"`],
    ['2024-01-02T03:04:05', `parsing time "2024-01-02T03:04:05" ${L}: cannot parse "" as "Z07:00"`],
    ['2024-01-02T03:04:05z', `parsing time "2024-01-02T03:04:05z" ${L}: cannot parse "z" as "Z07:00"`],
    ['2024-1-02T03:04:05Z', `parsing time "2024-1-02T03:04:05Z" ${L}: cannot parse "1-02T03:04:05Z" as "01"`],
    ['24-01-02T03:04:05Z', `parsing time "24-01-02T03:04:05Z" ${L}: cannot parse "24-01-02T03:04:05Z" as "2006"`],
    ['yesterday', `parsing time "yesterday" ${L}: cannot parse "yesterday" as "2006"`],
    ['', `parsing time "" ${L}: cannot parse "" as "2006"`],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-02T03:60:05Z', 'parsing time "2024-01-02T03:60:05Z": minute out of range'],
    ['2024-01-02T03:04:60Z', 'parsing time "2024-01-02T03:04:60Z": second out of range'],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
    ['2024-01-02T03:04:05+0100', `parsing time "2024-01-02T03:04:05+0100" ${L}: cannot parse "+0100" as "Z07:00"`],
    ['2024-01-02T03:04:05+01:61', 'parsing time "2024-01-02T03:04:05+01:61": time zone offset minute out of range'],
    ['2024-01-02T03:04:05 +01:00', `parsing time "2024-01-02T03:04:05 +01:00" ${L}: cannot parse " +01:00" as "Z07:00"`],
    ['naïve', `parsing time "na\\xc3\\xafve" ${L}: cannot parse "na\\xc3\\xafve" as "2006"`],
  ];
  for (const [input, want] of cases) assert.equal(parseTimeError(RFC3339, input), want, JSON.stringify(input));

  const M = `as "${RFC3339_MICRO}"`;
  const micro: [string, string | undefined][] = [
    ['2024-01-02T03:04:05.000000Z', undefined],
    ['2024-01-02T03:04:05.123456+02:00', undefined],
    ['2024-01-02T03:04:05Z', `parsing time "2024-01-02T03:04:05Z" ${M}: cannot parse "Z" as ".000000"`],
    ['2024-01-02T03:04:05.123Z', `parsing time "2024-01-02T03:04:05.123Z" ${M}: cannot parse ".123Z" as ".000000"`],
    ['2024-01-02T03:04:05.1234567Z', `parsing time "2024-01-02T03:04:05.1234567Z" ${M}: cannot parse "7Z" as "Z07:00"`],
  ];
  for (const [input, want] of micro) assert.equal(parseTimeError(RFC3339_MICRO, input), want, JSON.stringify(input));
});

test('strconv.Quote', () => {
  assert.equal(goQuote('spec.foo'), '"spec.foo"');
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('tab\there\n'), '"tab\\there\\n"');
  assert.equal(goQuote('\x01\x7f'), '"\\x01\\x7f"');
  assert.equal(goQuote('héllo 世界'), '"héllo 世界"');
  assert.equal(goQuote('\u00a0\u200b'), '"\\u00a0\\u200b"');
  assert.equal(goQuote('\ud800'), '"\ufffd"');
});

test('Go integer ranges', () => {
  assert.equal(intFits('2147483647', 32, false), true);
  assert.equal(intFits('2147483648', 32, false), false);
  assert.equal(intFits('-2147483648', 32, false), true);
  assert.equal(intFits('9223372036854775807', 64, false), true);
  assert.equal(intFits('9223372036854775808', 64, false), false);
  assert.equal(intFits('1.0', 32, false), false);
  assert.equal(intFits('1e3', 64, false), false);
  assert.equal(intFits('-0', 32, false), true);
  assert.equal(intFits('255', 8, true), true);
  assert.equal(intFits('256', 8, true), false);
  assert.equal(intFits('-1', 8, true), false);
});
