/**
 * The gateway-wide concurrency limit (`--max-concurrent-requests`, SMG's legacy admission). Without
 * a refill rate it is a concurrency cap: a permit is held for the whole response and returned when
 * it ends. With `--rate-limit-tokens-per-second` it is a token bucket: permits are spent and come
 * back only by refill. Waiters queue FIFO up to `--queue-size` for at most `--queue-timeout-secs`;
 * a waiter whose client leaves drops out. Every rejection carries `Retry-After: 2`, as SMG.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock, Timer } from '@switchyard/kit';
import { BACKGROUND } from '../util/every.js';
import { lease, type Lease } from './lease.js';

export interface ConcurrencyConfig {
  capacity: number;
  queueSize: number;
  queueTimeoutMs: number;
  refillPerSec?: number | undefined;
}

interface Waiter {
  grant(l: Lease): void;
  fail(err: GatewayError): void;
  settled: boolean;
}

const RETRY_AFTER = { 'retry-after': '2' };

export class ConcurrencyLimiter {
  #tokens: number;
  #lastRefill: number;
  #inflight = 0;
  readonly #queue: Waiter[] = [];
  #refillTimer: Timer | undefined;

  constructor(
    private readonly config: ConcurrencyConfig,
    private readonly metrics: GatewayMetrics,
    private readonly clock: Clock,
  ) {
    this.#tokens = config.capacity;
    this.#lastRefill = clock.now();
  }

  get inflight(): number {
    return this.#inflight;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves with a permit, or rejects with the SMG admission answer. */
  acquire(signal: AbortSignal): Promise<Lease> {
    this.#refill();
    if (this.#queue.length === 0 && this.#tokens >= 1) {
      this.metrics.rateLimit.inc({ result: 'allowed' });
      return Promise.resolve(this.#grant());
    }
    if (this.config.queueSize === 0) {
      return Promise.reject(
        this.#reject(
          'queue_disabled',
          'admission_queue_full',
          'concurrency limit reached and queuing is disabled',
        ),
      );
    }
    if (this.#queue.length >= this.config.queueSize) {
      return Promise.reject(
        this.#reject('queue_full', 'admission_queue_full', 'admission queue is at capacity'),
      );
    }
    return new Promise<Lease>((resolve, reject) => {
      const done = (): void => {
        waiter.settled = true;
        this.clock.clearTimer(timer);
        signal.removeEventListener('abort', onAbort);
        const i = this.#queue.indexOf(waiter);
        if (i !== -1) this.#queue.splice(i, 1);
        this.metrics.admissionQueueDepth.set(this.#queue.length);
      };
      const waiter: Waiter = {
        settled: false,
        grant: (l) => {
          done();
          this.metrics.rateLimit.inc({ result: 'allowed_after_wait' });
          resolve(l);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      const onAbort = (): void =>
        waiter.fail(new GatewayError('admission_queue_timeout', 'client left the admission queue'));
      const timer = this.clock.setTimer(this.config.queueTimeoutMs, () =>
        waiter.fail(
          this.#reject(
            'timeout',
            'admission_queue_timeout',
            'timed out waiting for an admission slot',
          ),
        ),
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.metrics.admissionQueueDepth.set(this.#queue.length);
      this.#scheduleRefillWake();
    });
  }

  close(): void {
    this.clock.clearTimer(this.#refillTimer);
    for (const w of [...this.#queue])
      w.fail(new GatewayError('shutting_down', 'gateway is shutting down'));
  }

  #reject(
    reason: string,
    code: 'admission_queue_full' | 'admission_queue_timeout',
    message: string,
  ): GatewayError {
    this.metrics.rateLimit.inc({ result: 'rejected' });
    this.metrics.admissionRejected.inc({ reason });
    return new GatewayError(code, message, { headers: RETRY_AFTER, retryable: false });
  }

  #grant(): Lease {
    this.#tokens -= 1;
    this.#inflight += 1;
    this.metrics.admissionInflight.set(this.#inflight);
    return lease(() => {
      this.#inflight -= 1;
      this.metrics.admissionInflight.set(this.#inflight);
      // A concurrency cap returns the permit; a rate-limited bucket only refills.
      if (this.config.refillPerSec === undefined) this.#tokens += 1;
      this.#drain();
    });
  }

  /** Hands free permits to waiters in FIFO order. */
  #drain(): void {
    this.#refill();
    while (this.#tokens >= 1 && this.#queue.length > 0) {
      const next = this.#queue[0];
      if (!next || next.settled) {
        this.#queue.shift();
        continue;
      }
      next.grant(this.#grant());
    }
    this.#scheduleRefillWake();
  }

  #refill(): void {
    const rate = this.config.refillPerSec;
    const now = this.clock.now();
    if (rate !== undefined)
      this.#tokens = Math.min(
        this.config.capacity,
        this.#tokens + ((now - this.#lastRefill) / 1000) * rate,
      );
    this.#lastRefill = now;
  }

  /** With a refill rate, waiters are woken when the next token is due. */
  #scheduleRefillWake(): void {
    const rate = this.config.refillPerSec;
    if (rate === undefined || this.#queue.length === 0 || this.#refillTimer) return;
    const ms = Math.max(1, Math.ceil(((1 - this.#tokens) / rate) * 1000));
    this.#refillTimer = this.clock.setTimer(
      ms,
      () => {
        this.#refillTimer = undefined;
        this.#drain();
      },
      BACKGROUND,
    );
  }
}
