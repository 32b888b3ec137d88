/**
 * A tiny OTLP/gRPC traces receiver for tests: a grpc-js server on 127.0.0.1:0 serving
 * `opentelemetry.proto.collector.trace.v1.TraceService/Export` as a generic method (no proto
 * loading: requests arrive as raw bytes), answering an empty ExportTraceServiceResponse. It keeps
 * each request's bytes and the spans decoded from them with protobuf-wire.ts, in the same shape
 * as the OTLP/HTTP receiver's.
 *
 * Field numbers are those of opentelemetry-proto's trace.proto, common.proto and resource.proto.
 */
import {
  Server,
  ServerCredentials,
  type handleUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import type { ReceivedSpan } from './otlp-receiver.js';
import {
  bytesField,
  bytesFields,
  varintField,
  wireFields,
  type WireField,
} from './protobuf-wire.js';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export interface OtlpGrpcReceiver {
  /** `127.0.0.1:port`: SMG's host:port form of `--otlp-traces-endpoint`. */
  readonly address: string;
  /** The raw ExportTraceServiceRequest of each call, in arrival order. */
  readonly requests: Buffer[];
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

const identity = (b: Buffer): Buffer => b;

/** One unary method whose messages stay bytes. */
const service: ServiceDefinition = {
  Export: {
    path: TRACE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

const text = (b: Buffer | undefined): string => b?.toString('utf8') ?? '';
const hex = (b: Buffer | undefined): string => b?.toString('hex') ?? '';

/** AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5. */
function anyValue(buf: Buffer): unknown {
  const f = wireFields(buf);
  const one = f[0];
  if (one === undefined) return undefined;
  if (one.field === 1 && one.wire === 2) return text(one.value);
  if (one.field === 2 && one.wire === 0) return one.value !== 0;
  if (one.field === 3 && one.wire === 0) return one.value;
  if (one.field === 4 && one.wire === 1) return one.value.readDoubleLE(0);
  if (one.field === 5 && one.wire === 2)
    return bytesFields(wireFields(one.value), 1).map((v) => anyValue(v));
  return undefined;
}

/** repeated KeyValue (key 1, value 2) → a plain object. */
function attributes(fields: readonly WireField[], field: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of bytesFields(fields, field)) {
    const f = wireFields(kv);
    const value = bytesField(f, 2);
    out[text(bytesField(f, 1))] = value === undefined ? undefined : anyValue(value);
  }
  return out;
}

/**
 * ExportTraceServiceRequest → resource_spans 1 → (resource 1 → attributes 1), scope_spans 2 →
 * spans 2 → trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, status 15
 * (code 3).
 */
export function decodeExportRequest(request: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of bytesFields(wireFields(request), 1)) {
    const rsFields = wireFields(rs);
    const resource = bytesField(rsFields, 1);
    const service = resource ? attributes(wireFields(resource), 1)['service.name'] : undefined;
    for (const ss of bytesFields(rsFields, 2))
      for (const span of bytesFields(wireFields(ss), 2)) {
        const f = wireFields(span);
        const status = bytesField(f, 15);
        spans.push({
          traceId: hex(bytesField(f, 1)),
          spanId: hex(bytesField(f, 2)),
          parentSpanId: hex(bytesField(f, 4)),
          name: text(bytesField(f, 5)),
          kind: varintField(f, 6),
          attributes: attributes(f, 9),
          statusCode: status ? varintField(wireFields(status), 3) : 0,
          service,
        });
      }
  }
  return spans;
}

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const requests: Buffer[] = [];
  const spans: ReceivedSpan[] = [];
  const server = new Server();
  const exportCall: handleUnaryCall<Buffer, Buffer> = (call, done) => {
    requests.push(call.request);
    spans.push(...decodeExportRequest(call.request));
    // An empty ExportTraceServiceResponse: no partial_success, everything accepted.
    done(null, Buffer.alloc(0));
  };
  server.addService(service, { Export: exportCall });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    requests,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
