// Reads of the store's history: every kept revision of one object (who wrote
// it and when), an object as it was at a revision (also once deleted), and
// every change across the cluster between two revisions, each paged with a
// limit and an opaque continue token. The backend keeps one object's
// revisions under one key prefix and all revisions in revision order, so
// each read is one ordered range scan.
import { badRequest, gone } from '../../shared/api/errors.ts';
import type { Entry, EventType, HistoryRecord, PersistenceBackend, RevisionRecord, WriteRecord } from './types.ts';

/** One revision of one object, without its body. */
export interface RevisionInfo {
  rev: number;
  type: EventType;
  /** When the store sequenced the write (ms since the epoch). */
  at: number;
  writer?: WriteRecord;
}

/** One change across the cluster: a revision with the key it changed (and the object, when asked for). */
export interface ChangeInfo extends RevisionInfo {
  key: string;
  json?: string;
  /** When it was committed (ms since the epoch), for a change handed over as it was committed. */
  committedAt?: number;
}

/** A page of results; `continue` is set when more may follow. */
export interface HistoryPage<T> {
  items: T[];
  continue?: string;
}

/** Paging of a history read. */
export interface HistoryPageOptions {
  /** At most this many items (default and cap 10,000). */
  limit?: number;
  /** The token a previous page returned. */
  continue?: string;
}

/** An object as it was at a revision. */
export interface ObjectVersion {
  /** The revision that wrote this version (<= the revision asked for). */
  rev: number;
  type: 'ADDED' | 'MODIFIED';
  at?: number;
  writer?: WriteRecord;
  json: string;
}

/** What History reads from: the backend, the committed revision and the live objects. */
export interface HistorySource {
  backend: PersistenceBackend;
  revision: () => number;
  get: (key: string) => Entry | undefined;
}

const MAX_LIMIT = 10_000;
/** A filtered changes read scans the revision log this many records at a time, and at most SCAN_PER_PAGE per page. */
const SCAN_BATCH = 1_000;
const SCAN_PER_PAGE = 100_000;

function pageLimit(limit: number | undefined): number {
  return limit !== undefined && limit > 0 ? Math.min(limit, MAX_LIMIT) : MAX_LIMIT;
}

/** A continue token is the last revision returned, as a decimal string. */
function afterRevOf(token: string | undefined, floor: number): number {
  if (token === undefined || token === '') return floor;
  if (!/^\d{1,15}$/.test(token)) throw badRequest(`invalid continue token: ${JSON.stringify(token)}`);
  return Math.max(floor, Number(token));
}

function infoOf(r: RevisionRecord): RevisionInfo {
  const info: RevisionInfo = { rev: r.rev, type: r.type, at: r.at };
  if (r.writer) info.writer = r.writer;
  return info;
}

/** A kept revision as a change (with its object when `withObject`). */
export function changeOf(r: HistoryRecord, withObject: boolean | undefined): ChangeInfo {
  const c: ChangeInfo = { ...infoOf(r), key: r.key };
  if (withObject) c.json = r.json;
  if (r.committedAt !== undefined) c.committedAt = r.committedAt;
  return c;
}

/** See the file comment. Only committed revisions are ever returned. */
export class History {
  constructor(private readonly source: HistorySource) {}

  /** The kept revisions of `key` (a full storage key), oldest first. */
  async revisionsOf(key: string, opts: HistoryPageOptions = {}): Promise<HistoryPage<RevisionInfo>> {
    const limit = pageLimit(opts.limit);
    const committed = this.source.revision();
    // One more than asked for says whether another page follows.
    const records = (await this.source.backend.historyOf(key, afterRevOf(opts.continue, 0), limit + 1)).filter((r) => r.rev <= committed);
    const items = records.slice(0, limit).map(infoOf);
    return records.length > limit ? { items, continue: String(items[items.length - 1].rev) } : { items };
  }

  /**
   * `key` as it was at revision `rev`: undefined when it did not exist then
   * (not yet created, or deleted at or before `rev`). Throws 410 Gone when
   * retention has trimmed the revisions that would say.
   */
  async objectAt(key: string, rev: number): Promise<ObjectVersion | undefined> {
    if (rev > this.source.revision()) return undefined;
    const live = this.source.get(key);
    // The live version's body comes from memory, so it is served even once retention trimmed its record.
    if (live && live.rev <= rev) {
      const found = await this.source.backend.historyAt(key, live.rev);
      const r = found.at?.rev === live.rev ? found.at : undefined;
      return { rev: live.rev, type: r?.type === 'ADDED' ? 'ADDED' : 'MODIFIED', at: r?.at, writer: r?.writer, json: live.json };
    }
    const { at, oldest } = await this.source.backend.historyAt(key, rev);
    if (at) {
      if (at.type === 'DELETED') return undefined;
      const v: ObjectVersion = { rev: at.rev, type: at.type, at: at.at, json: at.json };
      if (at.writer) v.writer = at.writer;
      return v;
    }
    // The oldest kept revision is a create: nothing came before it. Otherwise what did is gone.
    if (oldest && oldest.type !== 'ADDED')
      throw gone(`the history of ${key} at revision ${rev} has been trimmed (oldest kept: ${oldest.rev})`);
    return undefined;
  }

  /** The kept versions of `key` at revisions `revs` (from revisionsOf), with their bodies, in the order asked. */
  async versions(key: string, revs: readonly number[]): Promise<ChangeInfo[]> {
    const committed = this.source.revision();
    const records = await this.source.backend.historyRecords(revs.filter((rev) => rev <= committed));
    return records.filter((r) => r.key === key).map((r) => ({ ...infoOf(r), key: r.key, json: r.json }));
  }

  /**
   * Every kept change in (fromRev, toRev] across the cluster, in revision
   * order; `objects` includes each object's JSON, `keyPrefixes` keeps only
   * the changes to keys under one of them (for example one resource's
   * storage prefix). A filtered page may hold fewer than `limit` items and
   * still name a continue token: one page scans at most SCAN_PER_PAGE
   * revisions, so a filter that matches little cannot make a read unbounded.
   */
  async changesBetween(
    fromRev: number,
    toRev: number,
    opts: HistoryPageOptions & { objects?: boolean; keyPrefixes?: readonly string[] } = {},
  ): Promise<HistoryPage<ChangeInfo>> {
    const limit = pageLimit(opts.limit);
    const to = Math.min(toRev, this.source.revision());
    const prefixes = opts.keyPrefixes;
    const wanted = prefixes ? (key: string) => prefixes.some((p) => key.startsWith(p)) : () => true;
    const kept: HistoryRecord[] = [];
    let after = afterRevOf(opts.continue, fromRev);
    let scanned = 0;
    // One more than asked for says whether another page follows.
    while (kept.length <= limit) {
      const batchSize = prefixes ? SCAN_BATCH : limit + 1;
      const batch = await this.source.backend.historyBetween(after, to, batchSize);
      for (const r of batch) if (kept.length <= limit && wanted(r.key)) kept.push(r);
      scanned += batch.length;
      if (batch.length < batchSize) break;
      after = batch[batch.length - 1].rev;
      if (scanned >= SCAN_PER_PAGE && kept.length <= limit) {
        // The scan stopped short of `to`: the next page goes on from here.
        return { items: kept.map((r) => changeOf(r, opts.objects)), continue: String(after) };
      }
    }
    const items = kept.slice(0, limit).map((r) => changeOf(r, opts.objects));
    return kept.length > limit ? { items, continue: String(items[items.length - 1].rev) } : { items };
  }
}
