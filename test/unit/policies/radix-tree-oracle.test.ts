/**
 * Property test: the radix tree against a brute-force model. The model keeps, per tenant, the
 * set of strings it inserted; a match is the longest common prefix with any stored string, and
 * its tenants are those holding a string that shares that whole prefix. After an eviction the
 * model is re-read from the tree's tenant leaves (eviction truncates a tenant's string to its
 * parent's path), after checking that the evicted leaves were the least recently used.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RadixTree, type RadixNodeView } from '../../../src/policies/radix-tree.js';
import { ManualClock, seededRandom, type Random } from '@switchyard/kit';

const TENANTS = ['w0', 'w1', 'w2', 'w3', 'w4'];
// Few symbols so strings share long prefixes; two emoji that share a high surrogate.
const ALPHABET = ['a', 'b', 'c', ' ', '😀', '😁'];

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random.next() * items.length)] as T;
}

function randomText(random: Random, bases: readonly string[], maxExtra = 8): string {
  const base = pick(random, bases);
  let text = base.slice(0, Math.floor(random.next() * (base.length + 1)));
  const extra = Math.floor(random.next() * maxExtra);
  for (let i = 0; i < extra; i++) text += pick(random, ALPHABET);
  return text;
}

function lcp(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

class Oracle {
  readonly strings = new Map<string, Set<string>>();

  insert(text: string, tenant: string): void {
    if (text === '') return;
    let set = this.strings.get(tenant);
    if (!set) this.strings.set(tenant, (set = new Set()));
    set.add(text);
  }

  match(text: string): { matched: number; tenants: string[] } {
    let best = 0;
    for (const set of this.strings.values())
      for (const s of set) best = Math.max(best, lcp(text, s));
    if (best === 0) return { matched: 0, tenants: [] };
    const tenants = [...this.strings]
      .filter(([, set]) => [...set].some((s) => lcp(text, s) >= best))
      .map(([t]) => t);
    return { matched: best, tenants: tenants.sort() };
  }

  /**
   * A tenant's chars = the number of distinct non-empty prefixes of its strings, which for the
   * sorted strings is Σ length − Σ lcp(adjacent).
   */
  chars(tenant: string): number {
    const sorted = [...(this.strings.get(tenant) ?? [])].sort();
    let total = 0;
    for (let i = 0; i < sorted.length; i++)
      total +=
        (sorted[i] as string).length -
        (i > 0 ? lcp(sorted[i] as string, sorted[i - 1] as string) : 0);
    return total;
  }
}

interface Leaf {
  id: string;
  tenant: string;
  path: string;
  at: number;
}

/** Checks the structural invariants and returns every (tenant, node) where the node is that tenant's leaf. */
function inspect(tree: RadixTree): Leaf[] {
  const nodes: RadixNodeView[] = [...tree.nodes()];
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const childTenants = new Map<string, Set<string>>();
  for (const n of nodes) {
    assert.ok(n.label.length > 0, 'a non-root node has an empty label');
    assert.ok(n.tenants.size > 0, `node '${n.path}' has no tenant`);
    const parent = byPath.get(n.parentPath);
    if (n.parentPath !== '') {
      assert.ok(parent, `node '${n.path}' has no parent node`);
      assert.ok(
        parent.childKeys.includes(n.label.charCodeAt(0)),
        'children are keyed by first unit',
      );
      for (const t of n.tenants.keys())
        assert.ok(parent.tenants.has(t), `prefix closure broken for ${t} at '${n.path}'`);
    }
    let set = childTenants.get(n.parentPath);
    if (!set) childTenants.set(n.parentPath, (set = new Set()));
    for (const t of n.tenants.keys()) set.add(t);
  }
  const leaves: Leaf[] = [];
  for (const n of nodes) {
    for (const [tenant, at] of n.tenants) {
      if (!childTenants.get(n.path)?.has(tenant))
        leaves.push({ id: `${tenant}\u0000${n.path}`, tenant, path: n.path, at });
    }
  }
  return leaves;
}

function checkChars(tree: RadixTree, oracle: Oracle): void {
  let total = 0;
  for (const t of TENANTS) {
    const want = oracle.chars(t);
    assert.equal(tree.tenantChars(t), want, `chars of ${t}`);
    total += want;
  }
  assert.equal(tree.totalChars, total);
}

/**
 * `long` uses prompt-sized strings (hundreds of units), so edges are long enough for the tree's
 * block-wise comparison; short strings exercise the unit-by-unit path and dense branching.
 */
function run(
  seed: number,
  operations: number,
  long = false,
): { inserts: number; matches: number; evictions: number; removals: number } {
  const random = seededRandom(seed);
  const clock = new ManualClock();
  const tree = new RadixTree(clock);
  const oracle = new Oracle();
  const maxExtra = long ? 160 : 8;
  const baseParts = long ? 40 : 3;
  const bases = Array.from({ length: 6 }, () =>
    Array.from({ length: baseParts }, () => randomText(random, [''])).join(''),
  );
  const text = (): string => randomText(random, bases, maxExtra);
  const stats = { inserts: 0, matches: 0, evictions: 0, removals: 0 };

  for (let op = 0; op < operations; op++) {
    clock.advance(Math.floor(random.next() * 3)); // ties in access time are common, as in production
    const roll = random.next();
    if (roll < 0.45) {
      const inserted = text();
      const tenant = pick(random, TENANTS);
      if (random.next() < 0.5) {
        tree.insert(inserted, tenant);
      } else {
        const want = oracle.match(inserted);
        tree.matchAndInsert(inserted, (matched, tenants) => {
          assert.equal(matched, want.matched);
          assert.deepEqual([...(tenants?.keys() ?? [])].sort(), want.tenants);
          return tenant;
        });
      }
      oracle.insert(inserted, tenant);
      stats.inserts++;
    } else if (roll < 0.9) {
      const probe = text();
      const got = tree.match(probe);
      const want = oracle.match(probe);
      assert.equal(got.matched, want.matched, `match of '${probe}' at op ${op}`);
      assert.deepEqual(
        [...(got.tenants?.keys() ?? [])].sort(),
        want.tenants,
        `tenants of '${probe}' at op ${op}`,
      );
      stats.matches++;
    } else if (roll < 0.96) {
      const before = inspect(tree);
      const max = Math.floor(random.next() * tree.totalChars);
      const start = tree.totalChars;
      const evicted = tree.evictToSize(max);
      assert.ok(tree.totalChars <= max, 'evicted down to the bound');
      assert.equal(start - tree.totalChars, evicted);
      const after = inspect(tree);
      const remaining = new Set(after.map((l) => l.id));
      const gone = before.filter((l) => !remaining.has(l.id));
      const newestGone = Math.max(...gone.map((l) => l.at));
      const oldestKept = Math.min(...after.map((l) => l.at));
      assert.ok(
        gone.length === 0 || after.length === 0 || newestGone <= oldestKept,
        `LRU order: evicted t=${newestGone} but kept t=${oldestKept}`,
      );
      // Re-read the model: what a tenant still owns is exactly the paths of its leaves.
      oracle.strings.clear();
      for (const leaf of after) oracle.insert(leaf.path, leaf.tenant);
      stats.evictions++;
    } else {
      const tenant = pick(random, TENANTS);
      assert.equal(tree.removeTenant(tenant), oracle.chars(tenant));
      oracle.strings.delete(tenant);
      stats.removals++;
    }
    if (op % 100 === 0) {
      inspect(tree);
      checkChars(tree, oracle);
    }
  }
  inspect(tree);
  checkChars(tree, oracle);
  return stats;
}

void describe('RadixTree against a brute-force oracle', () => {
  for (const seed of [1, 2, 3, 42, 20240601]) {
    void it(`agrees over 3000 random operations (seed ${seed})`, () => {
      const stats = run(seed, 3000);
      // Every kind of operation was exercised, many times.
      assert.ok(stats.inserts > 1000 && stats.matches > 1000, JSON.stringify(stats));
      assert.ok(stats.evictions > 50 && stats.removals > 50, JSON.stringify(stats));
    });
  }
  for (const seed of [7, 8]) {
    void it(`agrees on prompt-sized strings over 2000 random operations (seed ${seed})`, () => {
      const stats = run(seed, 2000, true);
      assert.ok(
        stats.inserts > 700 && stats.matches > 700 && stats.evictions > 30,
        JSON.stringify(stats),
      );
    });
  }
});
