/**
 * The OpenTelemetry `RequestTracer`: spans batched (BatchSpanProcessor) and exported to
 * `--otlp-traces-endpoint` as service `switchyard`, over OTLP/gRPC for SMG's `host:port` or
 * OTLP/HTTP for a URL (otlp-endpoint.ts). Imported dynamically by tracing.ts, and only with
 * `--enable-trace`; it imports the one exporter the endpoint needs, dynamically too.
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
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Logger } from './logger.js';
import { OTLP_GRPC_PORT, otlpPort, parseOtlpEndpoint, type OtlpEndpoint } from './otlp-endpoint.js';
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
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'switchyard' }),
    spanProcessors: [
      // One export per second at most, or sooner once 512 spans wait; a full queue drops spans
      // rather than holding requests.
      new BatchSpanProcessor({
        exporter: new ReportingExporter(exporter, address, options.logger),
        scheduledDelayMillis: 1_000,
        maxExportBatchSize: 512,
        maxQueueSize: 8_192,
      }),
    ],
  });
  options.logger.info({ endpoint: address }, `exporting request traces over ${protocol}`);
  return new OtelRequestTracer(provider);
}
