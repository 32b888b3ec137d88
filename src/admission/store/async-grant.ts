/**
 * Bridges an async store to the wait queue's synchronous `tryGrant`. The queue offers grants to
 * its head only; with a store that answers over IPC or the network the head starts one attempt,
 * the queue keeps waiting while it is in flight, and the queue is pumped again when it settles:
 * a grant that arrived is handed over on that pump, a refusal leaves the head waiting for the
 * next wake-up. A waiter that leaves while its attempt is in flight (deadline, client gone) gives
 * the late grant back through `discard`, so no unit is ever held by a request that left.
 */
export interface AsyncGrantOptions<T> {
  /**
   * One try: undefined when there is nothing worth a round trip now (the local view says it
   * cannot fit), else the store's answer (the grant, or undefined when refused). A synchronous
   * throw fails the waiter (its request can never place).
   */
  attempt(): Promise<T | undefined> | undefined;
  /** Offers the queue's head a grant again (the queue's `pump`). */
  pump(): void;
  /** Returns a grant nobody will take. */
  discard(grant: T): void;
}

export class AsyncGrant<T> {
  readonly #opts: AsyncGrantOptions<T>;
  #inFlight = false;
  #ready: { grant: T } | { error: unknown } | undefined;
  #left = false;

  constructor(opts: AsyncGrantOptions<T>) {
    this.#opts = opts;
  }

  /** The waiter's `tryGrant`. */
  readonly tryGrant = (): T | undefined => {
    const ready = this.#ready;
    if (ready !== undefined) {
      this.#ready = undefined;
      if ('error' in ready) throw ready.error;
      return ready.grant;
    }
    if (this.#inFlight) return undefined;
    const answer = this.#opts.attempt();
    if (answer === undefined) return undefined;
    this.#inFlight = true;
    answer.then(
      (grant) => this.#settle(grant === undefined ? undefined : { grant }),
      (error: unknown) => this.#settle({ error }),
    );
    return undefined;
  };

  /** The waiter left without a grant: a grant still in flight goes back when it arrives. */
  left(): void {
    this.#left = true;
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready !== undefined && 'grant' in ready) this.#opts.discard(ready.grant);
  }

  #settle(outcome: { grant: T } | { error: unknown } | undefined): void {
    this.#inFlight = false;
    if (this.#left) {
      if (outcome !== undefined && 'grant' in outcome) this.#opts.discard(outcome.grant);
      return;
    }
    this.#ready = outcome;
    this.#opts.pump();
  }
}
