/**
 * Randomness as an injected collaborator. The gateway draws from `mathRandom` in production and a
 * seeded stream in tests; the simulator draws only from seeded streams, so a `--seed` run repeats.
 */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
}

export const mathRandom: Random = { next: () => Math.random() };

/** Uniform integer in [0, n). */
export function randomIndex(random: Random, n: number): number {
  return Math.floor(random.next() * n);
}

/** Mulberry32: 32-bit state, period 2^32; enough for load balancing draws and simulated text. */
export class Mulberry32 implements Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Unsigned 32-bit integer. */
  nextUint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  next(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** Integer in [0, bound). */
  nextInt(bound: number): number {
    return Math.floor(this.next() * bound);
  }
}

/** A seeded stream for reproducible tests and simulations. */
export function seededRandom(seed: number): Mulberry32 {
  return new Mulberry32(seed);
}
