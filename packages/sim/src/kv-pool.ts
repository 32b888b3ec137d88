// KV memory of the realistic engine: a pool of `kvTokens` tokens shared by the prefix cache's
// blocks and by each running request's private part (prompt tail that fills no block, and the
// reservation for its output). Admission reserves a request's whole output up front, so a
// running request never runs out of KV (real engines retract instead; the simulator does not).
import type { GenerationSpec } from './engine.js';
import type { BlockLease } from './prefix-cache.js';
import { PrefixCache } from './prefix-cache.js';

/** What the pool holds for one admitted request; freed exactly once. */
export interface KvAllocation {
  leases: BlockLease[];
  /** Prompt tokens served from the cache. */
  cached: number;
  /** Prompt tokens held outside cache blocks (tails, or the whole prompt without the cache). */
  promptPrivate: number;
  /** promptPrivate plus the output reservation (choices × maxTokens). */
  reserved: number;
}

export class KvPool {
  private readonly cache: PrefixCache;
  private privateReserved = 0;
  private held = 0;
  private promptTotal = 0;
  private cachedTotal = 0;

  constructor(
    private readonly kvTokens: number,
    private readonly blockSize: number,
    private readonly prefixCache: boolean,
  ) {
    this.cache = new PrefixCache(blockSize);
  }

  /**
   * Allocates KV for `spec`, evicting unpinned cache blocks as needed; undefined when it does not
   * fit. A request larger than the whole pool is admitted when `alone` rather than never.
   */
  allocate(spec: GenerationSpec, alone: boolean): KvAllocation | undefined {
    const useCache = this.usesCache(spec);
    let newBlocks = 0;
    let reused = 0;
    let blockTokens = 0;
    if (useCache) {
      for (const p of spec.prompts ?? []) {
        const plan = this.cache.plan(p.keys);
        newBlocks += plan.missing;
        reused += plan.reused;
        blockTokens += p.keys.length * this.blockSize;
      }
    }
    const promptPrivate = spec.promptTokens - blockTokens;
    const reserved = promptPrivate + spec.choices * spec.maxTokens;
    const need = newBlocks * this.blockSize + reserved;
    const free = this.kvTokens - this.cache.residentTokens() - this.privateReserved - this.held;
    if (need > free) {
      const evictable =
        this.cache.residentTokens() - this.cache.pinnedTokens() - reused * this.blockSize;
      // Alone, a request that fits the pool still waits for held KV (PD pins expire).
      if (need > free + evictable && !(alone && need > this.kvTokens)) return undefined;
    }
    const a: KvAllocation = { leases: [], cached: 0, promptPrivate, reserved };
    if (useCache) {
      for (const p of spec.prompts ?? []) {
        const lease = this.cache.acquire(p.keys);
        a.leases.push(lease);
        // At least one prompt token is always computed: the last one yields the first logits.
        a.cached += Math.max(0, Math.min(lease.matched * this.blockSize, p.tokens - 1));
      }
    }
    // Evict only now that this prompt's own blocks are pinned, so it cannot evict its own hit.
    const over =
      this.cache.residentTokens() + this.privateReserved + this.held + reserved - this.kvTokens;
    if (over > 0) this.cache.evict(over);
    this.privateReserved += reserved;
    this.promptTotal += spec.promptTokens;
    this.cachedTotal += a.cached;
    return a;
  }

  /** The request computed its prompt: its new blocks now serve later requests. */
  markComputed(a: KvAllocation): void {
    for (const lease of a.leases) this.cache.markReady(lease);
  }

  free(a: KvAllocation): void {
    this.privateReserved -= a.reserved;
    for (const lease of a.leases) this.cache.release(lease);
    a.leases = [];
    a.reserved = 0;
  }

  /** Prompt tokens of `spec` the cache would serve now (for num_waiting_uncached_tokens). */
  peekCached(spec: GenerationSpec): number {
    if (!this.usesCache(spec)) return 0;
    let cached = 0;
    for (const p of spec.prompts ?? []) {
      const matched = this.cache.plan(p.keys).matched * this.blockSize;
      cached += Math.max(0, Math.min(matched, p.tokens - 1));
    }
    return cached;
  }

  /** KV in use: pinned cache blocks, held KV, and the running requests' `privateInUse`. */
  usedTokens(privateInUse: number): number {
    return this.cache.pinnedTokens() + this.held + privateInUse;
  }

  /** Holds `tokens` outside any request; `onRelease` runs once when they are given back. */
  hold(tokens: number, onRelease: () => void): () => void {
    this.held += tokens;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= tokens;
      onRelease();
    };
  }

  flush(): void {
    this.cache.flush();
  }

  hitRate(): number {
    return this.promptTotal === 0 ? 0 : this.cachedTotal / this.promptTotal;
  }

  private usesCache(spec: GenerationSpec): boolean {
    // A decode's prompt KV arrives whole from its peer; it neither hits nor fills the cache.
    return this.prefixCache && spec.remoteKv !== true && spec.prompts !== undefined;
  }
}
