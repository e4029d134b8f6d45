/** @jsxImportSource preact */
// Events that never expire: every Event the cluster ever stored, read from
// the history (changes of core/v1 and events.k8s.io Events, with their
// bodies), newest first, also after the apiserver's TTL deleted them (shown
// as expired, with their last state). A filter narrows them by any text.
// Read once from the start of the history, then every POLL_MS from the last
// revision seen.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Change, ChangeList } from '../../shared/api/history-types.ts';
import { getJson } from './api.ts';

const POLL_MS = 2000;
/** The most Events the view keeps (the newest). */
const MAX_EVENTS = 5000;
const PAGE = 500;

/** One Event as the view shows it (either API's shape). */
export interface EventRow {
  key: string;
  revision: string;
  time: string;
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
  source: string;
  expired: boolean;
}

/** The row of one Event change (core/v1 or events.k8s.io/v1 fields). */
export function eventRow(c: Change): EventRow | undefined {
  const e = c.body as Record<string, any> | undefined;
  if (!e || typeof e !== 'object') return undefined;
  const about = e.involvedObject ?? e.regarding ?? {};
  return {
    key: `${c.object.namespace ?? ''}/${c.object.name}`,
    revision: c.revision,
    time: String(e.lastTimestamp ?? e.eventTime ?? e.series?.lastObservedTime ?? e.firstTimestamp ?? c.time),
    type: String(e.type ?? ''),
    reason: String(e.reason ?? ''),
    object: `${about.kind ?? ''} ${about.namespace ? `${about.namespace}/` : ''}${about.name ?? ''}`.trim(),
    message: String(e.message ?? e.note ?? ''),
    count: Number(e.count ?? e.series?.count ?? e.deprecatedCount ?? 1),
    source: String(e.reportingComponent || e.reportingController || e.source?.component || ''),
    expired: c.type === 'DELETED',
  };
}

/** `rows` with the rows of `changes` applied (the newest revision of each Event wins), newest first, at most MAX_EVENTS. */
export function applyEventChanges(rows: readonly EventRow[], changes: readonly Change[]): EventRow[] {
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const c of changes) {
    const row = eventRow(c);
    if (row) byKey.set(row.key, row);
  }
  return [...byKey.values()].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, MAX_EVENTS);
}

const QUERY = `resource=events,events.events.k8s.io&objects=true&limit=${PAGE}`;

/** See the file comment. */
export function EventsView() {
  const [rows, setRows] = useState<EventRow[]>([]);
  const [error, setError] = useState('');
  const [filter, setFilter] = useState('');
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let live = true;
    // No `from` at first: from the start of the history.
    let from: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        let next: string | undefined;
        do {
          const page: ChangeList = await getJson<ChangeList>(
            `/api/history/changes?${QUERY}${from ? `&from=${from}` : ''}${next ? `&continue=${encodeURIComponent(next)}` : ''}`,
          );
          if (!live) return;
          if (page.items.length) setRows((prev) => applyEventChanges(prev, page.items));
          next = page.metadata.continue;
          if (!next) from = page.metadata.resourceVersion;
        } while (next);
        setError('');
        setLoaded(true);
      } catch (err) {
        if (live) setError((err as Error).message);
      }
      if (live) timer = setTimeout(() => void read(), POLL_MS);
    };
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);

  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    if (!f) return rows;
    return rows.filter((r) => `${r.type} ${r.reason} ${r.object} ${r.message} ${r.source}`.toLowerCase().includes(f));
  }, [rows, filter]);

  return (
    <div class="events">
      <div class="toolbar">
        <strong>Events</strong>
        <span class="hint">{rows.length} kept, expired ones included</span>
        <input placeholder="filter" value={filter} size={20} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      </div>
      {error && <p class="error">{error}</p>}
      {!loaded && !error && <p class="hint">loading…</p>}
      <table class="event-table">
        <thead>
          <tr>
            <th>last seen</th>
            <th>type</th>
            <th>reason</th>
            <th>object</th>
            <th>message</th>
            <th>count</th>
            <th>from</th>
          </tr>
        </thead>
        <tbody>
          {shown.slice(0, 500).map((r) => (
            <tr key={r.key} class={`${r.type === 'Warning' ? 'warning' : ''}${r.expired ? ' expired' : ''}`} data-reason={r.reason}>
              <td title={r.time}>{r.time.slice(11, 19)}</td>
              <td>{r.type}</td>
              <td>{r.reason}</td>
              <td>{r.object}</td>
              <td>
                {r.message}
                {r.expired && <span class="hint"> (expired)</span>}
              </td>
              <td>{r.count}</td>
              <td>{r.source}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
