/**
 * The OpenTelemetry `RequestTracer`: spans batched (BatchSpanProcessor) and exported to
 * `--otlp-traces-endpoint` as service `switchyard`, over OTLP/gRPC for SMG's `host:port` or
 * OTLP/HTTP for a URL (otlp-endpoint.ts). Imported dynamically by tracing.ts, and only with
 * `--enable-trace`; it imports the one exporter the endpoint needs, dynamically too.
 *
 * Spans are otel-spans.ts's records, handed straight to the SDK's BatchSpanProcessor: no
 * TracerProvider, Tracer or context manager is built, so nothing is registered globally either
 * (a process may run several gateways: tests; `launch --workers N` runs one per process).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  TraceFlags,
  defaultTextMapGetter,
  trace,
  type SpanContext,
} from '@opentelemetry/api';
import {
  ExportResultCode,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from './logger.js';
import { OTLP_GRPC_PORT, otlpPort, parseOtlpEndpoint, type OtlpEndpoint } from './otlp-endpoint.js';
import { OtelRequestSpan, type SpanSink } from './otel-spans.js';
import { newTraceId } from './trace-ids.js';
import type { RequestSpan, RequestTracer, TracedRequest, TracerOptions } from './tracing.js';

/** How long shutdown may spend exporting what is still buffered before it gives up. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * Logs export failures without flooding: one warning when exports start failing, one line when
 * they recover. The SDK itself reports them only through its (silent by default) diag logger.
 */
class ReportingExporter implements SpanExporter {
  #failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== ExportResultCode.SUCCESS;
      if (failed && !this.#failing)
        this.logger.warn(
          { endpoint: this.endpoint, err: String(result.error), spans: spans.length },
          'trace export failed; spans are dropped until the OTLP receiver answers',
        );
      if (!failed && this.#failing)
        this.logger.info({ endpoint: this.endpoint }, 'trace export works');
      this.#failing = failed;
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

class OtelRequestTracer implements RequestTracer {
  readonly #propagator = new W3CTraceContextPropagator();
  readonly #sink: SpanSink;
  #closed: Promise<void> | undefined;

  constructor(private readonly processor: BatchSpanProcessor) {
    this.#sink = {
      onEnd: (span) => processor.onEnd(span),
      resource: resourceFromAttributes({ 'service.name': 'switchyard' }),
      scope: { name: 'switchyard' },
    };
  }

  /** The client's span when its `traceparent` is valid (W3C rules, the SDK's propagator). */
  #remoteParent(request: TracedRequest): SpanContext | undefined {
    if (request.headers.traceparent === undefined) return undefined;
    const extracted = this.#propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    return trace.getSpanContext(extracted);
  }

  startRequest(request: TracedRequest): RequestSpan {
    // Without a valid client traceparent the request starts a new, sampled trace.
    const parent = this.#remoteParent(request);
    const span = new OtelRequestSpan(
      this.#sink,
      `${request.method} ${request.route}`,
      SpanKind.SERVER,
      parent?.traceId ?? newTraceId(),
      parent?.traceFlags ?? TraceFlags.SAMPLED,
      parent,
    );
    span.record('http.request.method', request.method);
    span.record('http.route', request.route);
    span.record('switchyard.request_id', request.requestId);
    return span;
  }

  shutdown(): Promise<void> {
    return (this.#closed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      this.processor.shutdown().then(
        () => resolve(),
        () => resolve(),
      );
    }));
  }
}

type ParsedEndpoint = Exclude<OtlpEndpoint, { ok: false }>;

/** The exporter the endpoint needs, its module loaded now; a label and address for the logs. */
async function exporterFor(
  endpoint: ParsedEndpoint,
  logger: Logger,
): Promise<{ exporter: SpanExporter; protocol: string; address: string }> {
  if (endpoint.protocol === 'grpc') {
    const { otlpGrpcExporter } = await import('./otlp-grpc-exporter.js');
    return {
      exporter: otlpGrpcExporter(endpoint.target),
      protocol: 'OTLP/gRPC',
      address: endpoint.target,
    };
  }
  const url = endpoint.url.href;
  // SMG sends OTLP/gRPC to an http:// value too; here a URL means OTLP/HTTP.
  if (otlpPort(endpoint.url) === OTLP_GRPC_PORT)
    logger.warn(
      { endpoint: url },
      `traces go over OTLP/HTTP to port ${OTLP_GRPC_PORT}, OTLP/gRPC's: an http(s):// URL means OTLP/HTTP (usually port 4318); give host:port for OTLP/gRPC`,
    );
  const { otlpHttpExporter } = await import('./otlp-http-exporter.js');
  return { exporter: otlpHttpExporter(endpoint.url), protocol: 'OTLP/HTTP', address: url };
}

export async function createOtelTracer(options: TracerOptions): Promise<RequestTracer> {
  const endpoint = parseOtlpEndpoint(options.endpoint);
  if (!endpoint.ok) throw new Error(`--otlp-traces-endpoint: ${endpoint.problem}`);
  const { exporter, protocol, address } = await exporterFor(endpoint, options.logger);
  // One export per second at most, or sooner once 512 spans wait; a full queue drops spans
  // rather than holding requests.
  const processor = new BatchSpanProcessor({
    exporter: new ReportingExporter(exporter, address, options.logger),
    scheduledDelayMillis: 1_000,
    maxExportBatchSize: 512,
    maxQueueSize: 8_192,
  });
  options.logger.info({ endpoint: address }, `exporting request traces over ${protocol}`);
  return new OtelRequestTracer(processor);
}
