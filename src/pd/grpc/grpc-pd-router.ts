/**
 * The gRPC PD router: the same pair selection and admission as the HTTP PD router (one
 * PairSelector over gRPC workers), then the gateway's own tokenization and the engines' gRPC PD
 * protocols: SGLang and TokenSpeed in parallel with a bootstrap rendezvous, vLLM in sequence
 * with a `kv_transfer_params_json` handoff. Each retry re-selects the pair, takes admission
 * again, and mints a fresh room and a fresh engine request id.
 */
import type { Random } from '@switchyard/kit';
import type { WaitBudget } from '../../admission/decode-admission.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AttemptSpan } from '../../observability/tracing.js';
import { preparedFor, type TokenizerLookup } from '../../grpc/engine-input.js';
import { planFor, type GrpcPlan } from '../../grpc/plan.js';
import type { PreparedPrompt } from '../../grpc/prepare.js';
import { withModelDefaults } from '../../grpc/sampling.js';
import type { Answer } from '../../routing/answer.js';
import type { RequestContext } from '../../routing/request-context.js';
import { withRetry, type RetryConfig } from '../../routing/retry.js';
import { retryMetricHooks, withRouterMetrics } from '../../routing/router-metrics.js';
import { routerSeriesOf } from '../../routing/router-series.js';
import { PairSelector, type AdmittedPair, type PairSelectorDeps } from '../pair-selector.js';
import type { GrpcPdDeps } from './grpc-pd-deps.js';
import { dispatchGrpcParallel } from './grpc-parallel.js';
import { dispatchGrpcSequential } from './grpc-sequential.js';

export interface GrpcPdRouterDeps extends GrpcPdDeps, PairSelectorDeps {
  random: Random;
  retry: RetryConfig;
  tokenizers: TokenizerLookup;
}

export class GrpcPdRouter {
  readonly #selector: PairSelector;

  constructor(private readonly deps: GrpcPdRouterDeps) {
    this.#selector = new PairSelector(deps, 'grpc');
  }

  route(ctx: RequestContext): Promise<Answer> {
    const { metrics } = this.deps;
    const series = routerSeriesOf(metrics).router('pd', ctx.modelLabel, ctx.endpointLabel, 'grpc');
    // One wait budget per client request, shared by every attempt: retries never multiply it.
    const budget = this.deps.decodeAdmission?.newBudget();
    const prepared = new Map<string, PreparedPrompt>();
    return withRouterMetrics(metrics, series, ctx, () => {
      // Bad input is refused before any worker is chosen or admission is taken.
      const plan = planFor(ctx);
      return withRetry(
        (_, span) => this.#attempt(ctx, plan, prepared, budget, span),
        this.deps.retry,
        {
          random: this.deps.random,
          signal: ctx.signal,
          hooks: retryMetricHooks(metrics, ['prefill', 'decode'], ctx),
          clock: this.deps.clock,
          trace: ctx.trace,
          attemptCallsWorker: false,
        },
      );
    });
  }

  async #attempt(
    ctx: RequestContext,
    plan: GrpcPlan,
    cache: Map<string, PreparedPrompt>,
    budget: WaitBudget | undefined,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    let admitted: AdmittedPair | undefined;
    try {
      // A prompt the model's tokenizer refuses is answered before the request queues for a pair
      // (a model with no tokenizer is left to selection, which says whether it has workers).
      if (ctx.model !== 'unknown' && this.deps.tokenizers.get(ctx.model) !== undefined)
        preparedFor(this.deps.tokenizers, ctx, plan, [], cache);
      admitted = await this.#selector.acquire(ctx, plan.sampling.n, budget);
      const { pair, claim } = admitted;
      if (claim && claim.granted < claim.requested)
        throw new GatewayError(
          'invalid_body',
          `This request needs ${claim.requested} decode sequences but the decode running window is ${claim.granted}; send at most ${claim.granted} samples per request`,
          { retryable: false },
        );
      const prepared = preparedFor(
        this.deps.tokenizers,
        ctx,
        plan,
        [pair.prefill, pair.decode],
        cache,
      );
      const sampling = withModelDefaults(
        plan.sampling,
        pair.decode.labels.default_sampling_params_json,
      );
      const attempt = { ctx, plan, prepared, sampling, pair, admitted, span };
      const runtime = pair.prefill.runtime;
      if (runtime === 'vllm') return await dispatchGrpcSequential(this.deps, attempt);
      if (runtime === 'sglang' || runtime === 'tokenspeed')
        return await dispatchGrpcParallel(this.deps, attempt);
      throw new GatewayError(
        'runtime_pd_not_supported',
        `PD over gRPC is not supported for the ${runtime} runtime of ${pair.prefill.url}`,
        { retryable: false },
      );
    } catch (err) {
      // What no leg took is released here; a leg releases its own when its call is over.
      admitted?.slot?.release();
      admitted?.claim?.release();
      // The client left: nobody to answer, and nothing to retry.
      throw ctx.signal.aborted ? ctx.signal.reason : err;
    }
  }
}
