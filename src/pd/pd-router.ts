/**
 * The HTTP PD router: picks a prefill and a decode worker with their own policies (run
 * independently on the same request context), then dispatches by the prefill's runtime: vLLM
 * in sequence, SGLang/TokenSpeed in parallel. Each retry re-selects the whole pair and mints
 * fresh rooms; every attempt releases its leases before the executor backs off.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { RequestContext } from '../routing/request-context.js';
import { withRetry, type RetryConfig } from '../routing/retry.js';
import type { Answer } from '../routing/answer.js';
import type { PrefillSlot } from '../admission/prefill-admission.js';
import type { DecodeClaim, WaitBudget } from '../admission/decode-admission.js';
import { batchSize } from './bootstrap.js';
import { samplingN } from './sanitize.js';
import type { Router } from '../routing/router.js';
import { retryMetricHooks, routerSeries, withRouterMetrics } from '../routing/router-metrics.js';
import type { Random } from '@switchyard/kit';
import { dispatchParallel } from './parallel.js';
import type { Pair, PdDeps } from './pd-deps.js';
import { dispatchSequential } from './sequential.js';
import { dispatchPaced } from './paced.js';
import { PairSelector, type AdmittedPair, type PairSelectorDeps } from './pair-selector.js';

export interface PdRouterDeps extends PdDeps, PairSelectorDeps {
  random: Random;
  retry: RetryConfig;
}

export class PdRouter implements Router {
  readonly type = 'http-pd' as const;
  readonly #selector: PairSelector;

  constructor(private readonly deps: PdRouterDeps) {
    this.#selector = new PairSelector(deps, 'http');
  }

  /**
   * One attempt: the pair through admission, then the dispatch; on success the legs hold the
   * slot and the claim until their answer ends.
   */
  async #attempt(
    ctx: RequestContext,
    budget: WaitBudget | undefined,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    let admitted: AdmittedPair | undefined;
    try {
      admitted = await this.#selector.acquire(ctx, roomsFor(ctx), budget);
      return await this.#dispatch(ctx, admitted.pair, admitted.slot, admitted.claim, span);
    } catch (err) {
      // Normally released when their legs end; this covers every other exit.
      admitted?.slot?.release();
      admitted?.claim?.release();
      // The client left: nobody to answer, and nothing to retry.
      throw ctx.signal.aborted ? ctx.signal.reason : err;
    }
  }

  #dispatch(
    ctx: RequestContext,
    pair: Pair,
    slot: PrefillSlot | undefined,
    claim: DecodeClaim | undefined,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    if (claim && claim.granted < claim.requested) {
      // Wider than the window: paced chunks inside this one claim and one prefill slot.
      if (pair.prefill.runtime === 'vllm')
        throw new GatewayError(
          'invalid_body',
          `This request needs ${claim.requested} decode sequences but the decode running window is ${claim.granted}; send at most ${claim.granted} samples per request`,
          { retryable: false },
        );
      return this.#paced(ctx, pair, slot, claim, span);
    }
    return pair.prefill.runtime === 'vllm'
      ? dispatchSequential(ctx, pair, this.deps, slot, claim, span)
      : dispatchParallel(ctx, pair, this.deps, slot, claim, span);
  }

  /** Paced chunks hold the request's one slot and claim until the merged answer is written. */
  async #paced(
    ctx: RequestContext,
    pair: Pair,
    slot: PrefillSlot | undefined,
    claim: DecodeClaim,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    const answer = await dispatchPaced(
      ctx,
      claim.granted,
      (chunk) => dispatchParallel(chunk, pair, this.deps, undefined, undefined, span),
      pair.decode,
    );
    if (slot) answer.leases.push(slot);
    answer.leases.push(claim);
    return answer;
  }

  async route(ctx: RequestContext): Promise<Answer> {
    const { metrics } = this.deps;
    const series = routerSeries(metrics, 'pd', ctx);
    // One wait budget per client request, shared by every attempt: retries never multiply it.
    const budget = this.deps.decodeAdmission?.newBudget();
    return withRouterMetrics(metrics, series, ctx, () =>
      withRetry((_, span) => this.#attempt(ctx, budget, span), this.deps.retry, {
        random: this.deps.random,
        signal: ctx.signal,
        hooks: retryMetricHooks(metrics, ['prefill', 'decode'], ctx),
        clock: this.deps.clock,
        trace: ctx.trace,
        attemptCallsWorker: false,
      }),
    );
  }
}

/** Decode sequences a request will run: one per batch item, or one per sample (`n`). */
function roomsFor(ctx: RequestContext): number {
  return batchSize(ctx.endpoint, ctx.body) ?? samplingN(ctx.body);
}
