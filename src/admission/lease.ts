/**
 * A lease is a held resource (load count, admission slot, room claim) with an idempotent
 * release. Every exit path of a request calls release(); only the first call has an effect, so
 * a path that releases twice cannot drive a counter negative and a path that forgets is the
 * only bug left to find (integration tests check the gauges return to zero).
 */
export interface Lease {
  release(): void;
  readonly released: boolean;
}

class OnceLease implements Lease {
  #released = false;
  constructor(private readonly onRelease: () => void) {}
  get released(): boolean {
    return this.#released;
  }
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.onRelease();
  }
}

export function lease(onRelease: () => void): Lease {
  return new OnceLease(onRelease);
}

/** Holds the leases of one request scope and releases them all, once, on any exit. */
export class LeaseScope {
  readonly #leases: Lease[] = [];
  add<L extends Lease>(l: L): L {
    this.#leases.push(l);
    return l;
  }
  releaseAll(): void {
    for (const l of this.#leases.splice(0)) l.release();
  }
}
