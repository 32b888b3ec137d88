/**
 * A lease is a held resource (load count, admission slot, room claim, connection pool
 * reference) with an idempotent release. Every exit path of a request calls release(); only the
 * first call has an effect, so a path that releases twice cannot drive a counter negative and a
 * path that forgets is the only bug left to find (integration tests check the gauges return to
 * zero). A lease is also `Disposable`: where its scope is lexical, `using` releases it on every
 * exit, as Rust's `Drop` does.
 */
export interface Lease extends Disposable {
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
  [Symbol.dispose](): void {
    this.release();
  }
}

export function lease(onRelease: () => void): Lease {
  return new OnceLease(onRelease);
}
