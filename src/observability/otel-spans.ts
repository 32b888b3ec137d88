/**
 * The span handles of tracing.ts over OpenTelemetry spans. Parents are passed explicitly (no
 * context manager, no AsyncLocalStorage): the request path knows which span a step belongs to.
 * Loaded only with `--enable-trace`, through otel-tracer.ts.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type {
  AttemptSpan,
  CallSpan,
  PdLegName,
  RequestSpan,
  TraceAttribute,
  TraceValue,
} from './tracing.js';

/** `00-{trace id}-{span id}-{flags}` (W3C Trace Context, version 00). */
function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A call failed when it has an error code, the worker answered 5xx, or its body broke off. */
function callFailed(outcome: string, status: unknown, errorCode: string | undefined): boolean {
  return (
    errorCode !== undefined ||
    outcome === 'upstream_failed' ||
    (typeof status === 'number' && status >= 500)
  );
}

class OtelCallSpan implements CallSpan {
  #ended = false;
  #status: unknown;

  constructor(
    protected readonly span: Span,
    protected readonly tracer: Tracer,
  ) {}

  set(name: TraceAttribute, value: TraceValue): void {
    if (name === 'http.response.status_code') this.#status = value;
    this.span.setAttribute(name, value);
  }

  traceparent(): string {
    return traceparentOf(this.span);
  }

  end(outcome: string, errorCode?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.setAttribute('switchyard.outcome', outcome);
    if (errorCode !== undefined) this.span.setAttribute('error.type', errorCode);
    if (callFailed(outcome, this.#status, errorCode))
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? outcome });
    this.span.end();
  }
}

class OtelAttemptSpan extends OtelCallSpan implements AttemptSpan {
  startLeg(leg: PdLegName, workerUrl: string): CallSpan {
    const attributes: Attributes = { 'switchyard.pd.leg': leg, 'switchyard.worker.url': workerUrl };
    const span = this.tracer.startSpan(
      `${leg} leg`,
      { kind: SpanKind.CLIENT, attributes },
      trace.setSpan(ROOT_CONTEXT, this.span),
    );
    return new OtelCallSpan(span, this.tracer);
  }
}

export class OtelRequestSpan implements RequestSpan {
  #ended = false;

  constructor(
    private readonly span: Span,
    private readonly tracer: Tracer,
  ) {}

  set(name: TraceAttribute, value: TraceValue): void {
    this.span.setAttribute(name, value);
  }

  startAttempt(attempt: number, callsWorker: boolean): AttemptSpan {
    const span = this.tracer.startSpan(
      'attempt',
      {
        // A regular attempt is the call to the worker; a PD attempt holds the two leg calls.
        kind: callsWorker ? SpanKind.CLIENT : SpanKind.INTERNAL,
        attributes: { 'switchyard.attempt': attempt },
      },
      trace.setSpan(ROOT_CONTEXT, this.span),
    );
    return new OtelAttemptSpan(span, this.tracer);
  }

  end(status: number | undefined, errorCode?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    if (status !== undefined) this.span.setAttribute('http.response.status_code', status);
    if (errorCode !== undefined) this.span.setAttribute('error.type', errorCode);
    // A server span is an error for a 5xx only (OpenTelemetry's HTTP conventions); a stream cut
    // by its worker after a 200 head is one too.
    if ((status !== undefined && status >= 500) || errorCode === 'upstream_failed')
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? `status ${status}` });
    this.span.end();
  }
}
