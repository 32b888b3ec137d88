/**
 * `--max-buffered-body-bytes`: one gateway-wide budget for the request-body bytes held in memory
 * at once. Every body is read whole into a Buffer (retries resend it), and the concurrency permit
 * is taken only after the read, so without this nothing bounds the sum of bodies in flight.
 */
import { GatewayError } from '../errors/gateway-error.js';

/** Where the budget reports its use (the `smg_http_buffered_body_bytes` gauge). */
export interface BudgetGauge {
  set(value: number): void;
}

/** One request's share of the budget: grows as its body arrives, released once. */
export interface BodyCharge {
  /**
   * Raises this request's hold to `total` bytes; false (holding what it had) when the budget
   * cannot cover the rise. Ignored after release: a read still finishing must not re-charge.
   */
  holdUpTo(total: number): boolean;
  /** Returns every byte held; later calls do nothing. */
  release(): void;
}

export class BodyBudget {
  #used = 0;

  constructor(
    readonly capacity: number,
    private readonly gauge: BudgetGauge,
  ) {}

  get used(): number {
    return this.#used;
  }

  /** A new, empty charge; the caller releases it when the request's response closes. */
  open(): BodyCharge {
    return new Charge(this);
  }

  /** Adds `delta` bytes to the use if they fit (a release always fits); false when they do not. */
  tryAdd(delta: number): boolean {
    if (delta > 0 && this.#used + delta > this.capacity) return false;
    this.#used += delta;
    this.gauge.set(this.#used);
    return true;
  }
}

/** A class rather than two closures per request: its methods live on the prototype. */
class Charge implements BodyCharge {
  #held = 0;
  #released = false;

  constructor(private readonly budget: BodyBudget) {}

  holdUpTo(total: number): boolean {
    if (this.#released || total <= this.#held) return true;
    if (!this.budget.tryAdd(total - this.#held)) return false;
    this.#held = total;
    return true;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.budget.tryAdd(-this.#held);
    this.#held = 0;
  }
}

/** The answer when a body does not fit: the client may try again shortly, on a new connection. */
export function budgetExhausted(capacity: number): GatewayError {
  return new GatewayError(
    'request_body_budget_exhausted',
    `The gateway is holding its limit of ${capacity} request-body bytes; retry shortly`,
    // Unread bytes may be left on the socket, so it is closed; never retried by the gateway.
    { headers: { connection: 'close', 'retry-after': '1' }, retryable: false },
  );
}
