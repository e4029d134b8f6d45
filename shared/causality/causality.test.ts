// The two contexts of causality: the event being dispatched (a plain
// variable, restored even when a handler throws) and the cause of a piece of
// work's writes (AsyncLocalStorage), and the switch that turns it off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decodeCause, encodeCause } from '../api/write-cause.ts';
import { causalityEnabled, currentCause, currentCauseHeader, withCause } from './cause-context.ts';
import { currentEventRV, dispatching } from './event-context.ts';

test('dispatching marks the event for the call only, nested or thrown out of', () => {
  assert.equal(currentEventRV(), undefined);
  const inner = dispatching('5', () => {
    const nested = dispatching('6', () => currentEventRV());
    return [nested, currentEventRV()];
  });
  assert.deepEqual(inner, ['6', '5']);
  assert.throws(() =>
    dispatching('7', () => {
      throw new Error('handler failed');
    }),
  );
  assert.equal(currentEventRV(), undefined);
  assert.equal(
    dispatching('', () => currentEventRV()),
    undefined,
    'an object without a resourceVersion marks nothing',
  );
});

test('withCause follows the work across awaits and timers; the inner cause wins', async () => {
  const outer = { controller: 'replicaset', key: 'default/web-1', triggers: ['8'] };
  assert.equal(currentCause(), undefined);
  await withCause(outer, async () => {
    await new Promise((r) => setTimeout(r, 1));
    assert.deepEqual(currentCause(), outer);
    assert.equal(currentCauseHeader(), '{"controller":"replicaset","key":"default/web-1","triggers":["8"]}');
    await withCause({ controller: 'kubelet', detail: 'heartbeat' }, async () => {
      await Promise.resolve();
      assert.equal(currentCause()?.controller, 'kubelet');
    });
    assert.deepEqual(currentCause(), outer);
  });
  assert.equal(currentCause(), undefined);
});

test('the header is always one the apiserver accepts: bad triggers left out, an escaped detail too long dropped', () => {
  assert.deepEqual(decodeCause(encodeCause({ controller: 'x', triggers: ['0', '12', 'abc', '13'] })!), {
    controller: 'x',
    triggers: ['12', '13'],
  });
  const long = { controller: 'kubelet', key: 'ns/p', triggers: ['5'], detail: 'é'.repeat(200) };
  assert.deepEqual(decodeCause(encodeCause(long)!), { controller: 'kubelet', key: 'ns/p', triggers: ['5'] });
  const huge = { controller: 'ü'.repeat(200), key: 'ü'.repeat(200) };
  assert.equal(encodeCause(huge), undefined);
  assert.equal(encodeCause({ controller: '' }), undefined);
});

test('KSIM_CAUSALITY=off turns recording off; anything else leaves it on', () => {
  assert.equal(causalityEnabled({}), true);
  assert.equal(causalityEnabled({ KSIM_CAUSALITY: 'on' }), true);
  assert.equal(causalityEnabled({ KSIM_CAUSALITY: '' }), true);
  assert.equal(causalityEnabled({ KSIM_CAUSALITY: 'off' }), false);
  assert.equal(causalityEnabled({ KSIM_CAUSALITY: ' OFF ' }), false);
});

test('in a process started with KSIM_CAUSALITY=off, withCause sets no cause', () => {
  const module = fileURLToPath(new URL('./cause-context.ts', import.meta.url));
  const script = `const m = await import(${JSON.stringify(module)});
    process.stdout.write(String(m.withCause({ controller: 'x' }, () => m.currentCauseHeader())));`;
  const run = (env: NodeJS.ProcessEnv) =>
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
  assert.equal(run({ KSIM_CAUSALITY: 'off' }), 'undefined');
  assert.equal(run({ KSIM_CAUSALITY: '' }), '{"controller":"x"}');
});
