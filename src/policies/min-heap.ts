/** A binary min-heap ordered by a numeric key; used for the radix tree's global LRU eviction. */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #keys: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(item: T, key: number): void {
    const items = this.#items;
    const keys = this.#keys;
    let i = items.length;
    items.push(item);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((keys[parent] ?? 0) <= key) break;
      items[i] = items[parent] as T;
      keys[i] = keys[parent] ?? 0;
      i = parent;
    }
    items[i] = item;
    keys[i] = key;
  }

  /** Removes and returns the item with the smallest key (undefined when empty). */
  pop(): T | undefined {
    const items = this.#items;
    const keys = this.#keys;
    if (items.length === 0) return undefined;
    const top = items[0];
    const lastItem = items.pop() as T;
    const lastKey = keys.pop() ?? 0;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && (keys[right] ?? 0) < (keys[left] ?? 0) ? right : left;
        if ((keys[child] ?? 0) >= lastKey) break;
        items[i] = items[child] as T;
        keys[i] = keys[child] ?? 0;
        i = child;
      }
      items[i] = lastItem;
      keys[i] = lastKey;
    }
    return top;
  }
}
