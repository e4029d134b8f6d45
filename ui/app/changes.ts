// The app's list of changes: batches from /live merged in revision order,
// without duplicates (a reconnect sends the backlog again), up to a cap.
import type { Change } from '../../shared/api/history-types.ts';

/** The most changes the page keeps. */
export const MAX_CHANGES = 20_000;

const rev = (c: Change): bigint => (/^\d+$/.test(c.revision) ? BigInt(c.revision) : 0n);

/** `prev` with `items` added; returns `prev` itself when nothing is new. */
export function mergeChanges(prev: readonly Change[], items: readonly Change[]): readonly Change[] {
  const last = prev.length ? rev(prev[prev.length - 1]) : -1n;
  const fresh = items.filter((c) => rev(c) > last);
  let out: Change[];
  if (fresh.length === items.length) {
    if (!fresh.length) return prev;
    out = prev.concat([...fresh].sort((a, b) => (rev(a) < rev(b) ? -1 : 1)));
  } else {
    // Some are older than the newest kept: merge by revision.
    const byRev = new Map(prev.map((c) => [c.revision, c]));
    let added = false;
    for (const c of items)
      if (!byRev.has(c.revision)) {
        byRev.set(c.revision, c);
        added = true;
      }
    if (!added) return prev;
    out = [...byRev.values()].sort((a, b) => (rev(a) < rev(b) ? -1 : 1));
  }
  return out.length > MAX_CHANGES ? out.slice(-MAX_CHANGES) : out;
}
