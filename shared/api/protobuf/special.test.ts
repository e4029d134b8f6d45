// Time, MicroTime and Duration written as Go writes them (expected strings
// are what Go's time package prints for the same values).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseTime } from './special.ts';

test('metav1.Time: UTC, whole seconds', () => {
  assert.equal(formatTime(1796032800n), '2026-11-30T10:00:00Z');
  assert.equal(formatTime(0n), '1970-01-01T00:00:00Z');
  assert.equal(formatTime(-1n), '1969-12-31T23:59:59Z');
  assert.equal(formatTime(253402300799n), '9999-12-31T23:59:59Z');
  assert.equal(formatTime(253402300800n), undefined);
});

test('metav1.MicroTime: six digits, nanos truncated', () => {
  assert.equal(formatMicroTime(1796032800n, 0n), '2026-11-30T10:00:00.000000Z');
  assert.equal(formatMicroTime(1796032800n, 123456789n), '2026-11-30T10:00:00.123456Z');
  // Nanos beyond a second carry over, as time.Unix normalizes them.
  assert.equal(formatMicroTime(1796032800n, 1_500_000_000n), '2026-11-30T10:00:01.500000Z');
});

test('parsing RFC 3339', () => {
  assert.deepEqual(parseTime('2026-11-30T10:00:00Z'), { seconds: 1796032800n, nanos: 0 });
  assert.deepEqual(parseTime('2026-11-30T10:00:00.123456Z'), { seconds: 1796032800n, nanos: 123456000 });
  assert.deepEqual(parseTime('2026-11-30T12:00:00+02:00'), { seconds: 1796032800n, nanos: 0 });
  assert.equal(parseTime('2026-11-30 10:00:00'), undefined);
  assert.equal(parseTime('2026-02-30T10:00:00Z'), undefined);
  assert.equal(parseTime('yesterday'), undefined);
});

test('durations as time.Duration.String() writes them', () => {
  const s = 1_000_000_000n;
  const cases: [bigint, string][] = [
    [0n, '0s'],
    [1n, '1ns'],
    [1100n, '1.1µs'],
    [2_200_000n, '2.2ms'],
    [s, '1s'],
    [3n * s + s / 2n, '3.5s'],
    [60n * s, '1m0s'],
    [-60n * s, '-1m0s'],
    [3723n * s + s / 2n, '1h2m3.5s'],
    [24n * 3600n * s, '24h0m0s'],
  ];
  for (const [n, want] of cases) {
    assert.equal(formatDuration(n), want);
    assert.equal(parseDuration(want), n, want);
  }
  assert.equal(parseDuration('1.5h'), 5400n * s);
  assert.equal(parseDuration('300ms'), 300_000_000n);
  assert.equal(parseDuration('10'), undefined);
  assert.equal(parseDuration(''), undefined);
  assert.equal(parseDuration('1x'), undefined);
});
