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

// The seeded stream itself is the gateway's too, so it lives in the shared kit.
export { Mulberry32 } from '@switchyard/kit';
