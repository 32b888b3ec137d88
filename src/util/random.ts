/** Randomness as an injected collaborator, so tests can make selection deterministic. */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
}

export const mathRandom: Random = { next: () => Math.random() };

/** Uniform integer in [0, n). */
export function randomIndex(random: Random, n: number): number {
  return Math.floor(random.next() * n);
}

/** A small seeded generator (mulberry32) for reproducible tests and simulations. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return {
    next(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
