// Small seeded PRNG and string hash. The simulator must be reproducible under --seed, so nothing in
// it may call Math.random(); every random draw goes through a Mulberry32 stream seeded from here.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units, salted with `seed`; returns an unsigned 32-bit hash. */
export function hashString(text: string, seed = 0): number {
  let h = (FNV_OFFSET ^ mix32(seed)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return mix32(h);
}

/** Hashes a list of integers (e.g. SGLang `input_ids`) the same way. */
export function hashInts(values: readonly number[], seed = 0): number {
  let h = (FNV_OFFSET ^ mix32(seed)) >>> 0;
  for (const v of values) {
    h ^= v | 0;
    h = Math.imul(h, FNV_PRIME);
  }
  return mix32(h);
}

/**
 * Finalizer from MurmurHash3: spreads every input bit over the output so that nearby seeds
 * (0, 1, 2 …) give unrelated streams.
 */
export function mix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Mulberry32: 32-bit state, period 2^32, good enough for simulated text and fault draws. */
export class Mulberry32 {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Unsigned 32-bit integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** Integer in [0, bound). */
  nextInt(bound: number): number {
    return Math.floor(this.next() * bound);
  }
}
