import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cronProblem } from './cron.ts';

describe('cron schedules (robfig/cron ParseStandard)', () => {
  const cases: [string, string | undefined][] = [
    ['*/5 * * * *', undefined],
    ['0 0 * * MON-FRI', undefined],
    ['0 12 1 jan,jul *', undefined],
    ['@hourly', undefined],
    ['@every 1h30m', undefined],
    ['', 'empty spec string'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every x', 'failed to parse duration @every x: time: invalid duration "x"'],
  ];
  for (const [spec, want] of cases) it(JSON.stringify(spec), () => assert.equal(cronProblem(spec), want));
});
