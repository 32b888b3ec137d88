/**
 * L0: an exact-match encode cache keyed by (text, add_special_tokens), as SMG's `l0.rs`
 * (grpc-mode.md §3.3). The same system prompt and few-shot prefix arrive over and over, and a
 * hit costs one string hash instead of a full BPE pass.
 */
import { mathRandom, randomIndex, type Random } from '@switchyard/kit';

export interface L0Options {
  maxEntries: number;
  /** Draws the eviction sample; tests pass a seeded stream. */
  random?: Random;
}

interface Entry {
  readonly text: string;
  readonly addSpecialTokens: boolean;
  readonly ids: readonly number[];
  /** Position in #keys, kept so a delete is a swap with the last slot. */
  slot: number;
  /** Value of the use counter at the last hit or insert. */
  used: number;
}

/**
 * How many entries an eviction compares. SMG samples 8: enough that the evicted entry is almost
 * always among the least recently used eighth, without keeping a linked list per entry.
 */
const SAMPLE = 8;

/**
 * Texts longer than this are encoded every time, not kept: the cache is bounded by entries (as
 * SMG's), and 10,000 long-context prompts would hold gigabytes. 64 Ki characters is a ~16k-token
 * prompt, so the system prompts and conversations the cache is for still fit.
 */
export const L0_MAX_TEXT_LENGTH = 64 * 1024;

export class L0Cache {
  // One map per add_special_tokens value, keyed by the text itself: no key string is built, and
  // V8 hashes a string once and keeps the hash on it.
  readonly #withSpecial = new Map<string, Entry>();
  readonly #withoutSpecial = new Map<string, Entry>();
  /** Every entry in a dense array, so a uniform sample is 8 random indexes. */
  readonly #entries: Entry[] = [];
  readonly #max: number;
  readonly #random: Random;
  #tick = 0;
  #hits = 0;
  #misses = 0;

  constructor(options: L0Options) {
    this.#max = Math.max(1, Math.floor(options.maxEntries));
    this.#random = options.random ?? mathRandom;
  }

  /** The cached ids, frozen so no caller can change what the next hit returns. */
  get(text: string, addSpecialTokens: boolean): readonly number[] | undefined {
    const entry = this.#map(addSpecialTokens).get(text);
    if (entry === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    entry.used = ++this.#tick;
    return entry.ids;
  }

  /** Stores ids (frozen in place) and returns them; evicts one sampled entry when full. */
  set(text: string, addSpecialTokens: boolean, ids: readonly number[]): readonly number[] {
    const frozen = Object.isFrozen(ids) ? ids : Object.freeze(ids);
    if (text.length > L0_MAX_TEXT_LENGTH) return frozen;
    const map = this.#map(addSpecialTokens);
    const existing = map.get(text);
    if (existing !== undefined) {
      existing.used = ++this.#tick;
      return existing.ids;
    }
    if (this.#entries.length >= this.#max) this.#evictOne();
    const slot = this.#entries.length;
    const entry: Entry = { text, addSpecialTokens, ids: frozen, slot, used: ++this.#tick };
    this.#entries.push(entry);
    map.set(text, entry);
    return frozen;
  }

  get size(): number {
    return this.#entries.length;
  }

  get stats(): { hits: number; misses: number; entries: number } {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.length };
  }

  /** Approximate LRU: of SAMPLE random entries, the one used longest ago goes. */
  #evictOne(): void {
    const n = this.#entries.length;
    let victim: Entry | undefined;
    for (let i = 0; i < Math.min(SAMPLE, n); i++) {
      const candidate = this.#entries[randomIndex(this.#random, n)];
      if (candidate !== undefined && (victim === undefined || candidate.used < victim.used)) {
        victim = candidate;
      }
    }
    if (victim === undefined) return;
    const last = this.#entries.pop();
    if (last !== undefined && last !== victim) {
      last.slot = victim.slot;
      this.#entries[victim.slot] = last;
    }
    this.#map(victim.addSpecialTokens).delete(victim.text);
  }

  #map(addSpecialTokens: boolean): Map<string, Entry> {
    return addSpecialTokens ? this.#withSpecial : this.#withoutSpecial;
  }
}
