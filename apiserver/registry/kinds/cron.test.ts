import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cronProblem, formatRFC3339, parseGoDuration, parseStandard, validTimeZone, Zone, ZERO_TIME } from './cron.ts';

describe('cron schedules (robfig/cron ParseStandard)', () => {
  const cases: [string, string | undefined][] = [
    ['*/5 * * * *', undefined],
    ['0 0 * * MON-FRI', undefined],
    ['0 12 1 jan,jul *', undefined],
    ['@hourly', undefined],
    ['@every 1h30m', undefined],
    ['TZ=Asia/Tokyo 0 9 * * *', undefined],
    ['', 'empty spec string'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every x', 'failed to parse duration @every x: time: invalid duration "x"'],
    ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ['@every 5d', 'failed to parse duration @every 5d: time: unknown unit "d" in duration "5d"'],
    ['TZ=Mars/Olympus 0 9 * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ];
  for (const [spec, want] of cases) it(JSON.stringify(spec), () => assert.equal(cronProblem(spec), want));
});

describe('Schedule.next (robfig SpecSchedule.Next)', () => {
  const cases: { spec: string; from: string; want: string; why: string }[] = [
    { spec: '*/15 * * * *', from: '2012-07-09T14:45:00Z', want: '2012-07-09T15:00:00Z', why: 'strictly after an activation' },
    { spec: '*/15 * * * *', from: '2012-07-09T14:59:59.900Z', want: '2012-07-09T15:00:00Z', why: 'sub-second start' },
    { spec: '*/1 * * * *', from: '2026-12-02T01:12:30Z', want: '2026-12-02T01:13:00Z', why: 'every minute' },
    { spec: '5 4 * * *', from: '2026-12-02T04:05:00Z', want: '2026-12-03T04:05:00Z', why: 'hour wraps into the next day' },
    { spec: '0 0 1 1 *', from: '2026-12-31T23:59:00Z', want: '2027-01-01T00:00:00Z', why: 'year wrap' },
    { spec: '0 0 29 2 *', from: '2013-03-01T00:00:00Z', want: '2016-02-29T00:00:00Z', why: 'the next leap day' },
    { spec: '0 0 30 2 *', from: '2013-03-01T00:00:00Z', want: 'none', why: 'never: zero time after five years' },
    { spec: '0 0 31 4,6 *', from: '2026-01-01T00:00:00Z', want: 'none', why: 'April and June have no 31st' },
    { spec: '0 0 1 * MON', from: '2026-12-02T00:00:00Z', want: '2026-12-07T00:00:00Z', why: 'day-of-month OR day-of-week' },
    { spec: '0 0 13 * FRI', from: '2026-12-02T00:00:00Z', want: '2026-12-04T00:00:00Z', why: 'any Friday, not only Friday 13th' },
    { spec: '0 0 1 * *', from: '2026-12-02T00:00:00Z', want: '2027-01-01T00:00:00Z', why: 'day-of-week * ANDs' },
    { spec: '0 0 * * MON', from: '2026-12-02T00:00:00Z', want: '2026-12-07T00:00:00Z', why: 'day-of-month * ANDs' },
    { spec: '0 0 ? * 1', from: '2026-12-02T00:00:00Z', want: '2026-12-07T00:00:00Z', why: '? is a star' },
    { spec: '0 0 */2 * MON', from: '2026-12-02T00:00:00Z', want: '2026-12-03T00:00:00Z', why: 'a */2 step is not a star: ORed' },
    { spec: '0 0 */1 * MON', from: '2026-12-02T00:00:00Z', want: '2026-12-07T00:00:00Z', why: 'a */1 step stays a star: ANDed' },
    { spec: '30 9 * jan,JUL mon-fri', from: '2026-12-02T00:00:00Z', want: '2027-01-01T09:30:00Z', why: 'names, any case' },
    { spec: '@hourly', from: '2026-12-02T01:12:00Z', want: '2026-12-02T02:00:00Z', why: 'descriptor' },
    { spec: '@daily', from: '2026-12-02T01:12:00Z', want: '2026-12-03T00:00:00Z', why: 'descriptor' },
    { spec: '@weekly', from: '2026-12-02T01:12:00Z', want: '2026-12-06T00:00:00Z', why: 'Sundays' },
    { spec: '@monthly', from: '2026-12-02T01:12:00Z', want: '2027-01-01T00:00:00Z', why: 'descriptor' },
    { spec: '@yearly', from: '2026-12-02T01:12:00Z', want: '2027-01-01T00:00:00Z', why: 'descriptor' },
    { spec: '@every 90s', from: '2026-12-02T00:00:00.500Z', want: '2026-12-02T00:01:30Z', why: 'constant delay from the second' },
    { spec: '@every 100ms', from: '2026-12-02T00:00:00Z', want: '2026-12-02T00:00:01Z', why: 'at least one second' },
    { spec: '@every 1.5s', from: '2026-12-02T00:00:00Z', want: '2026-12-02T00:00:01Z', why: 'whole seconds' },
    { spec: 'TZ=Asia/Kolkata 0 9 * * *', from: '2026-12-02T00:00:00Z', want: '2026-12-02T03:30:00Z', why: 'a +05:30 zone' },
    { spec: 'TZ=Asia/Tokyo @daily', from: '2026-12-02T00:00:00Z', want: '2026-12-02T15:00:00Z', why: 'a descriptor in a zone' },
    {
      spec: 'TZ=America/New_York 30 2 * * *',
      from: '2026-03-07T17:00:00Z',
      want: '2026-03-09T06:30:00Z',
      why: 'DST starts: 02:30 does not exist on March 8 and is skipped',
    },
    {
      spec: 'TZ=America/New_York 0 3 * * *',
      from: '2026-03-07T17:00:00Z',
      want: '2026-03-08T07:00:00Z',
      why: 'DST starts: 03:00 EDT comes an hour after 01:00 EST',
    },
    {
      spec: 'TZ=America/New_York 30 1 * * *',
      from: '2026-10-31T16:00:00Z',
      want: '2026-11-01T05:30:00Z',
      why: 'DST ends: the first 01:30 (EDT)',
    },
    {
      spec: 'TZ=America/New_York 30 1 * * *',
      from: '2026-11-01T05:30:00Z',
      want: '2026-11-01T06:30:00Z',
      why: 'DST ends: 01:30 comes twice (then EST)',
    },
    {
      spec: 'TZ=Europe/London 0 0 * * *',
      from: '2026-03-29T12:00:00Z',
      want: '2026-03-29T23:00:00Z',
      why: 'midnight BST is 23:00 UTC',
    },
    {
      spec: 'TZ=America/Sao_Paulo 0 12 * * *',
      from: '2026-12-02T00:00:00Z',
      want: '2026-12-02T15:00:00Z',
      why: 'a zone west of UTC',
    },
  ];
  for (const c of cases) {
    it(`${c.spec} after ${c.from}: ${c.why}`, () => {
      const got = parseStandard(c.spec).next(Date.parse(c.from));
      assert.equal(got === ZERO_TIME ? 'none' : new Date(got).toISOString().replace('.000Z', 'Z'), c.want);
    });
  }

  it('reads schedules without TZ= in the default zone given', () => {
    const got = parseStandard('0 9 * * *', 'Asia/Tokyo').next(Date.parse('2026-12-02T00:00:00Z'));
    assert.equal(new Date(got).toISOString(), '2026-12-03T00:00:00.000Z');
  });
});

describe('time zones', () => {
  it("time.Date resolves DST gaps and repeats as Go's does", () => {
    const ny = Zone.of('America/New_York');
    assert.equal(new Date(ny.date(2026, 3, 8, 2, 30)).toISOString(), '2026-03-08T06:30:00.000Z', 'a skipped 02:30 is 01:30 EST');
    assert.equal(new Date(ny.date(2026, 11, 1, 1, 30)).toISOString(), '2026-11-01T05:30:00.000Z', 'a doubled 01:30 is the EDT one');
    assert.equal(new Date(ny.date(2026, 13, 32)).toISOString(), '2027-02-01T05:00:00.000Z', 'fields normalize');
  });
  it('formats RFC3339 in a zone', () => {
    const t = Date.parse('2026-03-09T06:30:00Z');
    assert.equal(formatRFC3339(t), '2026-03-09T06:30:00Z');
    assert.equal(formatRFC3339(t, 'America/New_York'), '2026-03-09T02:30:00-04:00');
    assert.equal(formatRFC3339(t, 'Asia/Kolkata'), '2026-03-09T12:00:00+05:30');
    assert.equal(formatRFC3339(t, 'Europe/London'), '2026-03-09T06:30:00Z', 'a zero offset is Z');
  });
  it('knows what Go LoadLocation knows', () => {
    for (const tz of ['UTC', '', 'Asia/Tokyo', 'America/New_York', 'Etc/GMT+5', 'US/Eastern']) assert.equal(validTimeZone(tz), true, tz);
    for (const tz of ['Mars/Olympus', 'utc', 'asia/tokyo', 'GMT+5', '+05:00', 'Local']) assert.equal(validTimeZone(tz), false, tz);
  });
  it('parses Go durations', () => {
    assert.equal(parseGoDuration('1h30m'), 5400e9);
    assert.equal(parseGoDuration('-1.5s'), -1.5e9);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('5.s'), 5e9);
    assert.throws(() => parseGoDuration('.s'), /invalid duration "\.s"/);
    assert.throws(() => parseGoDuration(''), /invalid duration ""/);
  });
});
