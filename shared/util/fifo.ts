// A first-in first-out queue on an array read from a moving head: shift() is
// O(1), and the dead prefix is dropped once it is both large and most of the
// array, so the cost stays amortized O(1) per item (Array.prototype.shift
// copies the whole array each time).

/** See the file comment. */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  /** Number of items queued. */
  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    // Let go of it: the array may outlive the item for a while.
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Every queued item, oldest first, leaving the queue empty. */
  drain(): T[] {
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return rest;
  }
}
