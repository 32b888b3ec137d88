/**
 * Request traces (`--enable-trace`): the gateway's one seam to OpenTelemetry. A client request is
 * a server span; each try of the retry executor an attempt span under it; each PD leg a span under
 * its attempt. The span of a call to a worker (a regular attempt, a PD leg) is what the worker's
 * `traceparent` names, so the worker's own spans nest under the gateway's.
 *
 * Zero cost when off: without the flag nothing here is built, the OpenTelemetry SDK is never
 * loaded (`loadRequestTracer` imports it on demand), and the request path holds `undefined`
 * where a span would be, so each traced step is one branch on it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from './logger.js';

/** Attribute names the gateway sets, in one place: OpenTelemetry's where one fits. */
export type TraceAttribute =
  | 'gen_ai.request.model'
  | 'http.response.status_code'
  | 'switchyard.worker.url'
  | 'switchyard.pd.bootstrap_host'
  | 'switchyard.pd.bootstrap_port'
  | 'switchyard.pd.bootstrap_room'
  | 'switchyard.pd.kv_connector'
  | 'switchyard.pd.kv_transfer_id';

export type TraceValue = string | number | boolean | string[];

/** A span of the gateway's own work on one request. */
export interface TraceSpan {
  set(name: TraceAttribute, value: TraceValue): void;
}

/** A span that calls a worker, or holds the spans that do: an attempt, a PD leg. */
export interface CallSpan extends TraceSpan {
  /** The W3C `traceparent` of a worker call made under this span: its trace id and span id. */
  traceparent(): string;
  /**
   * Ends the span once (later calls do nothing). `outcome` says how it ended (`complete`,
   * `discarded`, `error`, …); `errorCode` is the gateway error code when it failed.
   */
  end(outcome: string, errorCode?: string): void;
}

export type PdLegName = 'prefill' | 'decode';

/** One try of the retry executor. */
export interface AttemptSpan extends CallSpan {
  /** A PD leg sent in this attempt, to `workerUrl`. */
  startLeg(leg: PdLegName, workerUrl: string): CallSpan;
}

/** One client request, from its arrival to the last byte of its answer. */
export interface RequestSpan extends TraceSpan {
  /**
   * Try `attempt` (1-based). `callsWorker`: the attempt is itself the call to a worker (regular
   * routing), rather than the parent of PD legs that each call one.
   */
  startAttempt(attempt: number, callsWorker: boolean): AttemptSpan;
  /** `status` is the one the client got (undefined when it left first); `errorCode` the gateway's. */
  end(status: number | undefined, errorCode?: string): void;
}

/** What the request span is built from, read at the edge before the body. */
export interface TracedRequest {
  readonly method: string;
  /** The route path, e.g. `/v1/chat/completions`. */
  readonly route: string;
  readonly requestId: string;
  /** The client's headers: a valid `traceparent` makes the request span its child. */
  readonly headers: IncomingHttpHeaders;
}

export interface RequestTracer {
  startRequest(request: TracedRequest): RequestSpan;
  /** Exports what is buffered and stops; bounded in time, never rejects. */
  shutdown(): Promise<void>;
}

export interface TracerOptions {
  /** `--otlp-traces-endpoint`, validated at startup. */
  readonly endpoint: string;
  readonly logger: Logger;
}

/**
 * The OpenTelemetry tracer, loaded now: the SDK is imported here and nowhere else, so a gateway
 * without `--enable-trace` never loads it.
 */
export async function loadRequestTracer(options: TracerOptions): Promise<RequestTracer> {
  const { createOtelTracer } = await import('./otel-tracer.js');
  return createOtelTracer(options);
}
