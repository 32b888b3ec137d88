/**
 * The span handles of tracing.ts, each its own OpenTelemetry `ReadableSpan`: the record the
 * SDK's BatchSpanProcessor queues and its OTLP exporters serialize. Loaded only with
 * `--enable-trace`, through otel-tracer.ts.
 *
 * Why not the SDK's Tracer and Span: profiled in the gateway (bench/overhead `--profile
 * --tracing`), starting and ending spans took over half of tracing's CPU, more than the export.
 * Per span they build and validate contexts, run the sampler, sanitize attribute copies, generate
 * ids a 4-byte `Math.random` at a time, keep three clocks and a metrics hook; the gateway needs
 * none of it: it knows each span's parent (no context, no AsyncLocalStorage), sets
 * attribute values of its own known types once, and samples by the client's flag alone. A span
 * here is one object with the fields OTLP needs, handed to the processor when it ends; ids come
 * from trace-ids.ts, times from one wall-clock reading and a monotonic duration.
 *
 * Sampling is the SDK's ParentBased(AlwaysOn), by hand: a new trace is recorded; a span whose
 * parent is not sampled is not recorded, has a new span id and passes the unsampled flag on.
 */
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { newSpanId } from './trace-ids.js';
import type {
  AttemptSpan,
  CallSpan,
  PdLegName,
  RequestSpan,
  TraceAttribute,
  TraceValue,
} from './tracing.js';

/** Where ended spans go, and what every span of one tracer shares. */
export interface SpanSink {
  /** The BatchSpanProcessor: queues the span for export. */
  onEnd(span: ReadableSpan): void;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

const SAMPLED = TraceFlags.SAMPLED;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];
const NO_EVENTS: TimedEvent[] = Object.freeze([]) as unknown as TimedEvent[];
const NOT_YET: HrTime = Object.freeze([0, 0]) as unknown as HrTime;

/** Milliseconds → OpenTelemetry's `[seconds, nanoseconds]`. */
function hrTime(ms: number): HrTime {
  let seconds = Math.trunc(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** A call failed when it has an error code, the worker answered 5xx, or its body broke off. */
function callFailed(outcome: string, status: unknown, errorCode: string | undefined): boolean {
  return (
    errorCode !== undefined ||
    outcome === 'upstream_failed' ||
    (typeof status === 'number' && status >= 500)
  );
}

/** The record of one span, and the export's view of it once ended. */
abstract class SpanRecord implements ReadableSpan {
  readonly attributes: Attributes = {};
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  status = UNSET;
  startTime = NOT_YET;
  endTime = NOT_YET;
  duration = NOT_YET;
  ended = false;
  /** Wall clock at the start (ms since the epoch) and the monotonic clock, for the duration. */
  readonly #startWall = Date.now();
  readonly #startMono = performance.now();
  readonly #context: SpanContext;
  /** Declared without a value, so every span has the property (one shape) yet it stays optional. */
  readonly parentSpanContext?: SpanContext;

  constructor(
    protected readonly sink: SpanSink,
    readonly name: string,
    readonly kind: SpanKind,
    traceId: string,
    /** The parent's flags: this span is recorded when they say sampled. */
    traceFlags: number,
    parent: SpanContext | undefined,
  ) {
    if (parent !== undefined) this.parentSpanContext = parent;
    this.resource = sink.resource;
    this.instrumentationScope = sink.scope;
    const traceState = parent?.traceState;
    // Only the sampled bit passes on (the SDK's sampler sets nothing else either).
    const flags = traceFlags & SAMPLED;
    this.#context =
      traceState === undefined
        ? { traceId, spanId: newSpanId(), traceFlags: flags }
        : { traceId, spanId: newSpanId(), traceFlags: flags, traceState };
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  /** Whether this span is exported (its trace is sampled). */
  protected get recording(): boolean {
    return (this.#context.traceFlags & SAMPLED) !== 0;
  }

  /** Sets an attribute of a recorded span (any name: the handles' `set` takes the typed ones). */
  record(name: string, value: TraceValue): void {
    if (this.recording) this.attributes[name] = value;
  }

  protected fail(message: string): void {
    this.status = { code: SpanStatusCode.ERROR, message };
  }

  /** Stamps the times and queues the span for export (a recorded one; the caller ends once). */
  protected finish(): void {
    this.ended = true;
    if (!this.recording) return;
    const elapsed = performance.now() - this.#startMono;
    this.startTime = hrTime(this.#startWall);
    this.endTime = hrTime(this.#startWall + elapsed);
    this.duration = hrTime(elapsed);
    this.sink.onEnd(this);
  }
}

class OtelCallSpan extends SpanRecord implements CallSpan {
  #status: unknown;

  set(name: TraceAttribute, value: TraceValue): void {
    if (name === 'http.response.status_code') this.#status = value;
    this.record(name, value);
  }

  /** `00-{trace id}-{span id}-{flags}` (W3C Trace Context, version 00). */
  traceparent(): string {
    const c = this.spanContext();
    return `00-${c.traceId}-${c.spanId}-${c.traceFlags & SAMPLED ? '01' : '00'}`;
  }

  end(outcome: string, errorCode?: string): void {
    if (this.ended) return;
    this.record('switchyard.outcome', outcome);
    if (errorCode !== undefined) this.record('error.type', errorCode);
    if (callFailed(outcome, this.#status, errorCode)) this.fail(errorCode ?? outcome);
    this.finish();
  }
}

class OtelAttemptSpan extends OtelCallSpan implements AttemptSpan {
  startLeg(leg: PdLegName, workerUrl: string): CallSpan {
    const c = this.spanContext();
    const span = new OtelCallSpan(
      this.sink,
      `${leg} leg`,
      SpanKind.CLIENT,
      c.traceId,
      c.traceFlags,
      c,
    );
    span.record('switchyard.pd.leg', leg);
    span.record('switchyard.worker.url', workerUrl);
    return span;
  }
}

export class OtelRequestSpan extends SpanRecord implements RequestSpan {
  set(name: TraceAttribute, value: TraceValue): void {
    this.record(name, value);
  }

  startAttempt(attempt: number, callsWorker: boolean): AttemptSpan {
    // A regular attempt is the call to the worker; a PD attempt holds the two leg calls.
    const kind = callsWorker ? SpanKind.CLIENT : SpanKind.INTERNAL;
    const c = this.spanContext();
    const span = new OtelAttemptSpan(this.sink, 'attempt', kind, c.traceId, c.traceFlags, c);
    span.record('switchyard.attempt', attempt);
    return span;
  }

  end(status: number | undefined, errorCode?: string): void {
    if (this.ended) return;
    if (status !== undefined) this.record('http.response.status_code', status);
    if (errorCode !== undefined) this.record('error.type', errorCode);
    // A server span is an error for a 5xx only (OpenTelemetry's HTTP conventions); a stream cut
    // by its worker after a 200 head is one too.
    if ((status !== undefined && status >= 500) || errorCode === 'upstream_failed')
      this.fail(errorCode ?? `status ${status}`);
    this.finish();
  }
}
