/**
 * One PD leg on the wire: send to a worker, and classify the response head as usable (2xx) or
 * a failure carrying the error the client would see. A leg owns its abort signal and load
 * lease; whoever holds the LegHandle releases them.
 */
import type { Lease } from '../util/lease.js';
import type { AttemptSpan, CallSpan } from '../observability/tracing.js';
import { GatewayError } from '../errors/gateway-error.js';
import { readAllText, type BodySource } from '../upstream/body-source.js';
import { classifyTransportError, UpstreamBodyTooLargeError } from '../upstream/errors.js';
import { buildUpstreamHeaders } from '../upstream/headers.js';
import { callUpstream, type UpstreamCall, type UpstreamHead } from '../upstream/upstream-call.js';
import { outcomeForStatus, type Outcome } from '../workers/circuit-breaker.js';
import type { Worker } from '../workers/worker.js';
import type { RequestContext } from '../routing/request-context.js';
import { legBodyError, legStatusError, legTransportError, type PdLeg } from './leg-errors.js';
import type { PdDeps } from './pd-deps.js';

export type LegHead =
  | { ok: true; response: UpstreamHead }
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
  /** The request on the wire; `abort()` stops it (a failed partner, a retired leg). */
  readonly call: UpstreamCall | undefined;
  readonly load: Lease;
  /** Held for exactly as long as this leg runs: the prefill admission slot, or the decode room claim. */
  readonly slot: Lease | undefined;
  readonly sentAt: number;
  readonly head: Promise<LegHead>;
  /** The leg's span (`--enable-trace`): the parent the worker's traceparent names. */
  readonly span: CallSpan | undefined;
}

/** Whether the gateway itself ended the leg (partner failed, client left), not its deadline. */
export function abortedByGateway(h: LegHandle): boolean {
  return h.call !== undefined && h.call.aborted && !h.call.deadlinePassed;
}

/**
 * Starts a leg. The load lease is taken now, synchronously with the caller's selection. With
 * tracing on, the leg gets a span under its attempt's (`attempt`).
 */
export function startLeg(
  leg: PdLeg,
  worker: Worker,
  ctx: RequestContext,
  body: Buffer,
  deps: Pick<PdDeps, 'pools' | 'requestTimeoutMs' | 'clock'>,
  slot?: Lease,
  attempt?: AttemptSpan,
): LegHandle {
  const load = worker.acquireLoad();
  const sentAt = performance.now();
  const span = attempt?.startLeg(leg, worker.url);
  const pool = deps.pools.get(worker.origin);
  if (!pool) {
    const head = Promise.resolve<LegHead>({
      ok: false,
      error: legTransportError(leg, 'connection', 'no connection pool'),
      outcome: 'neutral',
      aborted: false,
    });
    return { leg, worker, call: undefined, load, slot, sentAt, head, span };
  }
  const call = callUpstream(
    pool,
    {
      method: 'POST',
      path: worker.upstreamPath(ctx.path),
      body,
      headers: buildUpstreamHeaders(ctx, worker.apiKey, body.length, span?.traceparent()),
    },
    ctx.signal,
    deps.requestTimeoutMs,
    deps.clock,
  );
  const head = call.head.then(
    async (response): Promise<LegHead> => {
      span?.set('http.response.status_code', response.status);
      if (response.status >= 200 && response.status < 300) return { ok: true, response };
      const text = await readAllText(response.body, 64 * 1024).catch(() => '');
      return {
        ok: false,
        error: legStatusError(leg, response.status, text),
        outcome: outcomeForStatus(response.status),
        aborted: false,
      };
    },
    (err: unknown): LegHead => {
      // Aborted by us (partner failed, client left): not this worker's fault.
      const aborted = call.aborted && !call.deadlinePassed;
      return {
        ok: false,
        error: legTransportError(leg, classifyTransportError(err), (err as Error).message),
        outcome: aborted ? 'neutral' : 'failure',
        aborted,
      };
    },
  );
  return { leg, worker, call, load, slot, sentAt, head, span };
}

/** Ends a leg: stops its request if still running and releases its lease and slot. */
export function closeLeg(h: LegHandle, reason: string): void {
  // A span already ended with a sharper outcome (failed, the answer's end) keeps it.
  h.span?.end(reason);
  // A finished call needs no abort, and an Error (with its stack) is not cheap to make.
  if (h.call !== undefined && !h.call.done) h.call.abort(new Error(reason));
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
  const aborted = abortedByGateway(h);
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
  /** Set once the body has failed. */
  readonly failure: LegFailure | undefined;
  /** Resolves when the body fails; never resolves if it does not. */
  readonly failed: Promise<LegFailure>;
  stop(): void;
}

/**
 * Watches a 2xx leg body that the gateway has not started to relay. Watching does not read the
 * body, so its bytes still reach whoever relays it later; a body that already failed is seen at
 * once.
 */
export function watchUnrelayedBody(h: LegHandle, body: BodySource): BodyWatch {
  let failure: LegFailure | undefined;
  let notify: (f: LegFailure) => void = () => undefined;
  const failed = new Promise<LegFailure>((resolve) => {
    notify = resolve;
  });
  const stop = body.onFailure((err) => {
    const f = failure ?? bodyFailure(h, err);
    failure = f;
    notify(f);
  });
  return {
    get failure() {
      return failure;
    },
    failed,
    stop,
  };
}

/**
 * Ends an attempt on a failed leg: its breaker is told and its leases are released. Returns the
 * error for the attempt to throw; a retryable one is retried on a new pair (the retry decorator
 * re-selects both legs).
 */
export function legFailure(h: LegHandle, failure: LegFailure): GatewayError {
  h.span?.end('failed', failure.error.code);
  h.worker.circuit.record(failure.outcome);
  closeLeg(h, 'failed');
  return failure.error;
}
