// The span records of otel-spans.ts stand in for the SDK's spans: the SDK's own OTLP serializers
// must read them as they read its spans. A request span, its attempt and a PD leg, ended, go to
// the sink once each, with parent links, one trace id, wall-clock times that bracket the test's
// own clock readings, and a duration equal to end − start; serialized to OTLP JSON and protobuf,
// they come back with the same names and links. An unsampled parent makes children that are
// never handed to the sink but still name themselves in a traceparent with the flag 00.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, type HrTime, type SpanContext } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { OtelRequestSpan, type SpanSink } from '../../../src/observability/otel-spans.js';
import { newSpanId, newTraceId } from '../../../src/observability/trace-ids.js';
import { decodeExportRequest } from '../../helpers/otlp-grpc-receiver.js';

function sink(): SpanSink & { ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return {
    ended,
    onEnd: (span) => ended.push(span),
    resource: resourceFromAttributes({ 'service.name': 'switchyard' }),
    scope: { name: 'switchyard' },
  };
}

const ms = ([s, ns]: HrTime): number => s * 1000 + ns / 1e6;

test('ids are W3C-shaped and distinct', () => {
  const spans = new Set(Array.from({ length: 2000 }, () => newSpanId()));
  assert.equal(spans.size, 2000);
  for (const id of spans) assert.match(id, /^[0-9a-f]{16}$/);
  assert.match(newTraceId(), /^[0-9a-f]{32}$/);
  assert.notEqual(newTraceId(), newTraceId());
});

test('ended spans reach the sink once, linked, timed, and readable by the SDK serializers', () => {
  const s = sink();
  const before = Date.now();
  const request = new OtelRequestSpan(
    s,
    'POST /generate',
    SpanKind.SERVER,
    newTraceId(),
    1,
    undefined,
  );
  request.set('gen_ai.request.model', 'm');
  const attempt = request.startAttempt(1, false);
  const leg = attempt.startLeg('prefill', 'http://p:1');
  leg.set('http.response.status_code', 503);
  leg.end('failed');
  leg.end('complete');
  attempt.end('error', 'prefill_failed');
  request.end(503, 'prefill_failed');
  request.end(200);
  const after = Date.now();

  assert.deepEqual(
    s.ended.map((x) => x.name),
    ['prefill leg', 'attempt', 'POST /generate'],
    'each span once, when it ends',
  );
  const [l, a, r] = s.ended as [ReadableSpan, ReadableSpan, ReadableSpan];
  const traceId = r.spanContext().traceId;
  assert.equal(r.parentSpanContext, undefined);
  assert.equal(a.parentSpanContext?.spanId, r.spanContext().spanId);
  assert.equal(l.parentSpanContext?.spanId, a.spanContext().spanId);
  for (const x of s.ended) {
    assert.equal(x.spanContext().traceId, traceId);
    assert.ok(ms(x.startTime) >= before - 1 && ms(x.endTime) <= after + 1, `${x.name} times`);
    assert.ok(Math.abs(ms(x.endTime) - ms(x.startTime) - ms(x.duration)) < 0.001);
    assert.ok(x.ended);
  }
  assert.equal(l.attributes['switchyard.pd.leg'], 'prefill');
  assert.equal(l.attributes['switchyard.outcome'], 'failed', 'the first end wins');
  assert.equal(l.status.code, 2, '5xx leg is an error');
  assert.equal(a.kind, SpanKind.INTERNAL);
  assert.equal(r.attributes['http.response.status_code'], 503);
  assert.equal(r.attributes['gen_ai.request.model'], 'm');
  assert.equal(r.status.code, 2);

  const json = JSON.parse(
    new TextDecoder().decode(JsonTraceSerializer.serializeRequest(s.ended)),
  ) as {
    resourceSpans: {
      scopeSpans: { spans: { name: string; parentSpanId?: string; startTimeUnixNano: string }[] }[];
    }[];
  };
  const out = json.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
  assert.deepEqual(
    out.map((x) => x.name),
    ['prefill leg', 'attempt', 'POST /generate'],
  );
  assert.equal(out[0]?.parentSpanId, a.spanContext().spanId);
  assert.ok(Math.abs(Number(BigInt(out[2]?.startTimeUnixNano ?? 0) / 1_000_000n) - before) < 50);

  const proto = ProtobufTraceSerializer.serializeRequest(s.ended);
  assert.ok(proto);
  const decoded = decodeExportRequest(Buffer.from(proto));
  assert.deepEqual(
    decoded.map((x) => [x.name, x.parentSpanId, x.service]),
    [
      ['prefill leg', a.spanContext().spanId, 'switchyard'],
      ['attempt', r.spanContext().spanId, 'switchyard'],
      ['POST /generate', '', 'switchyard'],
    ],
  );
});

test('children of an unsampled parent are not recorded but name themselves unsampled', () => {
  const s = sink();
  const client: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 0,
    isRemote: true,
  };
  const request = new OtelRequestSpan(
    s,
    'POST /v1/completions',
    SpanKind.SERVER,
    client.traceId,
    0,
    client,
  );
  const attempt = request.startAttempt(1, true);
  const [, trace, span, flags] = attempt.traceparent().split('-');
  assert.equal(trace, client.traceId);
  assert.notEqual(span, client.spanId);
  assert.equal(flags, '00');
  attempt.end('complete');
  request.end(200);
  assert.deepEqual(s.ended, []);
});
