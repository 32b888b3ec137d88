/**
 * SMG's retry rules (smg-core.md §5.2): `maxAttempts` counts every send, the first included;
 * retryable statuses are 408/429/500/502/503/504 plus transport failures; a response marked
 * non-retryable (an overload shed) is final; backoff before attempt i+1 is
 * min(initial * multiplier^i, max) with ±jitter. The executor itself holds no lease: each
 * attempt releases its own before the executor sleeps.
 */
import type { Random } from '../util/random.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { sleep } from '../util/clock.js';

export { RETRYABLE_STATUSES } from '../errors/retryable.js';

export interface RetryConfig {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
  jitter: number;
}

/** Backoff before the attempt after 0-based attempt `i`. */
export function backoffMs(i: number, cfg: RetryConfig, random: Random): number {
  const base = Math.min(cfg.initialBackoffMs * cfg.multiplier ** i, cfg.maxBackoffMs);
  if (cfg.jitter <= 0) return base;
  const u = random.next() * 2 - 1; // U[-1, 1)
  return Math.max(0, base + Math.round(base * cfg.jitter * u));
}

/**
 * What one attempt reports back. A `retry` attempt has already released its leases; `error` is
 * what the client gets if no attempt is left. On its last attempt a router relays a retryable
 * upstream response instead of reporting `retry` (SMG returns the last response as is).
 */
export type AttemptResult =
  | {
      kind: 'done';
      /** the last attempt relayed a retryable answer: attempts are exhausted */ exhausted?: boolean;
    }
  | { kind: 'retry'; reason: string; error: GatewayError }
  /** A final error: answered at once, never retried. */
  | { kind: 'fail'; error: GatewayError };

export interface RetryHooks {
  onRetry(attempt: number, delayMs: number, reason: string): void;
  onExhausted(reason: string): void;
}

/**
 * Runs attempts until one is done or attempts run out; then throws the last attempt's error.
 * Backoff sleeps end early when the client goes away (the error then has no one to reach).
 */
export async function executeWithRetry(
  attempt: (index: number, isLast: boolean) => Promise<AttemptResult>,
  cfg: RetryConfig,
  random: Random,
  signal: AbortSignal,
  hooks: RetryHooks,
): Promise<void> {
  const max = Math.max(1, cfg.maxAttempts);
  for (let i = 0; ; i++) {
    const isLast = i + 1 >= max;
    const result = await attempt(i, isLast);
    if (result.kind === 'done') {
      if (result.exhausted && max > 1) hooks.onExhausted('retryable_status');
      return;
    }
    if (result.kind === 'fail') throw result.error;
    if (isLast) {
      if (max > 1) hooks.onExhausted(result.reason);
      throw result.error;
    }
    const delay = backoffMs(i, cfg, random);
    hooks.onRetry(i + 1, delay, result.reason);
    try {
      await sleep(delay, signal);
    } catch {
      throw result.error;
    }
  }
}
