// client-go's EventCorrelator defaults as tables of what a recorder writes:
// repeats bump a count, ten different messages for one reason aggregate,
// and a source gets 25 events per object, then one more every 5 minutes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventCorrelator, type EventDecision, type EventInput } from './correlator.ts';

function setup() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  const c = new EventCorrelator(
    () => now,
    (name) => `${name}.${++n}`,
  );
  return { c, advance: (ms: number) => (now += ms) };
}

const rs = (message: string, extra: Partial<EventInput> = {}): EventInput => ({
  source: { component: 'replicaset-controller' },
  involvedObject: { kind: 'ReplicaSet', namespace: 'default', name: 'web-1', uid: 'u1', apiVersion: 'apps/v1' },
  type: 'Normal',
  reason: 'SuccessfulCreate',
  message,
  ...extra,
});

const summary = (d: EventDecision) =>
  d.action === 'skip' ? 'skip' : d.action === 'create' ? `create ${d.name} ${d.message}` : `patch ${d.name} #${d.count} ${d.message}`;

test('the same event again bumps the count of the first', () => {
  const { c, advance } = setup();
  assert.equal(summary(c.decide(rs('Created pod: a'))), 'create web-1.1 Created pod: a');
  advance(60_000);
  assert.equal(summary(c.decide(rs('Created pod: a'))), 'patch web-1.1 #2 Created pod: a');
  assert.equal(summary(c.decide(rs('Created pod: a'))), 'patch web-1.1 #3 Created pod: a');
  // Another object, or another reason, is another Event.
  assert.equal(
    summary(c.decide(rs('Created pod: a', { involvedObject: { kind: 'ReplicaSet', namespace: 'default', name: 'web-2', uid: 'u2' } }))),
    'create web-2.2 Created pod: a',
  );
  assert.equal(summary(c.decide(rs('Created pod: a', { reason: 'SuccessfulDelete' }))), 'create web-1.3 Created pod: a');
});

test('the tenth different message for one reason starts a combined event, later ones bump it', () => {
  const { c } = setup();
  const out = Array.from({ length: 13 }, (_, i) => summary(c.decide(rs(`Created pod: p${i}`))));
  assert.deepEqual(
    out.slice(0, 9),
    Array.from({ length: 9 }, (_, i) => `create web-1.${i + 1} Created pod: p${i}`),
  );
  assert.equal(out[9], 'create web-1.10 (combined from similar events): Created pod: p9');
  assert.equal(out[10], 'patch web-1.10 #2 (combined from similar events): Created pod: p10');
  assert.equal(out[12], 'patch web-1.10 #4 (combined from similar events): Created pod: p12');
});

test('similar events more than 10 minutes apart start counting again', () => {
  const { c, advance } = setup();
  for (let i = 0; i < 9; i++) c.decide(rs(`m${i}`));
  advance(600_001);
  assert.equal(summary(c.decide(rs('m9'))), 'create web-1.10 m9');
});

test('a source gets 25 events about an object, then one every 5 minutes', () => {
  const { c, advance } = setup();
  const written = Array.from({ length: 40 }, (_, i) => c.decide(rs(`Created pod: p${i}`))).filter((d) => d.action !== 'skip');
  assert.equal(written.length, 25);
  assert.equal(c.decide(rs('late')).action, 'skip');
  advance(300_000);
  assert.notEqual(c.decide(rs('later')).action, 'skip');
  assert.equal(c.decide(rs('even later')).action, 'skip');
  // Other objects have their own budget.
  assert.equal(c.decide(rs('x', { involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u3' } })).action, 'create');
});

test('a dropped repeat still counts: the next written bump carries the whole count', () => {
  const { c, advance } = setup();
  for (let i = 0; i < 25; i++) c.decide(rs('BackOff'));
  assert.equal(c.decide(rs('BackOff')).action, 'skip');
  advance(300_000);
  assert.equal(summary(c.decide(rs('BackOff'))), 'patch web-1.1 #27 BackOff');
});
