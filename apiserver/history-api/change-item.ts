// A revision and a change as the history API shows them: from what the store
// keeps (a revision's record) to the API's Revision and Change, shared by the
// reads (handler.ts) and the watch of changes (changes-watch.ts).
import type { Change, ObjectRef, Revision } from '../../shared/api/history-types.ts';
import type { ChangeInfo, RevisionInfo } from '../storage/history.ts';
import { refOfKey } from './object-ref.ts';
import { rfc3339 } from './trace.ts';

/** Whether the caller may read an object's body: a `get` of it, asked of the authorizer (one answer per resource and namespace). */
export type MayRead = (ref: ObjectRef) => boolean;

/** A revision's record as the API's Revision. */
export function revisionOf(r: RevisionInfo): Revision {
  const out: Revision = { revision: String(r.rev), type: r.type, time: rfc3339(r.at) };
  if (r.writer) out.writer = r.writer;
  return out;
}

/** A change as the API's Change; with its object's body when asked for and `mayRead` allows it. */
export function changeItem(c: ChangeInfo, objects: boolean, mayRead: MayRead): Change {
  const item: Change = { ...revisionOf(c), object: refOfKey(c.key) ?? { group: '', resource: '', name: c.key } };
  // A body is the object itself: only for a caller who may read the object (a Secret's history is a Secret).
  if (objects && c.json && mayRead(item.object)) item.body = JSON.parse(c.json) as unknown;
  if (c.committedAt !== undefined) item.committed = new Date(c.committedAt).toISOString();
  return item;
}
