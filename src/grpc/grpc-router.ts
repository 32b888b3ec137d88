/**
 * Regular routing to gRPC workers: the gateway owns the tokenizer and the chat template, sends
 * token ids to the engine (`Generate`, server-streaming) and turns the ids it gets back into
 * OpenAI JSON or SSE. Each attempt selects a worker, takes its load lease and starts the call
 * inside the retry decorator, so a start failure with a retryable status (UNAVAILABLE, …) is
 * retried on another worker; once the stream has started, failures are SSE error events. A call
 * that does not end cleanly (client gone, stream error) is disposed, which sends the engine
 * `Abort`.
 */
import type { EngineClient, GenerateCall, GenerateInput, SamplingInput } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import { bufferAnswer, type Answer, type AnswerLease } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import { withRetry, type RetryConfig } from '../routing/retry.js';
import { retryMetricHooks, withRouterMetrics } from '../routing/router-metrics.js';
import { routerSeriesOf, type RouterSeries } from '../routing/router-series.js';
import { selectRegularWorker } from '../routing/select-regular.js';
import type { ModelTokenizer } from '../tokenizer/types.js';
import { uuidv7 } from '../util/uuid7.js';
import type { Clock, Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import { outcomeForStatus } from '../workers/circuit-breaker.js';
import type { Worker } from '../workers/worker.js';
import { ChoiceState } from './choice.js';
import { collect } from './collect.js';
import { startFailure, streamFailure } from './engine-errors.js';
import { startedInTime } from './start-wait.js';
import type { ResponseMeta } from './formats.js';
import { planFor, type GrpcPlan } from './plan.js';
import {
  checkContextLength,
  foldSingleTokenStops,
  preparePrompt,
  stopConfig,
  tokenizerNotFound,
  type PreparedPrompt,
} from './prepare.js';
import { withModelDefaults } from './sampling.js';
import { GenerateStreamBody, type StreamOutcome } from './stream-body.js';

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
  tokenizers: { get(modelId: string): ModelTokenizer | undefined };
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
} as const;

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
      return withRetry(() => this.#attempt(ctx, plan, prepared, series), this.deps.retry, {
        random: this.deps.random,
        signal: ctx.signal,
        hooks: retryMetricHooks(metrics, ['regular'], ctx),
        clock: this.deps.clock,
      });
    });
  }

  /** The model's tokenizer: the request's model, else (no model named) the worker's. */
  #prepare(
    ctx: RequestContext,
    plan: GrpcPlan,
    worker: Worker,
    cache: Map<string, PreparedPrompt>,
  ): PreparedPrompt {
    const modelId = ctx.model !== 'unknown' ? ctx.model : worker.modelId;
    let p = cache.get(modelId);
    if (p === undefined) {
      const tokenizer = this.deps.tokenizers.get(modelId);
      if (tokenizer === undefined) throw tokenizerNotFound(modelId);
      p = preparePrompt(plan, tokenizer);
      cache.set(modelId, p);
    }
    checkContextLength(p, worker.labels);
    return p;
  }

  async #attempt(
    ctx: RequestContext,
    plan: GrpcPlan,
    cache: Map<string, PreparedPrompt>,
    series: RouterSeries,
  ): Promise<Answer> {
    const { metrics } = this.deps;
    const worker = selectRegularWorker(this.deps, ctx, 'grpc');
    const prepared = this.#prepare(ctx, plan, worker, cache);
    const client = this.deps.engines.get(worker);
    // The request's sampling with the model's defaults: what the stop decoders enforce. The
    // engine request may differ (SGLang gets single-token stops as ids), but the client's stop
    // strings stay strings here, so `matched_stop` names what the client asked for (SMG builds
    // its decoders from the original request).
    const sampling = withModelDefaults(plan.sampling, worker.labels.default_sampling_params_json);
    const input = this.#input(ctx, plan, prepared, worker, sampling);
    const load = worker.acquireLoad();
    let call: GenerateCall;
    try {
      call = client.generate(input);
    } catch (err) {
      // Building or serializing the engine request failed before any call existed.
      load.release();
      throw err;
    }
    try {
      await startedInTime(call, ctx.signal, this.deps.clock, this.deps.requestTimeoutMs);
    } catch (err) {
      call.dispose();
      load.release();
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
    const meta = this.#meta(ctx, input.requestId, worker, prepared);
    // One config object for every sample: the decoders compile it once.
    const stops = stopConfig(sampling, prepared.tokenizer);
    const newChoice = (index: number) =>
      new ChoiceState(index, prepared.tokenizer.stopDecoder(stops), plan.logprobs !== undefined);
    const headers = {
      'x-request-id': ctx.requestId,
      'x-smg-routed-worker-id': worker.key,
    };
    if (!plan.stream) {
      const onGone = () => call.dispose();
      ctx.signal.addEventListener('abort', onGone, { once: true });
      try {
        const body = await collect(call, plan, meta, newChoice, prepared, ctx.startTime);
        // The client left while the samples were collected: nobody to answer, and the engine
        // did nothing wrong (its call was disposed, so what was collected may be partial).
        if (ctx.signal.aborted) throw ctx.signal.reason;
        call.markCompleted();
        worker.circuit.record('success');
        return bufferAnswer(
          200,
          { ...JSON_HEADERS, ...headers },
          Buffer.from(JSON.stringify(body)),
          {
            routedTo: worker,
            leases: [load],
            midStreamError: (cause) => streamFailure(cause, worker.url),
          },
        );
      } catch (err) {
        call.dispose();
        load.release();
        // A client that leaves ends the collection early (the call is disposed): not the
        // worker's failure, so its breaker hears nothing.
        if (ctx.signal.aborted) throw err;
        if (err instanceof GatewayError) {
          if (err.retryable) worker.circuit.record('failure');
          throw err;
        }
        const error = streamFailure(err, worker.url);
        worker.circuit.record(outcomeForStatus(error.status));
        throw error;
      } finally {
        ctx.signal.removeEventListener('abort', onGone);
      }
    }
    let outcome: { end: StreamOutcome; error?: unknown } | undefined;
    const body = new GenerateStreamBody({
      call,
      plan,
      meta,
      choice: newChoice,
      echoText: prepared.text,
      startTime: ctx.startTime,
      onEnd: (end, error) => {
        outcome = { end, error };
      },
    });
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...headers },
      body,
      eventStream: true,
      routedTo: worker,
      leases: [load, this.#streamLease(ctx, worker, call, () => outcome)],
      midStreamError: (cause) => streamFailure(cause, worker.url),
      onFirstByte: () => series.ttft.observe((performance.now() - ctx.startTime) / 1000),
    };
  }

  /**
   * Ends the call with its answer: a stream the body finished is already marked completed; any
   * other end (client gone, a failed or discarded answer) disposes it, which sends `Abort`. The
   * breaker hears a mid-stream failure as a failure (SMG records only the start, and keeps
   * routing to a worker whose streams die).
   */
  #streamLease(
    ctx: RequestContext,
    worker: Worker,
    call: GenerateCall,
    outcome: () => { end: StreamOutcome; error?: unknown } | undefined,
  ): AnswerLease {
    const { metrics, logger } = this.deps;
    return {
      release: (end) => {
        const o = outcome();
        if (end !== 'complete' || o?.end !== 'complete') call.dispose();
        if (o?.end === 'failed') {
          worker.circuit.record('failure');
          metrics.workerErrors.inc({
            worker_type: worker.type,
            connection_mode: 'grpc',
            error_type: 'stream',
          });
          logger.warn(
            { worker: worker.url, requestId: ctx.requestId, err: String(o.error) },
            'gRPC worker failed mid-stream',
          );
        } else if (end === 'complete' && o?.end === 'complete') {
          worker.circuit.record('success');
        }
      },
    };
  }

  #input(
    ctx: RequestContext,
    plan: GrpcPlan,
    prepared: PreparedPrompt,
    worker: Worker,
    requested: SamplingInput,
  ): GenerateInput {
    const sampling =
      worker.runtime === 'sglang' ? foldSingleTokenStops(requested, prepared.tokenizer) : requested;
    return {
      kind: plan.kind,
      // SMG: the client's `rid` as-is outside PD, else the request id plus a UUIDv7, so every
      // dispatch has its own engine id.
      requestId: ctx.rid ?? `${ctx.requestId}-${uuidv7()}`,
      inputIds: prepared.inputIds,
      originalText: prepared.text,
      stream: plan.stream,
      sampling,
      logprobs: plan.logprobs,
      dataParallelRank: worker.dpRank,
    };
  }

  #meta(
    ctx: RequestContext,
    requestId: string,
    worker: Worker,
    prepared: PreparedPrompt,
  ): ResponseMeta {
    const tokenizer = prepared.tokenizer;
    return {
      id: requestId,
      model: ctx.model !== 'unknown' ? ctx.model : worker.modelId,
      created: Math.floor(Date.now() / 1000),
      fingerprint: worker.labels.weight_version ?? 'default',
      tokenText: (id) => tokenizer.decode([id], false),
    };
  }
}
