// Writes a StatefulSet has sent and its Pod cache has not shown yet, by Pod
// key. Its Pods have fixed names, so (unlike a ReplicaSet's counts) each
// create or delete is waited for by name: a sync that ran before the cache
// caught up would only create a Pod twice (AlreadyExists) or delete it twice.
// An entry older than five minutes no longer holds anything back, so a lost
// event cannot wedge a set.
import { realClock, type Clock } from '../../../shared/clock/clock.ts';

const TTL_MS = 5 * 60_000;

/** See the file comment. */
export class PendingWrites {
  private readonly bySet = new Map<string, Map<string, number>>();

  constructor(private readonly clock: Clock = realClock) {}

  /** Records that a write of `podKey` is under way for `setKey`. */
  expect(setKey: string, podKey: string): void {
    let m = this.bySet.get(setKey);
    if (!m) this.bySet.set(setKey, (m = new Map()));
    m.set(podKey, this.clock.now());
  }

  /** The cache showed the write of `podKey` (or it failed and will never show). */
  observed(setKey: string, podKey: string): void {
    const m = this.bySet.get(setKey);
    if (!m) return;
    m.delete(podKey);
    if (m.size === 0) this.bySet.delete(setKey);
  }

  /** True when nothing recent is outstanding for `setKey`. */
  satisfied(setKey: string): boolean {
    const m = this.bySet.get(setKey);
    if (!m) return true;
    const now = this.clock.now();
    for (const at of m.values()) if (now - at <= TTL_MS) return false;
    return true;
  }

  /** Forgets the set. */
  forget(setKey: string): void {
    this.bySet.delete(setKey);
  }
}
