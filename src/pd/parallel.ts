/**
 * SGLang/TokenSpeed PD: both legs carry the same bootstrap triple and are sent at once; the
 * decode's response is what the client gets. Fail fast: the first leg that fails answers the
 * client immediately and its partner is aborted at once (its connection closes, so the engine
 * frees the room instead of holding it until its own deadline). The partner is then "retired"
 * off the request path: its outcome, bounded in time, still reaches its own breaker and the log.
 */
import type { ServerResponse } from 'node:http';
import type { Lease } from '../admission/lease.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { AttemptResult } from '../routing/retry.js';
import type { RequestContext } from '../routing/request-context.js';
import type { UpstreamPools } from '../upstream/pools.js';
import type { Worker } from '../workers/worker.js';
import { planBootstrap, serializeWithBootstrap, type LegFields } from './bootstrap.js';
import {
  closeLeg,
  legFailure,
  startLeg,
  watchUnrelayedBody,
  type BodyWatch,
  type LegFailure,
  type LegHandle,
  type LegHead,
} from './leg.js';
import { relayDecode } from './decode-relay.js';

/** How long a retired partner leg may take to settle before it is let go. */
const RETIRE_TIMEOUT_MS = 5_000;

export interface PdDeps {
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  logger: Logger;
  requestTimeoutMs: number;
}

export interface Pair {
  prefill: Worker;
  decode: Worker;
}

function rankFields(pair: Pair): { prefill: LegFields; decode: LegFields } {
  const prefill: LegFields = {};
  const decode: LegFields = {};
  if (pair.prefill.dpRank !== undefined) {
    prefill.routed_dp_rank = pair.prefill.dpRank;
    decode.disagg_prefill_dp_rank = pair.prefill.dpRank;
  }
  if (pair.decode.dpRank !== undefined) decode.routed_dp_rank = pair.decode.dpRank;
  return { prefill, decode };
}

type Race =
  | { kind: 'both'; prefill: LegHead & { ok: true }; decode: LegHead & { ok: true } }
  | { kind: 'failed'; failed: LegHandle; head: LegFailure; partner: LegHandle };

/**
 * Resolves when both heads are usable, or at the first failure. A leg whose head came first
 * and whose body then fails while its partner is still answering has failed too: none of it
 * reached the client, so it fails the pair now instead of when the partner answers.
 */
function firstFailureOrBoth(p: LegHandle, d: LegHandle): Promise<Race> {
  return new Promise((resolve) => {
    let pHead: (LegHead & { ok: true }) | undefined;
    let dHead: (LegHead & { ok: true }) | undefined;
    const watches: BodyWatch[] = [];
    let done = false;
    const finish = (race: Race): void => {
      done = true;
      for (const w of watches) w.stop();
      resolve(race);
    };
    const settle = (h: LegHandle, head: LegHead): void => {
      if (done) return;
      if (!head.ok) {
        finish({ kind: 'failed', failed: h, head, partner: h === p ? d : p });
        return;
      }
      if (h === p) pHead = head;
      else dHead = head;
      if (pHead && dHead) {
        finish({ kind: 'both', prefill: pHead, decode: dHead });
        return;
      }
      const watch = watchUnrelayedBody(h, head.response.body);
      watches.push(watch);
      if (watch.failure) settle(h, watch.failure);
      else void watch.failed.then((failure) => settle(h, failure));
    };
    void p.head.then((head) => settle(p, head));
    void d.head.then((head) => settle(d, head));
  });
}

/** Aborts a partner leg and, off the request path, records how it ended. */
function retire(partner: LegHandle, cause: string, logger: Logger): void {
  partner.signal.abort(new Error(`partner leg failed: ${cause}`));
  const timeout = new Promise<undefined>((resolve) => {
    setTimeout(() => resolve(undefined), RETIRE_TIMEOUT_MS).unref();
  });
  void Promise.race([partner.head, timeout]).then((head) => {
    if (head?.ok) {
      head.response.body.on('error', () => undefined);
      head.response.body.destroy();
      partner.worker.circuit.record('success');
    } else if (head) {
      partner.worker.circuit.record(head.outcome);
      if (!head.aborted)
        logger.warn(
          { leg: partner.leg, worker: partner.worker.url, err: head.error.message },
          'retired PD leg had failed too',
        );
    }
    closeLeg(partner, 'retired');
  });
}

export async function dispatchParallel(
  ctx: RequestContext,
  pair: Pair,
  res: ServerResponse,
  deps: PdDeps,
  slot?: Lease,
  claim?: Lease,
): Promise<AttemptResult> {
  const plan = planBootstrap(ctx.endpoint, ctx.body, pair.prefill.url, pair.prefill.bootstrapPort);
  const ranks = rankFields(pair);
  const prefillBody = serializeWithBootstrap(ctx.body, plan, ranks.prefill);
  const decodeBody = serializeWithBootstrap(ctx.body, plan, ranks.decode);
  // Both leases are taken in this synchronous step, right after selection.
  const p = startLeg(
    'prefill',
    pair.prefill,
    ctx,
    prefillBody,
    deps.pools,
    deps.requestTimeoutMs,
    slot,
  );
  const d = startLeg(
    'decode',
    pair.decode,
    ctx,
    decodeBody,
    deps.pools,
    deps.requestTimeoutMs,
    claim,
  );
  const race = await firstFailureOrBoth(p, d);

  if (race.kind === 'failed') {
    retire(race.partner, race.head.error.code, deps.logger);
    return failPair(ctx, race.failed, race.head, deps);
  }

  const labels = { backend_type: 'pd', model: ctx.modelLabel, runtime: pair.prefill.runtime };
  deps.metrics.pdTtft.observe(labels, (performance.now() - p.sentAt) / 1000);
  const relayed = await relayDecode({
    ctx,
    res,
    deps,
    prefill: p,
    decode: d,
    prefillResponse: race.prefill.response,
    decodeResponse: race.decode.response,
    labels,
  });
  // The relay already cut and drained the prefill partner.
  return relayed.kind === 'relayed' ? { kind: 'done' } : failPair(ctx, d, relayed.failure, deps);
}

/** A pair whose leg failed before the client got a byte: the attempt answers or retries it. */
function failPair(
  ctx: RequestContext,
  failed: LegHandle,
  failure: LegFailure,
  deps: PdDeps,
): AttemptResult {
  const result = legFailure(failed, failure);
  if (ctx.signal.aborted) return { kind: 'done' };
  // One failed pair is one count and one warning, wherever it was first seen.
  if (failure.reported === true) return result;
  deps.metrics.pdBootstrapFailures.inc();
  deps.logger.warn(
    {
      leg: failed.leg,
      worker: failed.worker.url,
      requestId: ctx.requestId,
      err: failure.error.message,
    },
    'PD leg failed',
  );
  return result;
}
