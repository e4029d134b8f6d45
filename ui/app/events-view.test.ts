// The Events view's rows: both Event APIs' fields, the newest revision of
// each Event winning, and an expired (deleted) Event kept with its last state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '../../shared/api/history-types.ts';
import { applyEventChanges, eventRow } from './events-view.tsx';

const change = (revision: string, type: Change['type'], name: string, body: object): Change => ({
  revision,
  type,
  time: '2026-12-02T10:00:00.000Z',
  object: { group: '', resource: 'events', namespace: 'default', name },
  body,
});

test('a core/v1 Event and an events.k8s.io one become rows with kube fields', () => {
  const core = eventRow(
    change('5', 'ADDED', 'web.1', {
      type: 'Warning',
      reason: 'FailedScheduling',
      message: '0/3 nodes are available',
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
      count: 3,
      lastTimestamp: '2026-12-02T10:00:05Z',
      source: { component: 'default-scheduler' },
    }),
  )!;
  assert.deepEqual(
    [core.type, core.reason, core.object, core.count, core.source, core.time],
    ['Warning', 'FailedScheduling', 'Pod default/web', 3, 'default-scheduler', '2026-12-02T10:00:05Z'],
  );
  const v1 = eventRow(
    change('6', 'ADDED', 'x.2', {
      type: 'Normal',
      reason: 'Scheduled',
      note: 'assigned',
      regarding: { kind: 'Pod', namespace: 'default', name: 'x' },
      reportingController: 'default-scheduler',
      eventTime: '2026-12-02T10:00:06.000000Z',
    }),
  )!;
  assert.deepEqual([v1.message, v1.object, v1.source, v1.count], ['assigned', 'Pod default/x', 'default-scheduler', 1]);
  assert.equal(eventRow({ ...change('7', 'ADDED', 'y', {}), body: undefined }), undefined);
});

test('the newest revision of an Event wins; a deleted one stays, marked expired; newest first', () => {
  const e = (count: number, at: string) => ({ type: 'Normal', reason: 'Pulled', message: 'm', count, lastTimestamp: at });
  let rows = applyEventChanges(
    [],
    [change('1', 'ADDED', 'a', e(1, '2026-12-02T10:00:01Z')), change('2', 'ADDED', 'b', e(1, '2026-12-02T10:00:02Z'))],
  );
  rows = applyEventChanges(rows, [
    change('3', 'MODIFIED', 'a', e(2, '2026-12-02T10:00:03Z')),
    change('4', 'DELETED', 'b', e(1, '2026-12-02T10:00:02Z')),
  ]);
  assert.deepEqual(
    rows.map((r) => [r.key, r.count, r.expired]),
    [
      ['default/a', 2, false],
      ['default/b', 1, true],
    ],
  );
});
