/**
 * One PD leg over gRPC: a `Generate` call to one worker with the leg's load lease and, when the
 * leg holds one, its admission lease (the prefill slot or the decode claim). Whoever holds the
 * leg ends it with `endLeg`, once.
 */
import { grpcStatusToHttp } from '../../engine/status-map.js';
import { EngineCallError, type EngineClient, type GenerateCall } from '../../engine/types.js';
import type { GenerateInput } from '../../engine/types.js';
import type { ErrorCode } from '../../errors/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { workerTraceContext } from '../../observability/trace-context.js';
import type { AttemptSpan, CallSpan } from '../../observability/tracing.js';
import type { RequestContext } from '../../routing/request-context.js';
import { lease, type Lease } from '../../util/lease.js';
import { outcomeForStatus, type Outcome } from '../../workers/circuit-breaker.js';
import type { Worker } from '../../workers/worker.js';
import type { PdLeg } from '../leg-errors.js';
import { FanoutCall } from './fanout-call.js';

export interface GrpcLeg {
  readonly leg: PdLeg;
  readonly worker: Worker;
  readonly call: GenerateCall;
  readonly load: Lease;
  /** The prefill admission slot or the decode room claim this leg holds while it runs. */
  readonly admission: Lease | undefined;
  readonly sentAt: number;
  /** The leg's span (`--enable-trace`): the parent the engine's traceparent metadata names. */
  readonly span: CallSpan | undefined;
}

/**
 * Sends the leg: one call per input (a fan-out split into single-sample calls is one leg, its
 * calls merged), each with its own load lease, taken now, synchronously with the selection.
 * Each call carries the client's W3C trace context as metadata (`ctx`), with the leg's own span,
 * under its attempt's (`attempt`), as the traceparent when tracing is on.
 */
export function startGrpcLeg(
  leg: PdLeg,
  worker: Worker,
  client: EngineClient,
  inputs: readonly GenerateInput[],
  admission: Lease | undefined,
  ctx?: Pick<RequestContext, 'headers'>,
  attempt?: AttemptSpan,
): GrpcLeg {
  const span = attempt?.startLeg(leg, worker.url);
  const trace = ctx && workerTraceContext(ctx.headers, span?.traceparent());
  const loads: Lease[] = [];
  const calls: GenerateCall[] = [];
  try {
    for (const input of inputs) {
      loads.push(worker.acquireLoad());
      calls.push(client.generate(input, trace));
    }
  } catch (err) {
    // Building or serializing an engine request failed: the calls already made are dropped, and
    // the admission lease handed to the leg goes back with its loads (the router no longer holds it).
    for (const c of calls) c.disposeNow();
    for (const l of loads) l.release();
    admission?.release();
    span?.end('error', 'internal_error');
    throw err;
  }
  const call = calls.length === 1 && calls[0] !== undefined ? calls[0] : new FanoutCall(calls);
  const load = loads.length === 1 && loads[0] !== undefined ? loads[0] : allOf(loads);
  return { leg, worker, call, load, admission, sentAt: performance.now(), span };
}

function allOf(leases: readonly Lease[]): Lease {
  return lease(() => {
    for (const l of leases) l.release();
  });
}

/**
 * Ends the leg; `how` says what happens to a call that has not completed. Its leases are released
 * when the call is really over: a decode whose abort waits for its first item still holds a seat
 * in the engine's running window, so it keeps its load and its room claim until then.
 */
export function endLeg(h: GrpcLeg, how: 'completed' | 'dispose' | 'now'): void {
  // A span already ended with a sharper outcome (failed, the answer's end) keeps it.
  h.span?.end(how === 'completed' ? 'complete' : 'aborted');
  if (how === 'completed') h.call.markCompleted();
  if (how === 'now') h.call.disposeNow();
  else h.call.dispose();
  releaseWhenClosed(h);
}

/** The leg's load and admission, given back once its call no longer occupies the engine. */
function releaseWhenClosed(h: GrpcLeg): void {
  void h.call.closed.then(() => {
    h.load.release();
    h.admission?.release();
  });
}

/** The client's error for a leg that failed, with the status mapped from the gRPC code. */
export function legError(
  h: GrpcLeg,
  err: unknown,
  kind: 'start' | 'stream',
): { error: GatewayError; outcome: Outcome } {
  const startCode: ErrorCode =
    h.leg === 'prefill' ? 'prefill_worker_failed_to_start' : 'decode_worker_failed_to_start';
  const code: ErrorCode =
    kind === 'stream' && h.leg === 'prefill' ? 'prefill_stream_error' : startCode;
  const what = kind === 'start' ? 'failed to start' : 'stream failed';
  if (err instanceof GatewayError) {
    // The start wait's deadline names the leg that did not start; other gateway errors stand.
    if (err.code !== 'call_upstream_timeout')
      return { error: err, outcome: outcomeForStatus(err.status) };
    const error = new GatewayError(
      startCode,
      `The ${h.leg} worker ${h.worker.url}: ${err.message}`,
      {
        status: 504,
      },
    );
    return { error, outcome: 'failure' };
  }
  if (err instanceof EngineCallError) {
    const status = grpcStatusToHttp(err.code);
    const error = new GatewayError(
      code,
      `The ${h.leg} worker ${h.worker.url} ${what}: ${err.details}`,
      { status },
    );
    return { error, outcome: outcomeForStatus(status) };
  }
  const error = new GatewayError(
    code,
    `The ${h.leg} worker ${h.worker.url} ${what}: ${String(err)}`,
    { status: 502 },
  );
  return { error, outcome: 'failure' };
}

/** grpc's CANCELLED: the gateway's own cancel of a call it retired, not the worker's doing. */
const CANCELLED = 1;

/**
 * A retired partner's own outcome reaches its own breaker: a call that had started is a success,
 * one that had failed on its own a failure; one still pending when it was retired (its failure
 * is then the gateway's cancel) records nothing.
 */
export function recordRetiredOutcome(h: GrpcLeg): void {
  h.call.started.then(
    () => h.worker.circuit.record('success'),
    (err: unknown) => {
      if (err instanceof EngineCallError && err.code !== CANCELLED)
        h.worker.circuit.record(legError(h, err, 'start').outcome);
    },
  );
}
