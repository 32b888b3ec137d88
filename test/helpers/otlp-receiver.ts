/**
 * A tiny OTLP/HTTP traces receiver for tests: a node:http server on 127.0.0.1:0 that takes the
 * JSON export requests POSTed to /v1/traces, answers 200 and keeps every span, flattened with
 * its attributes as a plain object.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The resource's `service.name`. */
  readonly service: unknown;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:port`, for `--otlp-traces-endpoint`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received (any path), for "nothing was exported" checks. */
  readonly posts: number;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}

type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: OtlpAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = valueOf(value);
  return out;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttributes;
        status?: { code?: number };
      }[];
    }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let posts = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts++;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const rs of doc.resourceSpans ?? []) {
        const service = attributesOf(rs.resource?.attributes)['service.name'];
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              statusCode: s.status?.code ?? 0,
              service,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get posts() {
      return posts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans of one trace, by name; throws unless exactly one span has each name asked for. */
export function spanNamed(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(
      `expected one span named ${name}, got ${found.length} (${spans.map((s) => s.name).join(', ')})`,
    );
  return found[0] as ReceivedSpan;
}

/** Parses a W3C traceparent into its trace id and parent (span) id. */
export function parseTraceparent(value: unknown): { traceId: string; parentId: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(String(value));
  if (!m) throw new Error(`not a traceparent: ${String(value)}`);
  return { traceId: m[1] as string, parentId: m[2] as string };
}

/** The flags that turn tracing on and send the spans to `endpoint`. */
export function tracingFlags(endpoint: string): string[] {
  return ['--enable-trace', '--otlp-traces-endpoint', endpoint];
}
