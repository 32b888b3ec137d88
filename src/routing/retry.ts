/**
 * SMG's retry rules (`routers/common/retry.rs`): `maxAttempts` counts every send, the first
 * included; retryable statuses are 408/429/500/502/503/504 plus transport failures; a response
 * marked non-retryable (an overload shed) is final; backoff before attempt i+1 is
 * min(initial * multiplier^i, max) with ±jitter. The decorator itself holds no lease: an attempt
 * that throws has released its own, and a discarded answer's are released before the sleep.
 */
import type { GatewayConfig } from '../config/schema.js';
import { sleep, systemClock, type Clock, type Random } from '@switchyard/kit';
import { GatewayError } from '../errors/gateway-error.js';
import { RETRYABLE_STATUSES } from '../errors/retryable.js';
import type { AttemptSpan, RequestSpan } from '../observability/tracing.js';
import { discardAnswer, type Answer } from './answer.js';
import { endAttemptSpan } from './attempt-trace.js';

export { RETRYABLE_STATUSES } from '../errors/retryable.js';

export interface RetryConfig {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
  jitter: number;
}

/** The `--retry-*` flags; `--disable-retries` is one attempt (SMG: max_retries 1). */
export function retryConfigFrom(
  c: Pick<
    GatewayConfig,
    | 'disableRetries'
    | 'retryMaxRetries'
    | 'retryInitialBackoffMs'
    | 'retryMaxBackoffMs'
    | 'retryBackoffMultiplier'
    | 'retryJitterFactor'
  >,
): RetryConfig {
  return {
    maxAttempts: c.disableRetries ? 1 : Math.max(1, c.retryMaxRetries),
    initialBackoffMs: c.retryInitialBackoffMs,
    maxBackoffMs: c.retryMaxBackoffMs,
    multiplier: c.retryBackoffMultiplier,
    jitter: c.retryJitterFactor,
  };
}

/** Backoff before the attempt after 0-based attempt `i`. */
export function backoffMs(i: number, cfg: RetryConfig, random: Random): number {
  const base = Math.min(cfg.initialBackoffMs * cfg.multiplier ** i, cfg.maxBackoffMs);
  if (cfg.jitter <= 0) return base;
  const u = random.next() * 2 - 1; // U[-1, 1)
  return Math.max(0, base + Math.round(base * cfg.jitter * u));
}

export interface RetryHooks {
  onRetry(attempt: number, delayMs: number, reason: string): void;
  onExhausted(reason: string): void;
}

export interface RetryDeps {
  random: Random;
  /** The client's signal: a backoff ends early when the client goes away. */
  signal: AbortSignal;
  hooks: RetryHooks;
  /** Times the backoff; the system clock when absent. */
  clock?: Clock | undefined;
  /** The request's span (`--enable-trace`): each attempt gets a child span, ended with its outcome. */
  trace?: RequestSpan | undefined;
  /**
   * Whether an attempt is itself the call to a worker (regular routing; the default) rather than
   * the parent of PD legs that each make one: the kind of the attempt span.
   */
  attemptCallsWorker?: boolean | undefined;
}

/**
 * Why an attempt is worth another try, or undefined when its outcome is final: a retryable
 * gateway error (transport failure, selection miss, failed PD leg), or an answer with a
 * retryable status. Anything else (a non-retryable error, a crash, the client gone) is final.
 */
function retryReason(outcome: unknown, isAnswer: boolean): string | undefined {
  if (isAnswer) {
    const status = (outcome as Answer).status;
    return RETRYABLE_STATUSES.has(status) ? `status_${status}` : undefined;
  }
  return outcome instanceof GatewayError && outcome.retryable ? outcome.code : undefined;
}

/**
 * Retry as a decorator around one attempt (SMG's rules, above). The decision is made on the
 * answer's status before a byte of it is written: a retryable answer with attempts left is
 * discarded (its body dumped, its leases released) and the next attempt runs after a backoff.
 * The last attempt's answer is returned as is (SMG relays the last response), and the last
 * attempt's error is thrown.
 */
export async function withRetry(
  attempt: (index: number, span: AttemptSpan | undefined) => Promise<Answer>,
  cfg: RetryConfig,
  deps: RetryDeps,
): Promise<Answer> {
  const max = Math.max(1, cfg.maxAttempts);
  for (let i = 0; ; i++) {
    const isLast = i + 1 >= max;
    let answer: Answer | undefined;
    let error: unknown;
    const span = deps.trace?.startAttempt(i + 1, deps.attemptCallsWorker ?? true);
    try {
      answer = await attempt(i, span);
    } catch (err) {
      error = err;
    }
    if (span) endAttemptSpan(span, answer, error, deps.signal);
    const reason = retryReason(answer ?? error, answer !== undefined);
    if (reason === undefined) {
      if (answer) return answer;
      throw error;
    }
    if (isLast) {
      if (max > 1) deps.hooks.onExhausted(reason);
      if (answer) return answer;
      throw error;
    }
    if (answer) {
      discardAnswer(answer);
      error = new GatewayError(
        'call_upstream_status_error',
        `Worker ${answer.routedTo?.url ?? ''} answered status ${answer.status}`,
        { status: answer.status },
      );
    }
    const delay = backoffMs(i, cfg, deps.random);
    deps.hooks.onRetry(i + 1, delay, reason);
    try {
      await sleep(delay, deps.signal, deps.clock ?? systemClock);
    } catch {
      throw error;
    }
  }
}
