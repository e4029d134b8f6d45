// runController runs each reconcile inside the cause of its writes: the
// controller's name, the key, and the events that queued the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { WriteCause } from '../api/write-cause.ts';
import { currentCause } from '../causality/cause-context.ts';
import { dispatching } from '../causality/event-context.ts';
import { WorkQueue } from '../workqueue/work-queue.ts';
import { runController } from './run-controller.ts';

test('a reconcile, and what it awaits, runs with {controller, key, triggers}', async () => {
  const queue = new WorkQueue();
  const causes: (WriteCause | undefined)[] = [];
  let finished!: () => void;
  const twoDone = new Promise<void>((r) => (finished = r));
  // Both adds before a worker waits: one turn with both triggers.
  dispatching('30', () => queue.add('default/web'));
  dispatching('31', () => queue.add('default/web'));
  const running = await runController({
    name: 'deployment',
    queue,
    informers: [],
    log: pino({ level: 'silent' }),
    reconcile: async () => {
      await new Promise((r) => setTimeout(r, 1));
      causes.push(currentCause());
      if (causes.length === 2) finished();
    },
  });
  await new Promise((r) => setTimeout(r, 20));
  queue.add('default/api');
  await twoDone;
  await running.stop();
  assert.deepEqual(causes, [
    { controller: 'deployment', key: 'default/web', triggers: ['30', '31'] },
    { controller: 'deployment', key: 'default/api', triggers: undefined },
  ]);
  assert.equal(currentCause(), undefined);
});
