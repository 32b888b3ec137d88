/**
 * Regular routing to gRPC workers: the gateway owns the tokenizer and the chat template, sends
 * token ids to the engine (`Generate`, server-streaming) and turns the ids it gets back into
 * OpenAI JSON or SSE. Each attempt selects a worker, takes its load lease and starts the call
 * inside the retry decorator, so a start failure with a retryable status (UNAVAILABLE, …) is
 * retried on another worker; once the stream has started, failures are SSE error events. A call
 * that does not end cleanly (client gone, stream error) is disposed, which sends the engine
 * `Abort`.
 */
import type { EngineClient, GenerateCall } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { workerTraceContext } from '../observability/trace-context.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import type { Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import { withRetry, type RetryConfig } from '../routing/retry.js';
import { retryMetricHooks, withRouterMetrics } from '../routing/router-metrics.js';
import { routerSeriesOf, type RouterSeries } from '../routing/router-series.js';
import { selectRegularWorker } from '../routing/select-regular.js';
import type { Clock, Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import { outcomeForStatus } from '../workers/circuit-breaker.js';
import type { Worker } from '../workers/worker.js';
import { answerFromCall } from './call-answer.js';
import { startFailure } from './engine-errors.js';
import { chatParsingFor, type ModelParsers } from './chat-parsing.js';
import {
  engineInput,
  freshRequestId,
  modelIdFor,
  preparedFor,
  responseMeta,
  type TokenizerLookup,
} from './engine-input.js';
import { startedInTime } from './start-wait.js';
import { planFor, type GrpcPlan } from './plan.js';
import type { PreparedPrompt } from './prepare.js';
import { withModelDefaults } from './sampling.js';

export interface GrpcRouterDeps {
  registry: WorkerRegistry;
  policies: PolicyRegistry;
  metrics: GatewayMetrics;
  logger: Logger;
  random: Random;
  clock: Clock;
  retry: RetryConfig;
  /** `--request-timeout-secs`: how long an engine may take to start a stream. */
  requestTimeoutMs: number;
  overloadRetryAfterSecs: number;
  /** The engine client of a registered gRPC worker (workers/engine-clients.ts). */
  engines: { get(worker: Worker): EngineClient };
  /** The tokenizer registered for a model id. */
  tokenizers: TokenizerLookup;
  /** Tool-call and reasoning parsers by model (chat answers). */
  parsers?: ModelParsers | undefined;
}

export class GrpcRouter {
  constructor(private readonly deps: GrpcRouterDeps) {}

  async route(ctx: RequestContext): Promise<Answer> {
    const { metrics } = this.deps;
    const series = routerSeriesOf(metrics).router(
      'regular',
      ctx.modelLabel,
      ctx.endpointLabel,
      'grpc',
    );
    const prepared = new Map<string, PreparedPrompt>();
    return withRouterMetrics(metrics, series, ctx, () => {
      // Bad input is refused before any worker is chosen (and counted as the router's error,
      // as the relay's are), and never retried.
      const plan = planFor(ctx);
      return withRetry(
        (_, span) => this.#attempt(ctx, plan, prepared, series, span),
        this.deps.retry,
        {
          random: this.deps.random,
          signal: ctx.signal,
          hooks: retryMetricHooks(metrics, ['regular'], ctx),
          clock: this.deps.clock,
          trace: ctx.trace,
        },
      );
    });
  }

  async #attempt(
    ctx: RequestContext,
    plan: GrpcPlan,
    cache: Map<string, PreparedPrompt>,
    series: RouterSeries,
    span: AttemptSpan | undefined,
  ): Promise<Answer> {
    const { metrics } = this.deps;
    const worker = selectRegularWorker(this.deps, ctx, 'grpc');
    span?.set('switchyard.worker.url', worker.url);
    const prepared = preparedFor(this.deps.tokenizers, ctx, plan, [worker], cache);
    const client = this.deps.engines.get(worker);
    // The request's sampling with the model's defaults: what the stop decoders enforce. The
    // engine request may differ (SGLang gets single-token stops as ids), but the client's stop
    // strings stay strings here, so `matched_stop` names what the client asked for (SMG builds
    // its decoders from the original request).
    const sampling = withModelDefaults(plan.sampling, worker.labels.default_sampling_params_json);
    // SMG: the client's `rid` as-is outside PD, else a fresh id per dispatch.
    const requestId = ctx.rid ?? freshRequestId(ctx);
    const input = engineInput(plan, prepared, worker, sampling, requestId);
    const load = worker.acquireLoad();
    let call: GenerateCall;
    try {
      call = client.generate(input, workerTraceContext(ctx.headers, span?.traceparent()));
    } catch (err) {
      // Building or serializing the engine request failed before any call existed.
      load.release();
      throw err;
    }
    try {
      await startedInTime(call, ctx.signal, this.deps.clock, this.deps.requestTimeoutMs);
    } catch (err) {
      call.dispose();
      // A call that timed out before it started may still be queued in the engine.
      void call.closed.then(() => load.release());
      if (ctx.signal.aborted) throw err;
      const error = err instanceof GatewayError ? err : startFailure(err, worker.url);
      worker.circuit.record(outcomeForStatus(error.status));
      metrics.workerErrors.inc({
        worker_type: worker.type,
        connection_mode: 'grpc',
        error_type: 'start',
      });
      throw error;
    }
    routerSeriesOf(metrics).upstreamStatus(200, 'grpc').inc();
    return answerFromCall(this.deps, {
      ctx,
      plan,
      prepared,
      sampling,
      worker,
      call,
      meta: responseMeta(ctx, requestId, worker, prepared),
      leases: [],
      heldByCall: [load],
      parsing: chatParsingFor(plan, prepared.text, modelIdFor(ctx, worker), this.deps.parsers),
      onFirstByte: () => series.ttft.observe((performance.now() - ctx.startTime) / 1000),
    });
  }
}
