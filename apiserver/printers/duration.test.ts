// Table tests for kube's HumanDuration / ShortHumanDuration and the
// timestamp helpers, with kube's own boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration, since, until } from './duration.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('humanDuration matches duration.HumanDuration', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [-1 * S, '0s'],
    [-1.5 * S, '0s'],
    [-2 * S, '<invalid>'],
    [1 * S, '1s'],
    [59 * S, '59s'],
    [60 * S, '60s'],
    [119 * S, '119s'],
    [119.9 * S, '119s'],
    [2 * M, '2m'],
    [200 * S, '3m20s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 1 * M, '3h1m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [47 * H + 59 * M, '47h'],
    [48 * H, '2d'],
    [51 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [730 * D + 120 * D, '2y120d'],
    [4 * 365 * D + 120 * D, '4y120d'],
    [8 * 365 * D, '8y'],
    [20 * 365 * D + 5 * D, '20y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
});

test('shortHumanDuration matches duration.ShortHumanDuration', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-1 * S, '0s'],
    [59 * S, '59s'],
    [60 * S, '1m'],
    [59 * M + 59 * S, '59m'],
    [H, '1h'],
    [23 * H, '23h'],
    [24 * H, '1d'],
    [364 * D, '364d'],
    [365 * D, '1y'],
    [800 * D, '2y'],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, `${ms}ms`);
});

test('since and until measure against the injected now; zero times are <unknown>', () => {
  const now = new Date('2025-06-01T12:00:00Z');
  assert.equal(since('2025-06-01T11:56:40Z', now), '3m20s');
  assert.equal(since('2025-06-01T11:59:59.500000Z', now), '0s');
  assert.equal(since('2025-06-01T12:00:05Z', now), '<invalid>');
  assert.equal(since(undefined, now), '<unknown>');
  assert.equal(since(null, now), '<unknown>');
  assert.equal(since('', now), '<unknown>');
  assert.equal(since('0001-01-01T00:00:00Z', now), '<unknown>');
  assert.equal(until('2025-06-03T15:00:00Z', now), '2d3h');
});
