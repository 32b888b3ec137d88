/**
 * One PD leg on the wire: send to a worker, and classify the response head as usable (2xx) or
 * a failure carrying the error the client would see. A leg owns its abort signal and load
 * lease; whoever holds the LegHandle releases them.
 */
import type { Dispatcher } from 'undici';
import type { Lease } from '../admission/lease.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { classifyTransportError } from '../upstream/errors.js';
import { AttemptSignal, readBodyText, sendUpstream } from '../upstream/forward.js';
import { buildUpstreamHeaders } from '../upstream/headers.js';
import type { UpstreamPools } from '../upstream/pools.js';
import { outcomeForStatus, type Outcome } from '../workers/circuit-breaker.js';
import type { Worker } from '../workers/worker.js';
import type { RequestContext } from '../routing/request-context.js';
import { legStatusError, legTransportError, type PdLeg } from './leg-errors.js';

export type LegHead =
  | { ok: true; response: Dispatcher.ResponseData }
  | { ok: false; error: GatewayError; outcome: Outcome; aborted: boolean };

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
  const path = ctx.path;
  const load = worker.acquireLoad();
  const signal = new AttemptSignal(ctx.signal, timeoutMs);
  const sentAt = performance.now();
  const head = (async (): Promise<LegHead> => {
    const pool = pools.get(worker.origin);
    if (!pool) return { ok: false, error: legTransportError(leg, 'connection', 'no connection pool'), outcome: 'neutral', aborted: false };
    try {
      const response = await sendUpstream({
        pool, method: 'POST', path, body, signal: signal.signal,
        headers: buildUpstreamHeaders(ctx.headers, ctx.requestId, worker.apiKey, body.length),
      });
      if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, response };
      const text = await readBodyText(response.body, 64 * 1024).catch(() => '');
      return { ok: false, error: legStatusError(leg, response.statusCode, text), outcome: outcomeForStatus(response.statusCode), aborted: false };
    } catch (err) {
      // Aborted by us (partner failed, client left): not this worker's fault.
      const aborted = signal.signal.aborted && !signal.deadlinePassed;
      const kind = classifyTransportError(err);
      return { ok: false, error: legTransportError(leg, kind, (err as Error).message), outcome: aborted ? 'neutral' : 'failure', aborted };
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
