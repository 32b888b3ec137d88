// Block-granular prefix cache with LRU eviction, the part of a paged KV pool that makes a repeated
// prefix cheap (SGLang's radix cache, vLLM's automatic prefix caching). A prompt is cut into full
// blocks of `blockSize` tokens; block i is keyed by a hash chained over blocks 0..i, so a key
// names the whole prefix up to it. A trailing partial block is never cached, as in vLLM.
import { mix32 } from './prng.js';

class CacheBlock {
  refs = 0;
  /** False until the request that allocated the block has computed it. */
  ready = false;
  constructor(readonly key: number) {}
}

/** Blocks pinned by one request; released exactly once. */
export interface BlockLease {
  readonly blocks: readonly CacheBlock[];
  /** Leading blocks that were already computed when the lease was taken. */
  readonly matched: number;
}

/** What admitting a prompt would cost, computed without touching the cache. */
export interface CachePlan {
  matched: number;
  /** Blocks that do not exist yet and would have to be allocated. */
  missing: number;
  /** Unpinned blocks of this prompt that admission will pin (no longer evictable). */
  reused: number;
}

/** Chained 52-bit block keys for a token-id sequence: only full blocks get a key. */
export function blockKeys(ids: readonly number[], blockSize: number): number[] {
  const keys: number[] = [];
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  for (let i = 0; i + blockSize <= ids.length; i += blockSize) {
    for (let j = i; j < i + blockSize; j++) {
      const id = ids[j] ?? 0;
      a = mix32(a ^ id);
      b = mix32(Math.imul(b, 31) + id);
    }
    // Two independent 32-bit lanes folded into one safe integer: a collision only fakes a hit.
    keys.push(a * 0x100000 + (b >>> 12));
  }
  return keys;
}

export class PrefixCache {
  // Map iteration order is the LRU order: the first entry is the least recently used.
  private readonly blocks = new Map<number, CacheBlock>();
  private pinned = 0;

  constructor(readonly blockSize: number) {}

  /** Tokens held by every resident block, pinned or not. */
  residentTokens(): number {
    return this.blocks.size * this.blockSize;
  }

  /** Tokens held by blocks some running request uses (not evictable). */
  pinnedTokens(): number {
    return this.pinned * this.blockSize;
  }

  plan(keys: readonly number[]): CachePlan {
    let matched = 0;
    let missing = 0;
    let reused = 0;
    let prefix = true;
    for (const key of keys) {
      const b = this.blocks.get(key);
      if (b === undefined) {
        missing++;
        prefix = false;
        continue;
      }
      if (b.refs === 0) reused++;
      if (prefix && b.ready) matched++;
      else prefix = false;
    }
    return { matched, missing, reused };
  }

  /** Pins every block of the prompt, allocating the missing ones (not ready). */
  acquire(keys: readonly number[]): BlockLease {
    const { matched } = this.plan(keys);
    const blocks: CacheBlock[] = [];
    for (const key of keys) {
      let b = this.blocks.get(key);
      if (b === undefined) {
        b = new CacheBlock(key);
        this.blocks.set(key, b);
      }
      if (b.refs++ === 0) this.pinned++;
      blocks.push(b);
    }
    // Touch the chain from its last block to its first, so that the first block ends up most
    // recent: eviction then takes leaves before the prefixes they hang from.
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i];
      if (b === undefined) continue;
      this.blocks.delete(b.key);
      this.blocks.set(b.key, b);
    }
    return { blocks, matched };
  }

  /** The lease's request computed its prompt: its blocks can now serve later requests. */
  markReady(lease: BlockLease): void {
    for (const b of lease.blocks) b.ready = true;
  }

  /** Unpins the lease; blocks that were never computed are dropped at once. */
  release(lease: BlockLease): void {
    for (const b of lease.blocks) {
      if (--b.refs === 0) {
        this.pinned--;
        if (!b.ready) this.blocks.delete(b.key);
      }
    }
  }

  /** Evicts least recently used unpinned blocks until `tokens` are freed; returns tokens freed. */
  evict(tokens: number): number {
    let freed = 0;
    for (const b of this.blocks.values()) {
      if (freed >= tokens) break;
      if (b.refs > 0) continue;
      this.blocks.delete(b.key);
      freed += this.blockSize;
    }
    return freed;
  }

  /** Drops every unpinned block (`/flush_cache`). */
  flush(): void {
    this.evict(Number.POSITIVE_INFINITY);
  }
}
