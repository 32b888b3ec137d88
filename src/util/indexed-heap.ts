/**
 * A binary min-heap that knows where each item sits, so an item whose key changed is re-sifted
 * (or removed) in O(log n) without a search. Items are distinct objects; the order is the
 * caller's `less`, which must be read from state that only changes before an `update` call.
 */
export class IndexedHeap<T> {
  readonly #items: T[] = [];
  readonly #positions = new Map<T, number>();

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.#items.length;
  }

  has(item: T): boolean {
    return this.#positions.has(item);
  }

  /** The smallest item, undefined when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Replaces the contents with `items` in O(n) (bottom-up heapify). */
  reset(items: Iterable<T>): void {
    this.#items.length = 0;
    this.#positions.clear();
    for (const item of items) {
      this.#positions.set(item, this.#items.length);
      this.#items.push(item);
    }
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  /** Adds the item, or re-sifts it when it is already in the heap. */
  upsert(item: T): void {
    const at = this.#positions.get(item);
    if (at !== undefined) {
      this.#sift(at);
      return;
    }
    this.#positions.set(item, this.#items.length);
    this.#items.push(item);
    this.#up(this.#items.length - 1);
  }

  /** Re-sifts an item whose key changed; items not in the heap are ignored. */
  update(item: T): void {
    const at = this.#positions.get(item);
    if (at !== undefined) this.#sift(at);
  }

  delete(item: T): void {
    const at = this.#positions.get(item);
    if (at === undefined) return;
    this.#positions.delete(item);
    const last = this.#items.pop() as T;
    if (at === this.#items.length) return;
    this.#items[at] = last;
    this.#positions.set(last, at);
    this.#sift(at);
  }

  #sift(at: number): void {
    if (!this.#up(at)) this.#down(at);
  }

  /** Moves the item at `i` toward the root while it is smaller than its parent; true if it moved. */
  #up(i: number): boolean {
    const items = this.#items;
    const item = items[i] as T;
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as T;
      if (!this.less(item, above)) break;
      items[i] = above;
      this.#positions.set(above, i);
      i = parent;
    }
    items[i] = item;
    this.#positions.set(item, i);
    return i !== start;
  }

  #down(i: number): void {
    const items = this.#items;
    const n = items.length;
    const item = items[i] as T;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.less(items[right] as T, items[left] as T) ? right : left;
      const below = items[child] as T;
      if (!this.less(below, item)) break;
      items[i] = below;
      this.#positions.set(below, i);
      i = child;
    }
    items[i] = item;
    this.#positions.set(item, i);
  }
}
