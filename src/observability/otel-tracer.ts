/**
 * The OpenTelemetry `RequestTracer`: spans batched (BatchSpanProcessor) and exported over
 * OTLP/HTTP with JSON bodies to `--otlp-traces-endpoint`, as service `switchyard`. Imported
 * dynamically by tracing.ts, and only with `--enable-trace`.
 *
 * The tracer provider is this gateway's own, never registered as the global one: a process may
 * run several gateways (tests, `launch --workers N` runs one per process anyway), and nothing
 * else in the process is instrumented through the global API.
 */
import { ROOT_CONTEXT, SpanKind, defaultTextMapGetter } from '@opentelemetry/api';
import {
  ExportResultCode,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Logger } from './logger.js';
import { OTLP_GRPC_PORT, otlpPort, parseOtlpEndpoint } from './otlp-endpoint.js';
import { OtelRequestSpan } from './otel-spans.js';
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
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== ExportResultCode.SUCCESS;
      if (failed && !this.#failing)
        this.logger.warn(
          { endpoint: this.url, err: String(result.error), spans: spans.length },
          'trace export failed; spans are dropped until the OTLP/HTTP receiver answers',
        );
      if (!failed && this.#failing) this.logger.info({ endpoint: this.url }, 'trace export works');
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
  readonly #tracer;
  #closed: Promise<void> | undefined;

  constructor(private readonly provider: TracerProvider) {
    this.#tracer = provider.getTracer('switchyard');
  }

  startRequest(request: TracedRequest): RequestSpan {
    // An invalid or absent traceparent leaves the root context: the request starts a new trace.
    const parent = this.#propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const span = this.#tracer.startSpan(
      `${request.method} ${request.route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': request.route,
          'switchyard.request_id': request.requestId,
        },
      },
      parent,
    );
    return new OtelRequestSpan(span, this.#tracer);
  }

  shutdown(): Promise<void> {
    return (this.#closed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      this.provider.shutdown().then(
        () => resolve(),
        () => resolve(),
      );
    }));
  }
}

export function createOtelTracer(options: TracerOptions): RequestTracer {
  const endpoint = parseOtlpEndpoint(options.endpoint);
  if (!endpoint.ok) throw new Error(`--otlp-traces-endpoint: ${endpoint.problem}`);
  const url = endpoint.url.href;
  if (otlpPort(endpoint.url) === OTLP_GRPC_PORT)
    options.logger.warn(
      { endpoint: url },
      `traces go to port ${OTLP_GRPC_PORT}, OTLP/gRPC's; Switchyard exports OTLP/HTTP, which a collector usually receives on 4318`,
    );
  const exporter = new ReportingExporter(new OTLPTraceExporter({ url }), url, options.logger);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'switchyard' }),
    spanProcessors: [
      // One export per second at most, or sooner once 512 spans wait; a full queue drops spans
      // rather than holding requests.
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: 1_000,
        maxExportBatchSize: 512,
        maxQueueSize: 8_192,
      }),
    ],
  });
  options.logger.info({ endpoint: url }, 'exporting request traces over OTLP/HTTP');
  return new OtelRequestTracer(provider);
}
