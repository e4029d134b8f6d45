// The beat wheel on a FakeClock: every member beats once per period, members
// are spread over the slots, one timer serves them all, and a removed member
// beats no more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../shared/clock/clock.ts';
import { BeatWheel } from './beat-wheel.ts';

test('each member beats once per period, spread over the slots, on one timer', async () => {
  const clock = new FakeClock();
  const beats = new Map<number, number[]>();
  const wheel = new BeatWheel<number>(clock, 10_000, (m) => beats.set(m, [...(beats.get(m) ?? []), clock.now()]));
  for (let i = 0; i < 1000; i++) wheel.add(i);
  assert.equal(clock.pending, 1);
  await clock.step(30_000);
  assert.equal(beats.size, 1000);
  for (const times of beats.values()) {
    assert.equal(times.length, 3);
    assert.equal(times[1] - times[0], 10_000);
    assert.equal(times[2] - times[1], 10_000);
  }
  const perSlot = new Map<number, number>();
  for (const [t] of beats.values()) perSlot.set(t, (perSlot.get(t) ?? 0) + 1);
  assert.ok(perSlot.size > 80, `1,000 members over 100 slots used only ${perSlot.size} of them`);
  assert.ok(Math.max(...perSlot.values()) < 40);
});

test('a removed member beats no more; an empty wheel stops its timer; a short period still has 10 slots', async () => {
  const clock = new FakeClock();
  const seen: string[] = [];
  const wheel = new BeatWheel<string>(clock, 50, (m) => seen.push(m));
  wheel.add('a');
  wheel.add('b');
  await clock.step(50);
  assert.deepEqual([...seen].sort(), ['a', 'b']);
  wheel.delete('a');
  seen.length = 0;
  await clock.step(100);
  assert.deepEqual(seen, ['b', 'b']);
  wheel.delete('b');
  await clock.step(50);
  assert.equal(clock.pending, 0);
  wheel.add('c');
  await clock.step(50);
  assert.ok(seen.includes('c'));
});

test('a wall clock that jumps back or ahead (clock skew) neither stalls the beats nor bursts through them', async () => {
  const fake = new FakeClock();
  let skew = 0;
  const clock = { now: () => fake.now() + skew, setTimeout: fake.setTimeout.bind(fake), sleep: fake.sleep.bind(fake) };
  let beats = 0;
  const wheel = new BeatWheel<string>(clock, 10_000, () => beats++);
  wheel.add('a');
  await fake.step(10_000);
  assert.equal(beats, 1);
  skew = -120_000;
  await fake.step(20_000);
  assert.equal(beats, 3, 'back 2 minutes: still once per period');
  skew = 600_000;
  await fake.step(10_000);
  assert.equal(beats, 4, 'ahead 10 minutes: once per period, no catching up');
  wheel.stop();
});
