/**
 * The OTLP/HTTP span exporter (JSON bodies), for an `http(s)://` `--otlp-traces-endpoint`. Its own
 * file so that a gateway exporting over gRPC never loads it: otel-tracer.ts imports the one the
 * endpoint needs, on demand.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

/** Spans POSTed to `url` (already the traces URL, `/v1/traces` appended where due). */
export function otlpHttpExporter(url: URL): SpanExporter {
  return new OTLPTraceExporter({ url: url.href });
}
