// GET /apis/history.ksim.io/v1alpha1/changes?watch=true[&from=R][&resource=R1,R2][&objects=true][&timeoutSeconds=N]
//
// The cluster's changes as they are committed, as a watch: one JSON line
// per Change, `{"type":"ADDED","object":{...}}` (a change is only ever
// added). First the changes after `from`, read from the kept history; then
// each committed batch's, handed over by the store as it commits
// (Store.observeCommits): no poll and no read of the store, so a view such as
// the web UI's timeline sees a write as soon as a watch of its object does.
//
// A client that reads too slowly, so that the stream's unsent bytes pass
// MAX_UNSENT_BYTES, is ended; it resumes with `from` set to the last change
// it got, as a kube watch ended by the apiserver resumes at its last
// resourceVersion. `timeoutSeconds` ends the stream after that long.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { badRequest } from '../../shared/api/errors.ts';
import { HISTORY_GROUP } from '../../shared/api/history-types.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { RequestUrl } from '../http/request-url.ts';
import { changeOf, type ChangeInfo } from '../storage/history.ts';
import type { Store } from '../storage/store.ts';
import type { HistoryRecord } from '../storage/types.ts';
import { changeItem, type MayRead } from './change-item.ts';
import { resourcePrefixesParam, revisionParam } from './query-params.ts';

const CHANGES_PATH = new RegExp(`^/apis/${HISTORY_GROUP.replace(/\./g, '\\.')}/[^/]+/changes$`);

/** A stream whose client has not taken this many bytes is ended (the client resumes from its last change). */
export const MAX_UNSENT_BYTES = 4 << 20;

/** Changes read from history per page while catching up. */
const REPLAY_PAGE = 1000;

/** True for a watch of the changes (the history API's other reads cannot be watched). */
export function isChangesWatch(url: RequestUrl): boolean {
  return CHANGES_PATH.test(url.pathname) && queryFlag(url.searchParams, 'watch');
}

/** The watch's parameters, each checked with a 400 that names it. */
function watchParams(query: URLSearchParams) {
  const wait = query.get('timeoutSeconds');
  if (wait !== null && !/^\d{1,6}$/.test(wait))
    throw badRequest(`timeoutSeconds: must be a non-negative integer, not ${JSON.stringify(wait)}`);
  if (query.get('continue')) throw badRequest('continue: a watch of changes takes from=REVISION instead');
  return {
    from: revisionParam(query, 'from') ?? 0,
    objects: queryFlag(query, 'objects'),
    prefixes: resourcePrefixesParam(query),
    timeoutMs: wait === null || wait === '0' ? undefined : Number(wait) * 1000,
  };
}

/** Serves one watch of the changes until the client goes away, the timeout passes or the client falls behind. */
export async function serveChangesWatch(store: Store, res: ServerResponse, url: RequestUrl, mayRead: MayRead, log: Logger): Promise<void> {
  const p = watchParams(url.searchParams);
  const wanted = p.prefixes ? (key: string) => p.prefixes!.some((pre) => key.startsWith(pre)) : () => true;
  let ended = false;
  let last = p.from;
  // Commits made while the kept history is read wait here, then go out after it.
  let held: HistoryRecord[] | undefined = [];
  const caughtUpTo = store.revision;

  const send = (changes: readonly ChangeInfo[]) => {
    let text = '';
    for (const c of changes) {
      if (c.rev <= last || !wanted(c.key)) continue;
      last = c.rev;
      text += `{"type":"ADDED","object":${JSON.stringify(changeItem(c, p.objects, mayRead))}}\n`;
    }
    if (text === '' || ended) return;
    res.write(text);
    if (res.writableLength > MAX_UNSENT_BYTES) end();
  };
  const live = (records: readonly HistoryRecord[]) => records.map((r) => changeOf(r, p.objects));
  const stop = store.observeCommits((records) => {
    if (held) held.push(...records);
    else send(live(records));
  });
  const timer = p.timeoutMs === undefined ? undefined : setTimeout(() => end(), p.timeoutMs);
  function end(): void {
    if (ended) return;
    ended = true;
    stop();
    clearTimeout(timer);
    res.end();
  }
  // The response closes when the client goes away (as the resource watches' transport learns it).
  res.on('close', end);

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  try {
    // The kept history up to the commit the stream started at, in pages.
    let after = p.from;
    while (!ended && after < caughtUpTo) {
      const page = await store.history.changesBetween(after, caughtUpTo, {
        limit: REPLAY_PAGE,
        objects: p.objects,
        keyPrefixes: p.prefixes,
      });
      send(page.items);
      if (!page.continue) break;
      after = Number(page.continue);
      // Pause while the client has not taken what it has: the replay never outruns it.
      if (res.writableLength > MAX_UNSENT_BYTES / 2)
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
    }
  } catch (err) {
    // The stream has started: a failed read ends it, and the client resumes from its last change.
    log.warn({ err: (err as Error).message, from: last }, 'reading the changes for a watch failed; the watch ends');
    end();
    return;
  }
  const waiting = held;
  held = undefined;
  send(live(waiting));
}
