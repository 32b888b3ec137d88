/**
 * The client's answer from a started `Generate` call: collected into one JSON body, or streamed
 * as SSE with the client's backpressure. Shared by the regular gRPC router and the gRPC PD
 * router (whose decode call is the one answering). The given leases ride on the answer and are
 * released when it ends, or at once when collecting fails; what counts the engine's work (the
 * worker's load, a decode room) is given back only once the call is closed as well. A call that
 * does not end cleanly (client gone, stream error, answer discarded) is disposed, which sends the
 * engine `Abort`.
 */
import type { GenerateCall, SamplingInput } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { bufferAnswer, type Answer, type AnswerEnd, type AnswerLease } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import { outcomeForStatus } from '../workers/circuit-breaker.js';
import type { Lease } from '../util/lease.js';
import type { Worker } from '../workers/worker.js';
import { ChatOutput, type ChatParsing } from './chat-output.js';
import { ChoiceState } from './choice.js';
import { collect } from './collect.js';
import { streamFailure } from './engine-errors.js';
import type { ResponseMeta } from './formats.js';
import type { GrpcPlan } from './plan.js';
import { stopConfig, type PreparedPrompt } from './prepare.js';
import { GenerateStreamBody, type StreamOutcome } from './stream-body.js';
import { MessagesFramer } from './messages/messages-framer.js';
import { ResponsesFramer } from './responses/responses-framer.js';
import { OpenAiFramer } from './openai-framer.js';
import type { StreamFramer } from './stream-framer.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
} as const;

export interface CallAnswerDeps {
  metrics: GatewayMetrics;
  logger: Logger;
}

export interface CallAnswerInput {
  ctx: RequestContext;
  plan: GrpcPlan;
  prepared: PreparedPrompt;
  /** The client's sampling with the model's defaults: what the stop decoders enforce. */
  sampling: SamplingInput;
  /** The worker whose call answers; its breaker hears how the answer ended. */
  worker: Worker;
  call: GenerateCall;
  meta: ResponseMeta;
  /** Extra response headers (the PD prefill worker's id). */
  headers?: Record<string, string> | undefined;
  /** Held until the answer ends; released here when collecting fails. */
  leases: AnswerLease[];
  /**
   * Held while the engine holds the request: released once the answer has ended and the call is
   * closed (an engine that ignores a cancel keeps the request until it answers the Abort).
   */
  heldByCall: Lease[];
  /** Chat with a reasoning or tool parser for the model: how its text is split. */
  parsing?: ChatParsing | undefined;
  onFirstByte?: (() => void) | undefined;
}

export async function answerFromCall(
  deps: CallAnswerDeps,
  input: CallAnswerInput,
): Promise<Answer> {
  const { ctx, plan, prepared, worker, call } = input;
  const i = { ...input, leases: [...input.leases, untilClosed(call, input.heldByCall)] };
  // One config object for every sample: the decoders compile it once.
  const stops = stopConfig(i.sampling, prepared.tokenizer);
  const parsing = i.parsing;
  const newChoice = (index: number): ChoiceState => {
    const c = new ChoiceState(
      index,
      prepared.tokenizer.stopDecoder(stops),
      plan.logprobs !== undefined,
    );
    if (parsing !== undefined && plan.stream) c.output = new ChatOutput(parsing);
    return c;
  };
  const headers = {
    'x-request-id': ctx.requestId,
    'x-smg-routed-worker-id': worker.key,
    ...i.headers,
  };
  if (!plan.stream) return collectAnswer(i, newChoice, headers);
  let outcome: { end: StreamOutcome; error?: unknown } | undefined;
  const body = new GenerateStreamBody({
    call,
    framer: framerFor(ctx, plan, i.meta, prepared),
    choice: newChoice,
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
    leases: [...i.leases, streamLease(deps, ctx, worker, call, () => outcome)],
    midStreamError: (cause) => streamFailure(cause, worker.url),
    onFirstByte: i.onFirstByte,
  };
}

function untilClosed(call: GenerateCall, held: readonly Lease[]): AnswerLease {
  return {
    release: () =>
      void call.closed.then(() => {
        for (const l of held) l.release();
      }),
  };
}

function framerFor(
  ctx: RequestContext,
  plan: GrpcPlan,
  meta: ResponseMeta,
  prepared: PreparedPrompt,
): StreamFramer {
  if (plan.kind === 'messages') return new MessagesFramer(meta, prepared.inputIds.length);
  if (plan.kind === 'responses' && plan.responses !== undefined)
    return new ResponsesFramer(plan.responses, prepared.inputIds.length, finishOf(ctx));
  return new OpenAiFramer(plan, meta, prepared.text, ctx.startTime);
}

/** How a finished Responses answer is stored before the client hears it is complete. */
function finishOf(ctx: RequestContext): (response: Record<string, unknown>) => Promise<void> {
  const turn = ctx.responses;
  return turn === undefined ? () => Promise.resolve() : (response) => turn.finish(response);
}

async function collectAnswer(
  i: CallAnswerInput,
  newChoice: (index: number) => ChoiceState,
  headers: Record<string, string>,
): Promise<Answer> {
  const { ctx, plan, prepared, worker, call } = i;
  const onGone = () => call.dispose();
  ctx.signal.addEventListener('abort', onGone, { once: true });
  try {
    const body = await collect(call, plan, i.meta, newChoice, prepared, ctx.startTime, i.parsing);
    // The client left while the samples were collected: nobody to answer, and the engine
    // did nothing wrong (its call was disposed, so what was collected may be partial).
    if (ctx.signal.aborted) throw ctx.signal.reason;
    call.markCompleted();
    worker.circuit.record('success');
    // A stored response is stored before it is answered: a store outage is the client's 503.
    if (plan.kind === 'responses') await finishOf(ctx)(body as Record<string, unknown>);
    return bufferAnswer(200, { ...JSON_HEADERS, ...headers }, Buffer.from(JSON.stringify(body)), {
      routedTo: worker,
      leases: i.leases,
      midStreamError: (cause) => streamFailure(cause, worker.url),
    });
  } catch (err) {
    call.dispose();
    const end: AnswerEnd = ctx.signal.aborted ? 'client_closed' : 'upstream_failed';
    for (const l of i.leases.splice(0)) l.release(end, err);
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

/**
 * Ends the call with its answer: a stream the body finished is already marked completed; any
 * other end (client gone, a failed or discarded answer) disposes it, which sends `Abort`. The
 * breaker hears a mid-stream failure as a failure (SMG records only the start, and keeps
 * routing to a worker whose streams die).
 */
function streamLease(
  deps: CallAnswerDeps,
  ctx: RequestContext,
  worker: Worker,
  call: GenerateCall,
  outcome: () => { end: StreamOutcome; error?: unknown } | undefined,
): AnswerLease {
  return {
    release: (end) => {
      const o = outcome();
      if (end !== 'complete' || o?.end !== 'complete') call.dispose();
      if (o?.end === 'failed') {
        worker.circuit.record('failure');
        deps.metrics.workerErrors.inc({
          worker_type: worker.type,
          connection_mode: 'grpc',
          error_type: 'stream',
        });
        deps.logger.warn(
          { worker: worker.url, requestId: ctx.requestId, err: String(o.error) },
          'gRPC worker failed mid-stream',
        );
      } else if (end === 'complete' && o?.end === 'complete') {
        worker.circuit.record('success');
      }
    },
  };
}
