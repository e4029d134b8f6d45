// Step-through: a paused controller holds its work items at the gate; a step
// lets the oldest through and answers its record once it ended; resume lets
// everything through; a stopped controller is never left hanging at the gate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { WorkQueue } from '../workqueue/work-queue.ts';
import { runController } from './run-controller.ts';
import { ReconcileStepper, stepper } from './stepper.ts';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

test('pause holds items, step lets one through with its notes, resume the rest', async () => {
  const s = new ReconcileStepper(() => 1000);
  s.register('replicaset');
  s.pause('replicaset');
  const ran: string[] = [];
  const work = (key: string) =>
    s.admit('replicaset', key, ['7']).then(async (record) => {
      ran.push(key);
      record.notes.push({ want: 3, have: 1 });
      await tick();
      s.finish(record, { requeueAfterMs: 50 });
    });
  const a = work('default/a');
  const b = work('default/b');
  await tick();
  assert.deepEqual(ran, [], 'nothing runs while paused');
  assert.deepEqual(
    s.snapshot('replicaset')[0].waiting.map((w) => w.key),
    ['default/a', 'default/b'],
  );
  const stepped = await s.step('replicaset');
  assert.deepEqual(ran, ['default/a']);
  assert.equal(stepped?.state, 'done');
  assert.deepEqual(stepped?.notes, [{ want: 3, have: 1 }]);
  assert.deepEqual(stepped?.triggers, ['7']);
  assert.equal(stepped?.requeueAfterMs, 50);
  s.resume('replicaset');
  await Promise.all([a, b]);
  assert.deepEqual(ran, ['default/a', 'default/b']);
  assert.equal(s.step('replicaset'), undefined, 'nothing held after resume');
  assert.deepEqual(
    s.snapshot()[0].recent.map((r) => r.key),
    ['default/b', 'default/a'],
    'newest first',
  );
});

test('a paused runController holds its keys; a step runs one reconcile; stop never hangs', async () => {
  const queue = new WorkQueue();
  const reconciled: string[] = [];
  stepper.pause('stepped');
  stepper.register('stepped');
  const running = await runController({
    name: 'stepped',
    queue,
    informers: [],
    log: pino({ level: 'silent' }),
    reconcile: async (key, item) => {
      item.note({ decision: `reconciled ${key}` });
      await tick(1);
      reconciled.push(key);
    },
  });
  queue.add('ns/one');
  queue.add('ns/two');
  await tick(20);
  assert.deepEqual(reconciled, []);
  const item = await stepper.step('stepped');
  assert.equal(item?.key, 'ns/one');
  assert.deepEqual(item?.notes, [{ decision: 'reconciled ns/one' }]);
  assert.deepEqual(reconciled, ['ns/one']);
  await tick(20);
  // ns/two is held; stopping lets it through instead of hanging.
  await running.stop();
  assert.deepEqual(reconciled, ['ns/one', 'ns/two']);
});
