/**
 * The gateway-wide concurrency limit (`--max-concurrent-requests`, SMG's legacy admission). Without
 * a refill rate it is a concurrency cap: a permit is held for the whole response and returned when
 * it ends. With `--rate-limit-tokens-per-second` it is a token bucket: permits are spent and come
 * back only by refill. Waiters queue FIFO up to `--queue-size` for at most `--queue-timeout-secs`;
 * a waiter whose client leaves drops out. Every rejection carries `Retry-After: 2`, as SMG.
 */
import { systemClock, type Clock, type Timer } from '@switchyard/kit';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { BACKGROUND } from '../util/every.js';
import { lease, type Lease } from '../util/lease.js';
import { WaitQueue } from './wait-queue.js';

/** Plain callbacks the caller maps to metrics (server/metric-bindings.ts). */
export interface ConcurrencyLimiterHooks {
  /** A permit was granted, at once or after waiting. */
  onAdmit?(result: 'allowed' | 'allowed_after_wait'): void;
  /** A request was refused. */
  onReject?(reason: 'queue_disabled' | 'queue_full' | 'timeout'): void;
  onInflightChange?(inflight: number): void;
  onQueuedChange?(queued: number): void;
}

export interface ConcurrencyLimiterOptions {
  capacity: number;
  queueSize: number;
  queueTimeoutMs: number;
  refillPerSec?: number | undefined;
  clock?: Clock | undefined;
  hooks?: ConcurrencyLimiterHooks | undefined;
}

const RETRY_AFTER = { 'retry-after': '2' };

export class ConcurrencyLimiter {
  readonly #opts: ConcurrencyLimiterOptions;
  readonly #clock: Clock;
  readonly #hooks: ConcurrencyLimiterHooks;
  readonly #queue: WaitQueue<Lease>;
  #tokens: number;
  #lastRefill: number;
  #inflight = 0;
  #refillTimer: Timer | undefined;

  constructor(opts: ConcurrencyLimiterOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#hooks = opts.hooks ?? {};
    this.#queue = new WaitQueue({
      clock: this.#clock,
      onSizeChange: (n) => this.#hooks.onQueuedChange?.(n),
    });
    this.#tokens = opts.capacity;
    this.#lastRefill = this.#clock.now();
  }

  get inflight(): number {
    return this.#inflight;
  }

  get queued(): number {
    return this.#queue.size;
  }

  /** Resolves with a permit, or rejects with the SMG admission answer. */
  acquire(signal: AbortSignal): Promise<Lease> {
    this.#refill();
    if (this.#queue.size === 0 && this.#tokens >= 1) {
      this.#hooks.onAdmit?.('allowed');
      return Promise.resolve(this.#grant());
    }
    if (this.#opts.queueSize === 0) {
      const msg = 'concurrency limit reached and queuing is disabled';
      return Promise.reject(this.#reject('queue_disabled', 'admission_queue_full', msg));
    }
    if (this.#queue.size >= this.#opts.queueSize) {
      const msg = 'admission queue is at capacity';
      return Promise.reject(this.#reject('queue_full', 'admission_queue_full', msg));
    }
    const permit = this.#queue.enqueue({
      tryGrant: () => (this.#tokens >= 1 ? this.#grant() : undefined),
      signal,
      deadlineMs: this.#opts.queueTimeoutMs,
      timeoutError: () =>
        this.#reject(
          'timeout',
          'admission_queue_timeout',
          'timed out waiting for an admission slot',
        ),
      abortError: () =>
        new GatewayError('admission_queue_timeout', 'client left the admission queue'),
      onLeave: (reason) => {
        if (reason === 'granted') this.#hooks.onAdmit?.('allowed_after_wait');
      },
    });
    this.#scheduleRefillWake();
    return permit;
  }

  close(): void {
    this.#clock.clearTimer(this.#refillTimer);
    this.#queue.close();
  }

  #reject(
    reason: 'queue_disabled' | 'queue_full' | 'timeout',
    code: 'admission_queue_full' | 'admission_queue_timeout',
    message: string,
  ): GatewayError {
    this.#hooks.onReject?.(reason);
    return new GatewayError(code, message, { headers: RETRY_AFTER, retryable: false });
  }

  #grant(): Lease {
    this.#tokens -= 1;
    this.#inflight += 1;
    this.#hooks.onInflightChange?.(this.#inflight);
    return lease(() => {
      this.#inflight -= 1;
      this.#hooks.onInflightChange?.(this.#inflight);
      // A concurrency cap returns the permit; a rate-limited bucket only refills.
      if (this.#opts.refillPerSec === undefined) this.#tokens += 1;
      this.#drain();
    });
  }

  /** Hands free permits to waiters in FIFO order. */
  #drain(): void {
    this.#refill();
    this.#queue.pump();
    this.#scheduleRefillWake();
  }

  #refill(): void {
    const rate = this.#opts.refillPerSec;
    const now = this.#clock.now();
    if (rate !== undefined)
      this.#tokens = Math.min(
        this.#opts.capacity,
        this.#tokens + ((now - this.#lastRefill) / 1000) * rate,
      );
    this.#lastRefill = now;
  }

  /** With a refill rate, waiters are woken when the next token is due. */
  #scheduleRefillWake(): void {
    const rate = this.#opts.refillPerSec;
    if (rate === undefined || this.#queue.size === 0 || this.#refillTimer) return;
    const ms = Math.max(1, Math.ceil(((1 - this.#tokens) / rate) * 1000));
    const wake = (): void => {
      this.#refillTimer = undefined;
      this.#drain();
    };
    this.#refillTimer = this.#clock.setTimer(ms, wake, BACKGROUND);
  }
}

/** `--max-concurrent-requests` and its queue flags; undefined when the limit is off (0). */
export function concurrencyLimiterFromConfig(
  config: GatewayConfig,
  deps: Pick<ConcurrencyLimiterOptions, 'clock' | 'hooks'> = {},
): ConcurrencyLimiter | undefined {
  if (config.maxConcurrentRequests <= 0) return undefined;
  return new ConcurrencyLimiter({
    capacity: config.maxConcurrentRequests,
    queueSize: config.queueSize,
    queueTimeoutMs: config.queueTimeoutSecs * 1000,
    // SMG: "Unset or 0 = no refill": the limit is then pure concurrency (permits return when responses end).
    refillPerSec:
      config.rateLimitTokensPerSecond === 0 ? undefined : config.rateLimitTokensPerSecond,
    ...deps,
  });
}
