// A binary heap of keyed items with O(log n) update and delete by key: the
// active queue (priority, then arrival) and the backoff queue (expiry).

/** See the file comment. */
export class KeyedHeap<T> {
  private items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds or replaces the item with the same key. */
  push(item: T): void {
    const key = this.keyOf(item);
    const i = this.index.get(key);
    if (i !== undefined) {
      this.items[i] = item;
      this.fix(i);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0];
    this.removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const item = this.items[i];
    this.removeAt(i);
    return item;
  }

  values(): T[] {
    return [...this.items];
  }

  private removeAt(i: number): void {
    const last = this.items.length - 1;
    this.index.delete(this.keyOf(this.items[i]));
    if (i !== last) {
      this.items[i] = this.items[last];
      this.index.set(this.keyOf(this.items[i]), i);
    }
    this.items.pop();
    if (i < this.items.length) this.fix(i);
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private swap(i: number, j: number): void {
    const a = this.items[i];
    this.items[i] = this.items[j];
    this.items[j] = a;
    this.index.set(this.keyOf(this.items[i]), i);
    this.index.set(this.keyOf(this.items[j]), j);
  }

  private up(i: number): boolean {
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i], this.items[p])) break;
      this.swap(i, p);
      i = p;
    }
    return i !== start;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let m = l;
      if (l + 1 < n && this.less(this.items[l + 1], this.items[l])) m = l + 1;
      if (!this.less(this.items[m], this.items[i])) return;
      this.swap(i, m);
      i = m;
    }
  }
}
