// WATCH: a stream of {type, object} events for one collection or object,
// over HTTP (newline-delimited JSON, chunked) or a WebSocket (one event per
// message). Handles resume from a resourceVersion (410 as an ERROR event
// when it is compacted), initial events for rv unset/0, watch-list
// (sendInitialEvents with its initial-events-end BOOKMARK), periodic
// bookmarks, timeoutSeconds, and dropping a subscriber that cannot keep up.
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { collectionPrefix, objectKey } from '../registry/keys.ts';
import type { WatchEvent, Watcher } from '../storage/watch-hub.ts';
import { parseResourceVersion, waitForRevision } from './resource-version.ts';
import { buildFilter } from './selectors.ts';
import type { WatchView } from '../http/views.ts';
import type { ApiContext } from './context.ts';

/** Where a watch's events go: an HTTP response or a WebSocket. */
export interface WatchTransport {
  /** Sends encoded event lines (each a complete JSON event, no newline). */
  send(lines: string[]): void;
  /** Sends newline-delimited events already encoded (streams that can take one chunk for many events). */
  sendChunk?(chunk: Buffer): void;
  /** Bytes queued but not yet written to the peer. */
  backlog(): number;
  close(): void;
  onClose(cb: () => void): void;
}

/** A subscriber further behind than this is dropped (it resumes from its last resourceVersion). */
const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;

/** Everything a watch request asked for, validated. */
export interface WatchParams {
  rt: ResourceType;
  namespace: string;
  name: string;
  query: URLSearchParams;
  /** How event objects are rendered (objects, Table rows, metadata only). */
  view?: WatchView;
}

function eventLine(type: string, json: string): string {
  return `{"type":"${type}","object":${json}}`;
}

/** The NDJSON encoding of a batch shared by many plain watchers, made once. */
const encodedBatches = new WeakMap<WatchEvent[], Buffer>();
function encodedBatch(events: WatchEvent[]): Buffer {
  let chunk = encodedBatches.get(events);
  if (!chunk) {
    chunk = Buffer.from(events.map((ev) => eventLine(ev.type, ev.json)).join('\n') + '\n');
    encodedBatches.set(events, chunk);
  }
  return chunk;
}

/** The object of a BOOKMARK event: only the kind and the resourceVersion (plus the watch-list end marker). */
export function bookmarkObject(rt: ResourceType, rev: number, initialEventsEnd: boolean): string {
  const annotations = initialEventsEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : '';
  return `{"kind":"${rt.kind}","apiVersion":"${apiVersionOf(rt)}","metadata":{"resourceVersion":"${rev}","creationTimestamp":null${annotations}}}`;
}

/** kube-apiserver picks a watch timeout in [min-request-timeout, 2x) when the client sets none. */
function defaultTimeoutSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

/** Validates the parameters before any byte is sent, so errors are plain Status responses. */
export function checkWatchParams(p: WatchParams): void {
  const q = p.query;
  buildFilter(p.rt, q);
  parseResourceVersion(q.get('resourceVersion'));
  const timeout = q.get('timeoutSeconds');
  if (timeout !== null && timeout !== '' && !/^\d+$/.test(timeout)) throw badRequest(`timeoutSeconds: Invalid value: "${timeout}": must be a non-negative integer`);
  const initial = q.get('sendInitialEvents');
  if (initial !== null) {
    if (initial !== 'true' && initial !== 'false') throw badRequest(`sendInitialEvents: Invalid value: "${initial}": must be true or false`);
    if (q.get('resourceVersionMatch') !== 'NotOlderThan') {
      throw badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
  } else if (q.get('resourceVersionMatch')) {
    throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
}

/** Runs a watch until the client goes away, the timeout passes or the server stops. */
export async function runWatch(ctx: ApiContext, p: WatchParams, t: WatchTransport): Promise<void> {
  const { rt, query: q } = p;
  const view: WatchView = p.view ?? { plain: true, object: (json) => json, bookmark: (rev, end) => bookmarkObject(rt, rev, end) };
  const filter = buildFilter(rt, q);
  let namespace = p.namespace;
  if (filter.namespace !== undefined) namespace = filter.namespace;
  const rv = parseResourceVersion(q.get('resourceVersion'));
  const sendInitial = q.get('sendInitialEvents') === 'true' || (q.get('sendInitialEvents') === null && (rv === undefined || rv === 0));
  const watchList = q.get('sendInitialEvents') === 'true';
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  const timeoutParam = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutParam ? Number(timeoutParam) : defaultTimeoutSeconds();

  let closed = false;
  let unregister: (() => void) | undefined;
  let lastRev = 0;
  const timers: NodeJS.Timeout[] = [];
  const finish = () => {
    if (closed) return;
    closed = true;
    unregister?.();
    for (const timer of timers) clearTimeout(timer);
    t.close();
  };
  t.onClose(() => {
    closed = true;
    unregister?.();
    for (const timer of timers) clearTimeout(timer);
  });
  timers.push(setTimeout(finish, timeoutSeconds * 1000));

  const name = filter.name ?? p.name;
  const pinned = name && (!rt.namespaced || namespace) ? objectKey(rt, namespace, name) : undefined;
  const prefix = collectionPrefix(rt, namespace);
  let minRev = 0;
  const watcher: Watcher = {
    bucket: rt.storagePrefix,
    keyPrefix: prefix,
    exactKey: pinned,
    matches: filter.matches,
    deliver(events: WatchEvent[]) {
      if (closed) return;
      if (view.plain && t.sendChunk && events.length > 0 && events[0].rev > minRev) {
        t.sendChunk(encodedBatch(events));
        lastRev = events[events.length - 1].rev;
        if (t.backlog() > MAX_BACKLOG_BYTES) {
          ctx.log.warn({ resource: rt.plural, backlog: t.backlog() }, 'dropping a watcher that cannot keep up');
          finish();
        }
        return;
      }
      const lines: string[] = [];
      for (const ev of events) {
        if (ev.rev <= minRev) continue;
        lines.push(eventLine(ev.type, view.object(ev.json)));
        lastRev = ev.rev;
      }
      if (lines.length === 0) return;
      t.send(lines);
      if (t.backlog() > MAX_BACKLOG_BYTES) {
        ctx.log.warn({ resource: rt.plural, backlog: t.backlog() }, 'dropping a watcher that cannot keep up');
        finish();
      }
    },
  };

  if (rv !== undefined && rv > 0 && (sendInitial || rv > ctx.store.revision)) {
    try {
      await waitForRevision(ctx.store, rv);
    } catch (err) {
      if (err instanceof StatusError) t.send([eventLine('ERROR', JSON.stringify(err.toStatus()))]);
      finish();
      return;
    }
  }
  if (closed) return;

  let fromRev: number;
  if (sendInitial) {
    // Initial state and registration happen in one synchronous step: no event can fall between them.
    const page = ctx.store.list({ bucket: rt.storagePrefix, keyPrefix: pinned ?? prefix, matches: pinned ? (o) => o?.metadata?.name === name && (!filter.matches || filter.matches(o)) : filter.matches });
    fromRev = page.rev;
    const lines = page.items.map((json) => eventLine('ADDED', view.object(json)));
    if (watchList) lines.push(eventLine('BOOKMARK', view.bookmark(page.rev, true)));
    if (lines.length > 0) t.send(lines);
    lastRev = page.rev;
  } else {
    fromRev = rv!;
    minRev = rv!;
    lastRev = rv!;
  }
  try {
    unregister = ctx.store.watch(watcher, fromRev);
  } catch (err) {
    if (err instanceof StatusError) t.send([eventLine('ERROR', JSON.stringify(err.toStatus()))]);
    finish();
    return;
  }
  if (bookmarks) {
    const tick = () => {
      if (closed) return;
      // Everything committed so far has been delivered to this watcher: the current revision is a safe resume point.
      lastRev = Math.max(lastRev, ctx.store.revision);
      t.send([eventLine('BOOKMARK', view.bookmark(lastRev, false))]);
    };
    timers.push(setInterval(tick, ctx.bookmarkIntervalMs));
  }
}
