// Controller expectations, as kube's controllers keep them: after creating
// or deleting N objects, a controller waits until its own cache has seen
// those N events before it decides again, so it never creates or deletes
// twice what its cache does not show yet. Expectations expire after five
// minutes, so a lost event cannot wedge a controller forever.
import { realClock, type Clock } from '../clock/clock.ts';

const TTL_MS = 5 * 60_000;

interface Expectation {
  add: number;
  del: number;
  at: number;
  deleting: Set<string>;
}

/** Per-controller-key expectations. */
export class Expectations {
  private readonly byKey = new Map<string, Expectation>();

  constructor(private readonly clock: Clock = realClock) {}

  /** True when the controller may act on `key`: nothing outstanding, or outstanding for too long. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    return (e.add <= 0 && e.del <= 0) || this.clock.now() - e.at > TTL_MS;
  }

  /** Records that `n` creates were just issued. */
  expectCreations(key: string, n: number): void {
    this.set(key, n, 0, []);
  }

  /** Records that the objects with these keys are being deleted. */
  expectDeletions(key: string, objectKeys: string[]): void {
    this.set(key, 0, objectKeys.length, objectKeys);
  }

  private set(key: string, add: number, del: number, deleting: string[]): void {
    this.byKey.set(key, { add, del, at: this.clock.now(), deleting: new Set(deleting) });
  }

  /** The cache saw one of our creates (or a create failed and will not be seen). */
  creationObserved(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.add--;
  }

  /** The cache saw the deletion of `objectKey` (or the delete failed). */
  deletionObserved(key: string, objectKey: string): void {
    const e = this.byKey.get(key);
    if (e?.deleting.delete(objectKey)) e.del--;
  }

  /** Forgets `key` (its owner is gone). */
  delete(key: string): void {
    this.byKey.delete(key);
  }
}
