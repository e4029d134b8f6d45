// WATCH: a stream of {type, object} events for one collection or object,
// over HTTP (newline-delimited JSON, chunked) or a WebSocket (one event per
// message). Handles resume from a resourceVersion (410 as an ERROR event
// when it is compacted), initial events for rv unset/0, watch-list
// (sendInitialEvents with its initial-events-end BOOKMARK), periodic
// bookmarks, timeoutSeconds, and dropping a subscriber that cannot keep up.
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import { queryBool, queryFlag } from '../../shared/api/query-bool.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { collectionPrefix, objectKey } from '../registry/keys.ts';
import { eventLine } from '../storage/watch-encoding.ts';
import { rangeKeyOf, type WatchEvent, type Watcher } from '../storage/watch-hub.ts';
import { WatchOutbox, type OutboxSink } from '../storage/watch-outbox.ts';
import { watchTerminations, type DropReason } from '../storage/watch-budget.ts';
import { parseResourceVersion, waitForRevision } from './resource-version.ts';
import { buildFilter } from './selectors.ts';
import type { WatchView } from '../http/views.ts';
import { checkListOptions } from './list-options.ts';
import type { ApiContext } from './context.ts';
import { resourceStore } from './resource-store.ts';
import { trackWatch } from '../chaos/watch-faults.ts';

/** Where a watch's events go: an HTTP response or a WebSocket. */
export interface WatchTransport extends OutboxSink {
  /** Ends the stream after what is queued. */
  close(): void;
  /** Ends the stream now, dropping what is queued (a watcher that cannot keep up: its queue is what must be freed). */
  abort(): void;
  onClose(cb: () => void): void;
}

/**
 * A subscriber further behind than this is dropped (it resumes from its last
 * resourceVersion), and sooner when all watchers together are over the
 * budget (storage/watch-budget.ts).
 */
const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;

/** Everything a watch request asked for, validated. */
export interface WatchParams {
  rt: ResourceType;
  namespace: string;
  name: string;
  query: URLSearchParams;
  /** How event objects are rendered (objects, Table rows, metadata only). */
  view?: WatchView;
  /** Who watches, for the watch faults of ksim chaos that name a user or user agent. */
  client?: { user?: string; userAgent?: string };
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
  if (timeout !== null && timeout !== '' && !/^\d+$/.test(timeout))
    throw badRequest(`timeoutSeconds: Invalid value: "${timeout}": must be a non-negative integer`);
  checkListOptions(q, true);
}

/** Runs a watch until the client goes away, the timeout passes or the server stops. */
export async function runWatch(ctx: ApiContext, p: WatchParams, t: WatchTransport): Promise<void> {
  const { rt, query: q } = p;
  // ksim chaos can delay, hold or close any watch's stream.
  t = trackWatch(t, { verb: 'watch', resource: rt.plural, ...p.client });
  const view: WatchView = p.view ?? { plain: true, object: (json) => json, bookmark: (rev, end) => bookmarkObject(rt, rev, end) };
  const filter = buildFilter(rt, q);
  let namespace = p.namespace;
  if (filter.namespace !== undefined) namespace = filter.namespace;
  const rv = parseResourceVersion(q.get('resourceVersion'));
  const initialParam = queryBool(q, 'sendInitialEvents');
  const sendInitial = initialParam ?? (rv === undefined || rv === 0);
  const watchList = initialParam === true;
  const bookmarks = queryFlag(q, 'allowWatchBookmarks');
  const timeoutParam = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutParam ? Number(timeoutParam) : defaultTimeoutSeconds();

  let closed = false;
  let unregister: (() => void) | undefined;
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    closed = true;
    unregister?.();
    outbox.close();
    for (const timer of timers) clearTimeout(timer);
  };
  const finish = () => {
    if (closed) return;
    stop();
    t.close();
  };
  // As kube's cacher terminates a watcher whose buffer is full: the stream just ends (no ERROR event) and client-go watches again from its last resourceVersion.
  const drop = (backlog: number, reason: DropReason) => {
    if (closed) return;
    ctx.log.warn({ resource: rt.plural, backlog, reason }, 'dropping a watcher that cannot keep up');
    watchTerminations.record(rt.group, rt.plural, reason);
    stop();
    t.abort();
  };

  const name = filter.name ?? p.name;
  const pinned = name && (!rt.namespaced || namespace) ? objectKey(rt, namespace, name) : undefined;
  const prefix = collectionPrefix(rt, namespace);
  const range = { bucket: rt.storagePrefix, keyPrefix: prefix, exactKey: pinned };
  const objects = resourceStore(ctx.store, rt);
  const outbox = new WatchOutbox(t, {
    render: view.plain ? undefined : view.object,
    // Watchers that send the same bytes share their encodings: the same range through the same API.
    rangeKey: view.plain && !filter.matches ? `${apiVersionOf(rt)}\u0000${rangeKeyOf(range)}` : undefined,
    renderKey: view.shareKey,
    maxBacklogBytes: MAX_BACKLOG_BYTES,
    onOverflow: drop,
  });
  t.onClose(stop);
  timers.push(setTimeout(finish, timeoutSeconds * 1000));

  /** Events at or below this revision were already sent as initial state. */
  let minRev = 0;
  /** The revision the watch starts after. */
  let fromRev = 0;
  /** True while the store replays the change log into `deliver`, synchronously inside store.watch(). */
  let replaying = false;
  const watcher: Watcher = {
    ...range,
    matches: filter.matches,
    deliver(events: WatchEvent[]) {
      if (closed) return;
      if (events.length > 0 && events[0].rev <= minRev) events = events.filter((ev) => ev.rev > minRev);
      // store.watch() replays the revisions after fromRev up to the last committed one.
      if (replaying) outbox.pushReplay(events, fromRev, ctx.store.revision);
      else outbox.pushLive(events);
    },
  };

  if (rv !== undefined && rv > 0 && (sendInitial || rv > ctx.store.revision)) {
    try {
      await waitForRevision(ctx.store, rv);
    } catch (err) {
      if (err instanceof StatusError) outbox.pushLines([eventLine('ERROR', JSON.stringify(err.toStatus()))]);
      finish();
      return;
    }
  }
  if (closed) return;

  if (sendInitial) {
    // Initial state and registration happen in one synchronous step: no event can fall between them.
    const page = objects.list({
      bucket: rt.storagePrefix,
      keyPrefix: pinned ?? prefix,
      matches: pinned ? (o) => o?.metadata?.name === name && (!filter.matches || filter.matches(o)) : filter.matches,
    });
    fromRev = page.rev;
    outbox.pushInitial(page.items);
    if (watchList) outbox.pushLines([eventLine('BOOKMARK', view.bookmark(page.rev, true))]);
  } else {
    fromRev = rv!;
    minRev = rv!;
  }
  try {
    replaying = true;
    unregister = objects.watch(watcher, fromRev);
  } catch (err) {
    if (err instanceof StatusError) outbox.pushLines([eventLine('ERROR', JSON.stringify(err.toStatus()))]);
    finish();
    return;
  } finally {
    replaying = false;
  }
  if (closed) unregister();
  if (bookmarks) {
    const tick = () => {
      if (closed) return;
      // Every event committed so far is written or queued ahead of this bookmark: the current revision is a safe resume point.
      outbox.pushLines([eventLine('BOOKMARK', view.bookmark(ctx.store.revision, false))]);
    };
    timers.push(setInterval(tick, ctx.bookmarkIntervalMs));
  }
}
