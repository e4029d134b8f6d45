import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.ts';
import type { CoreEventJSON, EventsV1JSON } from './misc.ts';

const metadata = { name: 'web.17f2', namespace: 'default', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-11-30T10:00:00Z' };

/** An old-style core Event, as a kubelet's EventRecorder writes it. */
const legacyCore: CoreEventJSON = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata,
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p-1', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
  reason: 'Pulled',
  message: 'Container image "nginx" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-11-30T10:00:00Z',
  lastTimestamp: '2026-11-30T10:00:05Z',
  count: 3,
  type: 'Normal',
  eventTime: null,
  reportingComponent: '',
  reportingInstance: '',
};

/** A new-style events.k8s.io/v1 Event, as client-go's events library writes it. */
const newV1: EventsV1JSON = {
  kind: 'Event',
  apiVersion: 'events.k8s.io/v1',
  metadata,
  eventTime: '2026-11-30T10:00:00.123456Z',
  series: { count: 2, lastObservedTime: '2026-11-30T10:01:00.000000Z' },
  reportingController: 'default-scheduler',
  reportingInstance: 'default-scheduler-node-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p-1', apiVersion: 'v1' },
  note: 'Successfully assigned default/web to node-1',
  type: 'Normal',
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
};

describe('Event conversion between core/v1 and events.k8s.io/v1', () => {
  it('maps a legacy core Event onto the events.k8s.io names, omitting what that API omits', () => {
    assert.deepEqual(coreToEventsV1(legacyCore), {
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata,
      eventTime: null,
      reason: 'Pulled',
      regarding: legacyCore.involvedObject,
      note: legacyCore.message,
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-11-30T10:00:00Z',
      deprecatedLastTimestamp: '2026-11-30T10:00:05Z',
      deprecatedCount: 3,
    });
  });

  it('stores an events.k8s.io Event as the core Event kube would hold', () => {
    assert.deepEqual(eventsV1ToCore(newV1), {
      kind: 'Event',
      apiVersion: 'v1',
      metadata,
      involvedObject: newV1.regarding,
      reason: 'Scheduled',
      message: newV1.note,
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Normal',
      eventTime: '2026-11-30T10:00:00.123456Z',
      series: { count: 2, lastObservedTime: '2026-11-30T10:01:00.000000Z' },
      action: 'Binding',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-node-1',
    });
  });

  it('leaves the object it converts as it was (a watch dispatch shares one parse among watchers)', () => {
    const stored = { ...legacyCore, series: { count: 2, lastObservedTime: '2026-11-30T12:01:00+02:00' } };
    const before = structuredClone(stored);
    const served = coreToEventsV1(stored);
    assert.equal(served.series?.lastObservedTime, '2026-11-30T10:01:00.000000Z');
    assert.deepEqual(stored, before);
  });

  it('round-trips both ways without losing a field', () => {
    assert.deepEqual(coreToEventsV1(eventsV1ToCore(newV1)), newV1);
    assert.deepEqual(eventsV1ToCore(coreToEventsV1(legacyCore)), legacyCore);
  });
});
