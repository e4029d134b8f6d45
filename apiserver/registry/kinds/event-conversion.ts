// core/v1 Event <-> events.k8s.io/v1 Event. kube stores Events once, as core
// Events, and serves events.k8s.io/v1 by converting each object on the way
// in and out (pkg/apis/events/v1/conversion.go): involvedObject is
// regarding, message is note, source is deprecatedSource, firstTimestamp,
// lastTimestamp and count are the deprecated* fields, reportingComponent is
// reportingController; metadata, eventTime, series, action, reason, related,
// type and reportingInstance keep their names. Each result gets the zero
// values its own API always serializes.
import { defaultCoreEvent, defaultEventsV1, type CoreEventJSON as CoreEvent, type EventsV1JSON as EventsV1Event } from './misc.ts';

/** An Event as JSON fields, which the conversion moves by name. */
type Fields = Record<string, unknown>;

/** Field names that differ: [core/v1, events.k8s.io/v1]. */
const RENAMED: readonly [string, string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];
const SAME = ['metadata', 'eventTime', 'series', 'action', 'reason', 'related', 'type', 'reportingInstance'];

function copyFields(from: Fields, to: Fields, pairs: readonly [string, string][]): void {
  for (const [a, b] of pairs) if (from[a] !== undefined) to[b] = from[a];
  for (const f of SAME) if (from[f] !== undefined) to[f] = from[f];
  // The defaults rewrite series.lastObservedTime: never in an object the caller still holds.
  const series = to.series;
  if (series && typeof series === 'object') to.series = { ...series };
}

/** The events.k8s.io/v1 view of a stored core/v1 Event. */
export function coreToEventsV1(core: CoreEvent): EventsV1Event {
  const out: Fields = { kind: 'Event', apiVersion: 'events.k8s.io/v1' };
  copyFields(core, out, RENAMED);
  // Empty strings and a zero count are omitted by events.k8s.io/v1 (omitempty), kept by core.
  for (const f of ['note', 'reportingController', 'reportingInstance', 'action', 'reason', 'type']) if (out[f] === '') delete out[f];
  if (out.deprecatedCount === 0) delete out.deprecatedCount;
  const ev = out as unknown as EventsV1Event;
  defaultEventsV1(ev);
  return ev;
}

/** The core/v1 Event stored for an events.k8s.io/v1 one. */
export function eventsV1ToCore(ev: EventsV1Event): CoreEvent {
  const out: Fields = { kind: 'Event', apiVersion: 'v1' };
  copyFields(
    ev,
    out,
    RENAMED.map(([a, b]) => [b, a]),
  );
  const core = out as unknown as CoreEvent;
  defaultCoreEvent(core);
  return core;
}
