// Event printing for core/v1 and events.k8s.io/v1. kube serves both from one
// storage and prints the internal core Event, so an events.k8s.io object is
// first mapped onto core's field names (regarding -> involvedObject, note ->
// message, deprecated* -> the old timestamps and count).
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { parseTime, since } from './duration.ts';
import { int } from './format.ts';
import { column, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** The fields printEvent reads, as the internal core Event names them. */
interface EventView {
  name: string;
  involvedObject: { kind?: string; name?: string; fieldPath?: string };
  type: string;
  reason: string;
  message: string;
  source: { component?: string; host?: string };
  reportingController: string;
  reportingInstance: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count: number;
  series?: { count?: number; lastObservedTime?: string };
}

/** Maps an events.k8s.io/v1 Event onto the internal core Event's fields. */
function eventsV1View(obj: EventsV1Event): EventView {
  return {
    name: obj.metadata?.name ?? '',
    involvedObject: obj.regarding ?? {},
    type: obj.type ?? '',
    reason: obj.reason ?? '',
    message: obj.note ?? '',
    source: obj.deprecatedSource ?? {},
    reportingController: obj.reportingController ?? '',
    reportingInstance: obj.reportingInstance ?? '',
    firstTimestamp: obj.deprecatedFirstTimestamp,
    lastTimestamp: obj.deprecatedLastTimestamp,
    eventTime: obj.eventTime,
    count: int(obj.deprecatedCount),
    series: obj.series ?? undefined,
  };
}

/** A core/v1 Event's fields, as printEvent reads them. */
function coreEventView(ev: CoreEvent): EventView {
  return {
    name: ev.metadata?.name ?? '',
    involvedObject: ev.involvedObject ?? {},
    type: ev.type ?? '',
    reason: ev.reason ?? '',
    message: ev.message ?? '',
    source: ev.source ?? {},
    reportingController: ev.reportingComponent ?? '',
    reportingInstance: ev.reportingInstance ?? '',
    firstTimestamp: ev.firstTimestamp,
    lastTimestamp: ev.lastTimestamp,
    eventTime: ev.eventTime,
    count: int(ev.count),
    series: ev.series ?? undefined,
  };
}

const firstNonEmpty = (...ss: (string | undefined)[]): string => ss.find((s) => s) ?? '';

/** formatEventSource: "component" or "component, host", falling back to the reporting fields. */
export function eventSource(ev: EventView): string {
  const component = firstNonEmpty(ev.source.component, ev.reportingController);
  const instance = firstNonEmpty(ev.source.host, ev.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

const eventColumns = [
  column('Last Seen', 'string', 'Time since the event was last observed.'),
  column('Type', 'string', 'Normal or Warning.'),
  column('Reason', 'string', 'Short, machine-readable reason for the event.'),
  column('Object', 'string', 'The object the event is about, as kind/name.'),
  wide(column('Subobject', 'string', 'The part of the object the event is about (fieldPath).')),
  wide(column('Source', 'string', 'The component (and host) that reported the event.')),
  column('Message', 'string', 'Human-readable description of the event.'),
  wide(column('First Seen', 'string', 'Time since the event was first observed.')),
  wide(column('Count', 'string', 'How many times the event has occurred.')),
  wide(column('Name', 'string', "The event object's name.", { format: 'name' })),
];

function eventRow(ev: EventView, ctx: PrintContext): PrintedRow {
  const firstSeen = parseTime(ev.firstTimestamp) !== undefined ? since(ev.firstTimestamp, ctx.now) : since(ev.eventTime, ctx.now);
  let lastSeen = parseTime(ev.lastTimestamp) !== undefined ? since(ev.lastTimestamp, ctx.now) : firstSeen;
  let count = ev.count;
  if (ev.series) {
    lastSeen = since(ev.series.lastObservedTime, ctx.now);
    count = int(ev.series.count);
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const kind = (ev.involvedObject.kind ?? '').toLowerCase();
  const target = ev.involvedObject.name ? `${kind}/${ev.involvedObject.name}` : kind;
  return {
    cells: [
      lastSeen,
      ev.type,
      ev.reason,
      target,
      ev.involvedObject.fieldPath ?? '',
      eventSource(ev),
      ev.message.trim(),
      firstSeen,
      count,
      ev.name,
    ],
  };
}

/** core/v1 Event. */
export const eventPrinter: Printer<CoreEvent> = {
  columns: eventColumns,
  row: (ev: CoreEvent, ctx: PrintContext) => eventRow(coreEventView(ev), ctx),
};

/** events.k8s.io/v1 Event: the same table, read through the field mapping. */
export const eventsV1Printer: Printer<EventsV1Event> = {
  columns: eventColumns,
  row: (ev: EventsV1Event, ctx: PrintContext) => eventRow(eventsV1View(ev), ctx),
};
