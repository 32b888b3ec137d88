/**
 * One PD leg on the wire: send to a worker, and classify the response head as usable (2xx) or
 * a failure carrying the error the client would see. A leg owns its abort signal and load
 * lease; whoever holds the LegHandle releases them.
 */
import type { Dispatcher } from 'undici';
import type { Lease } from '../admission/lease.js';
import { GatewayError } from '../errors/gateway-error.js';
import { classifyTransportError, UpstreamBodyTooLargeError } from '../upstream/errors.js';
import { AttemptSignal, readBodyText, sendUpstream } from '../upstream/forward.js';
import { buildUpstreamHeaders } from '../upstream/headers.js';
import type { UpstreamPools } from '../upstream/pools.js';
import { outcomeForStatus, type Outcome } from '../workers/circuit-breaker.js';
import type { Worker } from '../workers/worker.js';
import type { RequestContext } from '../routing/request-context.js';
import type { AttemptResult } from '../routing/retry.js';
import { legBodyError, legStatusError, legTransportError, type PdLeg } from './leg-errors.js';

export type LegHead =
  | { ok: true; response: Dispatcher.ResponseData }
  | {
      ok: false;
      error: GatewayError;
      outcome: Outcome;
      aborted: boolean;
      /**
       * Already counted in `smg_pd_bootstrap_failures_total` and logged where it was detected
       * (the prefill drain), so the attempt's failure path must not count it again.
       */
      reported?: boolean;
    };

export type LegFailure = LegHead & { ok: false };

export interface LegHandle {
  readonly leg: PdLeg;
  readonly worker: Worker;
  readonly signal: AttemptSignal;
  readonly load: Lease;
  /** Held for exactly as long as this leg runs: the prefill admission slot, or the decode room claim. */
  readonly slot: Lease | undefined;
  readonly sentAt: number;
  readonly head: Promise<LegHead>;
}

/** Starts a leg. The load lease is taken now, synchronously with the caller's selection. */
export function startLeg(
  leg: PdLeg,
  worker: Worker,
  ctx: RequestContext,
  body: Buffer,
  pools: UpstreamPools,
  timeoutMs: number,
  slot?: Lease,
): LegHandle {
  const path = worker.upstreamPath(ctx.path);
  const load = worker.acquireLoad();
  const signal = new AttemptSignal(ctx.signal, timeoutMs);
  const sentAt = performance.now();
  const head = (async (): Promise<LegHead> => {
    const pool = pools.get(worker.origin);
    if (!pool)
      return {
        ok: false,
        error: legTransportError(leg, 'connection', 'no connection pool'),
        outcome: 'neutral',
        aborted: false,
      };
    try {
      const response = await sendUpstream({
        pool,
        method: 'POST',
        path,
        body,
        signal: signal.signal,
        headers: buildUpstreamHeaders(ctx, worker.apiKey, body.length),
      });
      if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, response };
      const text = await readBodyText(response.body, 64 * 1024).catch(() => '');
      return {
        ok: false,
        error: legStatusError(leg, response.statusCode, text),
        outcome: outcomeForStatus(response.statusCode),
        aborted: false,
      };
    } catch (err) {
      // Aborted by us (partner failed, client left): not this worker's fault.
      const aborted = signal.signal.aborted && !signal.deadlinePassed;
      const kind = classifyTransportError(err);
      return {
        ok: false,
        error: legTransportError(leg, kind, (err as Error).message),
        outcome: aborted ? 'neutral' : 'failure',
        aborted,
      };
    }
  })();
  return { leg, worker, signal, load, slot, sentAt, head };
}

/** Ends a leg: stops its request if still running and releases its lease and timer. */
export function closeLeg(h: LegHandle, reason: string): void {
  h.signal.abort(new Error(reason));
  h.signal.dispose();
  h.load.release();
  h.slot?.release();
}

/** The failure of a leg whose 2xx body failed before the gateway relayed any of it. */
export function bodyFailure(h: LegHandle, err: unknown): LegFailure {
  if (err instanceof UpstreamBodyTooLargeError) {
    // The gateway's own buffering limit, not the worker's fault: a retry would rerun the same
    // generation and hit it again, and the worker's breaker must not be charged.
    const error = new GatewayError(
      'upstream_response_too_large',
      `The ${h.leg} worker's answer is larger than the ${err.limit} bytes the gateway buffers to read it whole (a non-streamed PD answer with logprobs, or a prefill answer); not retried. Ask for less output, or stream the request`,
      { retryable: false },
    );
    return { ok: false, error, outcome: 'neutral', aborted: false };
  }
  // Aborted by us (partner failed, client left): not this worker's fault.
  const aborted = h.signal.signal.aborted && !h.signal.deadlinePassed;
  const detail = err instanceof Error ? err.message : String(err);
  return {
    ok: false,
    error: legBodyError(h.leg, classifyTransportError(err), detail),
    outcome: aborted ? 'neutral' : 'failure',
    aborted,
  };
}

/** A body that nobody reads yet, watched for a failure until `stop()`. */
export interface BodyWatch {
  /** Set (synchronously) once the body has failed. */
  readonly failure: LegFailure | undefined;
  /** Resolves when the body fails; never resolves if it does not. */
  readonly failed: Promise<LegFailure>;
  stop(): void;
}

/**
 * Watches a 2xx leg body that the gateway has not started to relay. Listening for 'error' does
 * not read the body, so the bytes still reach whoever relays it later; a body that already
 * failed (its 'error' event gone) is seen at once.
 */
export function watchUnrelayedBody(h: LegHandle, body: Dispatcher.ResponseData['body']): BodyWatch {
  let failure: LegFailure | undefined;
  let notify: (f: LegFailure) => void = () => undefined;
  const failed = new Promise<LegFailure>((resolve) => {
    notify = resolve;
  });
  const onError = (err: unknown): void => {
    const f = failure ?? bodyFailure(h, err);
    failure = f;
    notify(f);
  };
  if (body.errored || body.destroyed)
    onError(body.errored ?? new Error('the body closed before it was relayed'));
  else body.once('error', onError);
  return {
    get failure() {
      // destroy(err) sets `errored` at once but emits 'error' a tick later.
      if (failure === undefined && body.errored) onError(body.errored);
      return failure;
    },
    failed,
    stop: () => body.off('error', onError),
  };
}

/**
 * Ends an attempt on a failed leg: its breaker is told, its leases are released, and a
 * retryable error is retried on a new pair (the executor re-selects both legs).
 */
export function legFailure(h: LegHandle, failure: LegFailure): AttemptResult {
  h.worker.circuit.record(failure.outcome);
  closeLeg(h, 'failed');
  return failure.error.retryable
    ? { kind: 'retry', reason: failure.error.code, error: failure.error }
    : { kind: 'fail', error: failure.error };
}
