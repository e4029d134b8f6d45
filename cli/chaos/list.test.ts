// The `ksim chaos list` table: columns, kubectl's ages, the target of a
// selector fault, and the line for no faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { faultTable } from './list.ts';

const now = Date.parse('2026-01-01T00:10:00Z');

test('the faults in effect as a table', () => {
  const table = faultTable(
    [
      {
        id: 'kill-1',
        request: { action: 'kill', target: 'scheduler', durationMs: 60_000 },
        injectedAt: '2026-01-01T00:09:15Z',
        recoversAt: '2026-01-01T00:10:15Z',
        message: 'killed scheduler (pid 12)',
      },
      {
        id: 'delete-pod-2',
        request: { action: 'delete-pod', pods: { namespace: 'prod', labelSelector: 'app=web', mode: 'all' } },
        injectedAt: '2026-01-01T00:06:40Z',
        message: 'deleted 2 Pods',
      },
      {
        id: 'kill-pod-4',
        request: { action: 'kill-pod', pods: { allNamespaces: true, labelSelector: 'app=db', mode: 'one' } },
        injectedAt: '2026-01-01T00:10:00Z',
        message: 'killed 1 Pod',
      },
      {
        id: 'apiserver-3',
        request: { action: 'apiserver', apiserver: { latencyMs: 5 } },
        injectedAt: '2026-01-01T00:10:00Z',
        message: 'latency',
      },
    ],
    now,
  );
  assert.equal(
    table,
    [
      'ID             ACTION       TARGET                    AGE     RECOVERS         MESSAGE',
      'kill-1         kill         scheduler                 45s     in 15s           killed scheduler (pid 12)',
      'delete-pod-2   delete-pod   pods -n prod -l app=web   3m20s   when recovered   deleted 2 Pods',
      'kill-pod-4     kill-pod     pods -A -l app=db         0s      when recovered   killed 1 Pod',
      'apiserver-3    apiserver    apiserver                 0s      when recovered   latency',
      '',
    ].join('\n'),
  );
});

test('no faults', () => {
  assert.equal(faultTable([], now), 'No active faults.\n');
});
