/**
 * The multi-tenant character radix tree behind cache_aware (SMG `kv_index::StringTree`). Each node
 * holds an edge label, its children by first character, and for every tenant (worker key) that
 * inserted a string through it, that tenant's last access time from the injected clock.
 *
 * Invariants (checked by the oracle test): a tenant on a node is on every ancestor (prefix
 * closure); a tenant's char count is the sum of the label lengths of its nodes, which equals the
 * number of distinct non-empty prefixes of the strings it inserted; no non-root node is empty.
 *
 * A "character" is a UTF-16 code unit, not a code point as in SMG's Rust `char`s: a match may
 * end between the two halves of a surrogate pair. That only shifts a match rate by one unit on
 * astral characters and keeps comparisons on plain string operations, with no allocation per char.
 */
import type { Clock } from '@switchyard/kit';
import { MinHeap } from './min-heap.js';

class RadixNode {
  label: string;
  parent: RadixNode | undefined;
  /** Keyed by the child's first code unit; created on first child (most nodes are leaves). */
  children: Map<number, RadixNode> | undefined;
  tenants: Map<string, number>;

  constructor(label: string, parent: RadixNode | undefined, tenants = new Map<string, number>()) {
    this.label = label;
    this.parent = parent;
    this.children = undefined;
    this.tenants = tenants;
  }
}

/** The result of a read-only match: matched characters and the tenants of the node reached. */
export interface PrefixMatch {
  readonly matched: number;
  /** Tenant → last access of the deepest node the match reached; undefined when nothing matched. */
  readonly tenants: ReadonlyMap<string, number> | undefined;
}

/**
 * Called by `matchAndInsert` between the match and the insert: returns the tenant to insert the
 * text under, or undefined to insert nothing. It must not call back into the tree.
 */
export type TenantChooser = (
  matched: number,
  tenants: ReadonlyMap<string, number> | undefined,
) => string | undefined;

/** One node's content, for inspection and tests. */
export interface RadixNodeView {
  readonly path: string;
  /** The parent's path ('' for a child of the root). */
  readonly parentPath: string;
  readonly label: string;
  readonly tenants: ReadonlyMap<string, number>;
  readonly childKeys: readonly number[];
}

export class RadixTree {
  readonly #root = new RadixNode('', undefined);
  readonly #tenantChars = new Map<string, number>();
  #totalChars = 0;
  #nodeCount = 0;
  // State of the last descent, reused between calls so a walk allocates nothing.
  readonly #path: RadixNode[] = [];
  #pathLength = 0;
  #consumed = 0;
  #partial: RadixNode | undefined;
  #partialShared = 0;

  constructor(private readonly clock: Clock) {}

  /** Tree-wide total: the sum of every tenant's char count (SMG `total_char_size`). */
  get totalChars(): number {
    return this.#totalChars;
  }

  /** Tenants that hold at least one character. */
  get tenantCount(): number {
    return this.#tenantChars.size;
  }

  /** Nodes, not counting the root. */
  get nodeCount(): number {
    return this.#nodeCount;
  }

  tenantChars(tenant: string): number {
    return this.#tenantChars.get(tenant) ?? 0;
  }

  /** Longest stored prefix of `text` and its tenants. Read-only: access times are not touched. */
  match(text: string): PrefixMatch {
    const matched = this.#descend(text);
    return { matched, tenants: this.#reached()?.tenants };
  }

  /** Inserts `text` for `tenant`, refreshing the tenant's access time along the whole path. */
  insert(text: string, tenant: string): void {
    this.#descend(text);
    this.#insertAfterDescent(text, tenant);
  }

  /**
   * One descent for match-then-insert (SMG `match_and_insert`): walks `text`, asks `choose`
   * which tenant to insert under given the match, then splices only the unmatched suffix in at
   * the node where the walk fell off. Returns the matched length.
   */
  matchAndInsert(text: string, choose: TenantChooser): number {
    const matched = this.#descend(text);
    const tenant = choose(matched, this.#reached()?.tenants);
    if (tenant !== undefined) this.#insertAfterDescent(text, tenant);
    return matched;
  }

  /**
   * Removes tenant leaves in global LRU order (oldest access first, across all tenants) until
   * the tree-wide total is at most `maxChars` (SMG `evict_tenant_by_size`). A node left with
   * no tenant is detached; a parent whose last child for a tenant went becomes that tenant's
   * leaf and joins the queue. Returns the characters evicted.
   */
  evictToSize(maxChars: number): number {
    if (this.#totalChars <= maxChars) return 0;
    const heap = new MinHeap<{ node: RadixNode; tenant: string }>();
    const stack: RadixNode[] = [];
    this.#pushChildren(this.#root, stack);
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      this.#pushChildren(node, stack);
      for (const [tenant, at] of node.tenants) {
        if (!childHas(node, tenant)) heap.push({ node, tenant }, at);
      }
    }
    let evicted = 0;
    while (this.#totalChars > maxChars) {
      const entry = heap.pop();
      if (entry === undefined) break;
      const { node, tenant } = entry;
      const parent = node.parent;
      if (parent === undefined || !node.tenants.has(tenant) || childHas(node, tenant)) continue;
      node.tenants.delete(tenant);
      this.#subtractChars(tenant, node.label.length);
      evicted += node.label.length;
      if (node.tenants.size === 0 && node.children === undefined) this.#detach(node);
      const parentAt = parent.tenants.get(tenant);
      if (parent !== this.#root && parentAt !== undefined && !childHas(parent, tenant)) {
        heap.push({ node: parent, tenant }, parentAt);
      }
    }
    return evicted;
  }

  /** Drops a tenant from every node (worker removal, SMG `remove_tenant_all`). Returns its chars. */
  removeTenant(tenant: string): number {
    const chars = this.#tenantChars.get(tenant) ?? 0;
    if (chars === 0) return 0;
    // Prefix closure lets the walk skip every subtree whose top lacks the tenant.
    const order: RadixNode[] = [];
    const stack: RadixNode[] = [this.#root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node.children === undefined) continue;
      for (const child of node.children.values()) {
        if (child.tenants.has(tenant)) {
          order.push(child);
          stack.push(child);
        }
      }
    }
    // Reverse pre-order visits children before parents, so emptied chains detach bottom-up.
    for (let i = order.length - 1; i >= 0; i--) {
      const node = order[i] as RadixNode;
      node.tenants.delete(tenant);
      if (node.tenants.size === 0 && node.children === undefined) this.#detach(node);
    }
    this.#tenantChars.delete(tenant);
    this.#totalChars -= chars;
    return chars;
  }

  /** Every node in pre-order with its full path (inspection and tests; O(size)). */
  *nodes(): Generator<RadixNodeView> {
    const stack: [RadixNode, string][] = [];
    for (const child of this.#root.children?.values() ?? []) stack.push([child, '']);
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const [node, prefix] = top;
      const path = prefix + node.label;
      yield {
        path,
        parentPath: prefix,
        label: node.label,
        tenants: node.tenants,
        childKeys: [...(node.children?.keys() ?? [])],
      };
      for (const child of node.children?.values() ?? []) stack.push([child, path]);
    }
  }

  #descend(text: string): number {
    const path = this.#path;
    let length = 0;
    let node = this.#root;
    let pos = 0;
    const n = text.length;
    this.#partial = undefined;
    this.#partialShared = 0;
    while (pos < n) {
      const child = node.children?.get(text.charCodeAt(pos));
      if (child === undefined) break;
      const label = child.label;
      const i = sharedLength(label, text, pos);
      pos += i;
      if (i < label.length) {
        this.#partial = child;
        this.#partialShared = i;
        break;
      }
      path[length++] = child;
      node = child;
    }
    this.#pathLength = length;
    this.#consumed = pos;
    return pos;
  }

  /** The deepest node the last descent touched, fully or partly; undefined for the root. */
  #reached(): RadixNode | undefined {
    return this.#partial ?? (this.#pathLength > 0 ? this.#path[this.#pathLength - 1] : undefined);
  }

  #insertAfterDescent(text: string, tenant: string): void {
    const now = this.clock.now();
    const path = this.#path;
    let parent = this.#root;
    for (let i = 0; i < this.#pathLength; i++) {
      parent = path[i] as RadixNode;
      this.#attach(parent, tenant, now);
    }
    const partial = this.#partial;
    if (partial !== undefined) {
      parent = this.#split(partial, this.#partialShared);
      this.#attach(parent, tenant, now);
    }
    const pos = this.#consumed;
    if (pos < text.length) {
      const leaf = new RadixNode(ownCopy(text.slice(pos)), parent);
      (parent.children ??= new Map()).set(text.charCodeAt(pos), leaf);
      this.#nodeCount++;
      this.#attach(leaf, tenant, now);
    }
  }

  /** Splits `node` after `at` units; the new upper node inherits every tenant and access time. */
  #split(node: RadixNode, at: number): RadixNode {
    const parent = node.parent as RadixNode;
    const upper = new RadixNode(ownCopy(node.label.slice(0, at)), parent, new Map(node.tenants));
    parent.children?.set(node.label.charCodeAt(0), upper);
    node.label = ownCopy(node.label.slice(at));
    node.parent = upper;
    upper.children = new Map([[node.label.charCodeAt(0), node]]);
    this.#nodeCount++;
    return upper;
  }

  #attach(node: RadixNode, tenant: string, now: number): void {
    if (!node.tenants.has(tenant)) {
      const len = node.label.length;
      this.#tenantChars.set(tenant, (this.#tenantChars.get(tenant) ?? 0) + len);
      this.#totalChars += len;
    }
    node.tenants.set(tenant, now);
  }

  #subtractChars(tenant: string, len: number): void {
    const left = (this.#tenantChars.get(tenant) ?? 0) - len;
    if (left > 0) this.#tenantChars.set(tenant, left);
    else this.#tenantChars.delete(tenant);
    this.#totalChars -= len;
  }

  #detach(node: RadixNode): void {
    const parent = node.parent;
    if (parent?.children === undefined) return;
    parent.children.delete(node.label.charCodeAt(0));
    if (parent.children.size === 0) parent.children = undefined;
    node.parent = undefined;
    this.#nodeCount--;
  }

  #pushChildren(node: RadixNode, stack: RadixNode[]): void {
    if (node.children !== undefined) for (const child of node.children.values()) stack.push(child);
  }
}

/**
 * A copy of `s` that shares no memory with the string it was cut from. V8 substrings of 13+
 * units point into their parent, so a 50-char leaf cut from an 8 KB prompt would keep all 8 KB
 * alive and `maxTreeSize` would understate memory many times over (measured: 4000 such leaves
 * held 36 MB for 0.27 M counted chars). The JSON round trip is native, O(length), and keeps
 * lone surrogates intact (a split may fall inside a surrogate pair), which a UTF-8 round trip
 * would not.
 */
function ownCopy(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** Below this many units a plain loop beats building substrings to compare. */
const BLOCK = 64;

/**
 * Length of the common prefix of `label` and `text` from `pos`. String equality compares
 * whole runs natively (vectorized) where a `charCodeAt` loop costs several ns per unit, so
 * long edges are compared a block at a time with `===` on substrings (one small allocation per
 * block, none per unit), and only the block holding the mismatch is walked unit by unit.
 */
function sharedLength(label: string, text: string, pos: number): number {
  const max = Math.min(label.length, text.length - pos);
  let i = 0;
  if (max >= BLOCK) {
    if (max === label.length && label === text.substring(pos, pos + max)) return max;
    while (
      max - i >= BLOCK &&
      label.substring(i, i + BLOCK) === text.substring(pos + i, pos + i + BLOCK)
    )
      i += BLOCK;
  }
  while (i < max && label.charCodeAt(i) === text.charCodeAt(pos + i)) i++;
  return i;
}

function childHas(node: RadixNode, tenant: string): boolean {
  if (node.children === undefined) return false;
  for (const child of node.children.values()) if (child.tenants.has(tenant)) return true;
  return false;
}
