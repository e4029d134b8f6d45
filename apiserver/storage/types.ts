// The vocabulary of the storage layer: stored entries, change events and the
// persistence interface a backend (LevelDB today, etcd later) implements.
import type { Writer } from '../../shared/api/history-types.ts';
import type { SerializedObject } from './serialized-object.ts';
import type { ObjectToStore, StoredObject } from './stored-object.ts';

export type { ObjectToStore, ServerObjectMeta, StoredObject } from './stored-object.ts';

/** A predicate on stored objects: a list's or a watch's label and field selectors. */
export type ObjectMatcher = (obj: StoredObject) => boolean;

/** The kind of change a revision made to one key. */
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** An object as stored: its serialized JSON (metadata.resourceVersion included) and the revision that wrote it. */
export interface Entry {
  rev: number;
  json: string;
}

/** One entry of the change log: what revision `rev` did to `key`. */
export interface ChangeEvent {
  rev: number;
  type: EventType;
  key: string;
  /** The object after the change; for DELETED, the last state with resourceVersion = rev. */
  json: string;
  /** The revision of the previous version of this key, 0 when the key did not exist. */
  prevRev: number;
  /** The previous version's JSON, when it is known (always, except across a restart at the window's edge). */
  prev?: string;
  /** True when the key existed before this change but its previous version is no longer known. */
  prevUnknown?: boolean;
}

/**
 * The decision a transaction's mutate function returns: the object to store
 * (or a SerializedObject, already JSON but for its resourceVersion), null to
 * delete the key, or undefined to leave it as it is.
 */
export type Mutate = (current: StoredObject | undefined) => ObjectToStore | SerializedObject | null | undefined;

/** What a committed transaction did. */
export interface TxnResult {
  type: EventType | 'NOOP';
  rev: number;
  /** The stored JSON after the change (for DELETED, the deleted object; for NOOP, the current one if any). */
  json: string | undefined;
  /** For a write a WriteObserver follows: how many watchers its event was handed to. */
  watchers?: number;
}

/**
 * Who made a write, kept with the revision in history (never in the object):
 * the request's user and groups, user agent, verb, subresource, the field
 * manager, and why (a component's cause: its controller and work-queue key).
 */
export type WriteRecord = Writer;

/** One revision of one object as history keeps it. */
export interface HistoryRecord {
  rev: number;
  type: EventType;
  key: string;
  /** When the store sequenced the write (ms since the epoch, from the store's clock). */
  at: number;
  writer?: WriteRecord;
  /** The object after the change; for DELETED, its last state (resourceVersion = rev). */
  json: string;
  /** When the store committed it (ms since the epoch): only on the records handed to commit observers, the kept history does not store it. */
  committedAt?: number;
}

/** A revision's record without the object: what a list of one object's revisions shows. */
export type RevisionRecord = Omit<HistoryRecord, 'json'>;

/**
 * How long history is kept; every bound is optional and the default keeps
 * everything for ever. Retention trims history only, never the watch window.
 */
export interface HistoryPolicy {
  /** Keep at most this many of each object's newest revisions. */
  maxRevisionsPerObject?: number;
  /** Drop revisions written longer ago than this. */
  maxAgeMs?: number;
  /** Drop the oldest revisions (across the cluster) while history holds more than this (approximate) many bytes. */
  maxBytes?: number;
}

/** A write to persist: an object put or delete plus its change-log record, applied atomically with the revision. */
export interface PersistOp {
  event: ChangeEvent;
  /** Set when history is kept: the revision's time and writer, written with it in the same batch. */
  history?: { at: number; writer?: WriteRecord };
  /**
   * The event that wrote the version `event` replaces (at event.prevRev),
   * when it is still inside the window: a backend that stores an event's
   * JSON only once, in the object, must now keep it with that event.
   */
  replaces?: ChangeEvent;
}

/**
 * Durable persistence under the in-memory store. Everything above this
 * interface (indexes, watch fan-out, snapshots) is backend-independent.
 */
export interface PersistenceBackend {
  /** Reads every live object, calling `onObject` in key order. */
  loadObjects(onObject: (key: string, rev: number, json: string) => void): Promise<void>;
  /**
   * Reads the change log from `afterRev` (exclusive) to the end. An event's
   * json may be '' where the backend keeps it only in the object record:
   * the object's JSON when its rev is the event's, else unknown.
   */
  loadLog(afterRev: number, onEvent: (event: ChangeEvent) => void): Promise<void>;
  /** The last committed revision and the compaction point stored on disk. */
  loadMeta(): Promise<{ rev: number; compacted: number }>;
  /** Persists one group of changes atomically and durably (synced) before resolving. */
  commit(ops: PersistOp[], rev: number): Promise<void>;
  /**
   * Makes storage usable again after a commit of `failed` threw, and undoes
   * durably whatever of it reached the disk: each key back to the version
   * before the batch, the batch's change-log records gone, the revision back
   * to `rev`. Throws while storage still fails (the store calls it again).
   * A backend that a failed write may leave unusable reopens itself here.
   */
  recover(failed: ChangeEvent[], rev: number): Promise<void>;
  /** Forgets change-log entries up to and including `rev`. */
  compact(rev: number): Promise<void>;
  /** The revisions of `key` after `afterRev`, oldest first, at most `limit`. */
  historyOf(key: string, afterRev: number, limit: number): Promise<RevisionRecord[]>;
  /** The newest revision of `key` at or before `rev`, and (when there is none) the oldest one kept. */
  historyAt(key: string, rev: number): Promise<{ at?: HistoryRecord; oldest?: RevisionRecord }>;
  /** The kept records of revisions `revs` (with their bodies), in the order asked; a trimmed one is left out. */
  historyRecords(revs: readonly number[]): Promise<HistoryRecord[]>;
  /** Every revision in (afterRev, toRev] across all keys, oldest first, at most `limit`. */
  historyBetween(afterRev: number, toRev: number, limit: number): Promise<HistoryRecord[]>;
  /**
   * Applies `policy` at time `now`: by age and by bytes over all of history,
   * by count for `keys` (those written since the last trim).
   */
  trimHistory(policy: HistoryPolicy, now: number, keys: Iterable<string>): Promise<void>;
  /** Approximate bytes on disk. */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}
