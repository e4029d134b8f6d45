// core/v1 and events.k8s.io/v1 Event rows as kubectl get events prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { eventPrinter, eventsV1Printer } from './events.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const micro = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('Z', '000Z');
const ctx = { now: NOW };
/** An Event as kube serves it: a zero time is null there, where kubernetes-types only knows a missing field. */
const kubeJson = <T>(obj: object): T => obj as T;

test('event columns: default and wide, in kube order', () => {
  assert.deepEqual(
    eventPrinter.columns.map((c) => `${c.name}:${c.priority}${c.format ? ':' + c.format : ''}`),
    ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1:name'],
  );
  assert.equal(eventsV1Printer.columns, eventPrinter.columns);
});

test('kubelet event recorded the old way, repeated 3 times', () => {
  const ev = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web-0.1840f5a3c2b1d0e9', namespace: 'default', creationTimestamp: ago(600) },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
    reason: 'Pulled',
    message: 'Container image "nginx:1.27" already present on machine',
    source: { component: 'kubelet', host: 'kind-worker' },
    firstTimestamp: ago(600),
    lastTimestamp: ago(120),
    count: 3,
    type: 'Normal',
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: 'kind-worker',
  };
  assert.deepEqual(eventPrinter.row(kubeJson<CoreEvent>(ev), ctx).cells, [
    '2m',
    'Normal',
    'Pulled',
    'pod/web-0',
    'spec.containers{web}',
    'kubelet, kind-worker',
    'Container image "nginx:1.27" already present on machine',
    '10m',
    3,
    'web-0.1840f5a3c2b1d0e9',
  ]);
});

test('scheduler event written through events.k8s.io, seen through core/v1', () => {
  const ev = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web-0.1840f5a1', namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0' },
    reason: 'Scheduled',
    message: 'Successfully assigned default/web-0 to kind-worker',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    type: 'Normal',
    eventTime: micro(65),
    action: 'Binding',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler-kind-control-plane',
  };
  assert.deepEqual(eventPrinter.row(kubeJson<CoreEvent>(ev), ctx).cells, [
    '65s',
    'Normal',
    'Scheduled',
    'pod/web-0',
    '',
    'default-scheduler, default-scheduler-kind-control-plane',
    'Successfully assigned default/web-0 to kind-worker',
    '65s',
    1,
    'web-0.1840f5a1',
  ]);
});

test('events.k8s.io/v1 event with a series, note trimmed', () => {
  const ev = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web-0.1840f5b0', namespace: 'default' },
    eventTime: micro(900),
    series: { count: 5, lastObservedTime: micro(30) },
    reportingController: 'kubelet',
    reportingInstance: 'kind-worker',
    action: 'Pulling',
    reason: 'BackOff',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web-0', fieldPath: 'spec.containers{web}' },
    note: 'Back-off restarting failed container web in pod web-0_default(uid)\n',
    type: 'Warning',
  };
  assert.deepEqual(eventsV1Printer.row(ev as EventsV1Event, ctx).cells, [
    '30s',
    'Warning',
    'BackOff',
    'pod/web-0',
    'spec.containers{web}',
    'kubelet, kind-worker',
    'Back-off restarting failed container web in pod web-0_default(uid)',
    '15m',
    5,
    'web-0.1840f5b0',
  ]);
});

test('events.k8s.io/v1 event with deprecated fields and no time at all', () => {
  const ev = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'n1.abc' },
    regarding: { kind: 'Node', name: 'kind-worker' },
    reason: 'NodeReady',
    note: 'Node kind-worker status is now: NodeReady',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'kind-worker' },
    deprecatedFirstTimestamp: ago(7200),
    deprecatedLastTimestamp: ago(3600),
    deprecatedCount: 2,
  };
  assert.deepEqual(eventsV1Printer.row(ev as EventsV1Event, ctx).cells, [
    '60m',
    'Normal',
    'NodeReady',
    'node/kind-worker',
    '',
    'kubelet, kind-worker',
    'Node kind-worker status is now: NodeReady',
    '120m',
    2,
    'n1.abc',
  ]);
  const bare = {
    metadata: { name: 'x' },
    involvedObject: { kind: 'Cluster' },
    type: 'Warning',
    reason: 'R',
    message: ' m ',
    source: { component: 'c' },
  };
  assert.deepEqual(eventPrinter.row(bare, ctx).cells, ['<unknown>', 'Warning', 'R', 'cluster', '', 'c', 'm', '<unknown>', 1, 'x']);
});
