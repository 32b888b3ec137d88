/**
 * The items linked to one conversation, in link order, for the memory history store: a doubly
 * linked list indexed by item id, so appending, unlinking, membership and a page after any item
 * each cost O(1) plus the page's own length, in either direction (a Map keeps insertion order but
 * has no reverse iterator and no way to start in the middle).
 */
interface Node {
  readonly id: string;
  prev: Node | undefined;
  next: Node | undefined;
}

export class LinkList {
  readonly #nodes = new Map<string, Node>();
  #head: Node | undefined;
  #tail: Node | undefined;

  get size(): number {
    return this.#nodes.size;
  }

  has(id: string): boolean {
    return this.#nodes.has(id);
  }

  /** Appends `id` at the end; false (and no move) when it is already linked. */
  append(id: string): boolean {
    if (this.#nodes.has(id)) return false;
    const node: Node = { id, prev: this.#tail, next: undefined };
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#nodes.set(id, node);
    return true;
  }

  /** False when `id` was not linked. */
  remove(id: string): boolean {
    const node = this.#nodes.get(id);
    if (!node) return false;
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
    this.#nodes.delete(id);
    return true;
  }

  /**
   * Up to `limit` ids in `order`, starting after `after` (or at the start), and whether more
   * follow; an `after` that is not linked yields nothing.
   */
  page(
    limit: number,
    order: 'asc' | 'desc',
    after: string | undefined,
  ): { ids: string[]; hasMore: boolean } {
    const asc = order === 'asc';
    let node: Node | undefined;
    if (after === undefined) node = asc ? this.#head : this.#tail;
    else {
      const from = this.#nodes.get(after);
      if (!from) return { ids: [], hasMore: false };
      node = asc ? from.next : from.prev;
    }
    const ids: string[] = [];
    while (node && ids.length < limit) {
      ids.push(node.id);
      node = asc ? node.next : node.prev;
    }
    return { ids, hasMore: node !== undefined };
  }

  /** Every linked id, in link order. */
  *[Symbol.iterator](): IterableIterator<string> {
    for (let node = this.#head; node; node = node.next) yield node.id;
  }
}
