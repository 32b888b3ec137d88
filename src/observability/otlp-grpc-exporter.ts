/**
 * The OTLP/gRPC span exporter, for SMG's `host:port` form of `--otlp-traces-endpoint`: plaintext
 * HTTP/2, as SMG's (it prefixes `http://` for tonic and configures no TLS). Its own file so that a
 * gateway exporting over HTTP never loads it: otel-tracer.ts imports the one the endpoint needs.
 */
import { credentials } from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

/** Spans sent to the collector's `TraceService/Export` at `target` (`host:port`). */
export function otlpGrpcExporter(target: string): SpanExporter {
  // The exporter keeps only the URL's host part, and `new URL` drops a port equal to the scheme's:
  // with `http://` a collector on port 80 would become `host`, which grpc-js dials on 443. Under
  // `https://` only 443 is dropped, grpc-js's default anyway; the credentials, not the scheme,
  // make the channel plaintext (a bare address would otherwise get TLS from the exporter).
  return new OTLPTraceExporter({
    url: `https://${target}`,
    credentials: credentials.createInsecure(),
  });
}
