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
    let held = 0;
    let released = false;
    return {
      holdUpTo: (total: number): boolean => {
        if (released || total <= held) return true;
        const rise = total - held;
        if (this.#used + rise > this.capacity) return false;
        held = total;
        this.#add(rise);
        return true;
      },
      release: (): void => {
        if (released) return;
        released = true;
        this.#add(-held);
        held = 0;
      },
    };
  }

  #add(delta: number): void {
    this.#used += delta;
    this.gauge.set(this.#used);
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
