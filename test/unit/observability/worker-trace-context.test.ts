// The trace context a worker call carries: the client's values, or the gateway's own
// traceparent when it traces; nothing when there is none; never a value gRPC metadata refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerTraceContext } from '../../../src/observability/trace-context.js';

const CLIENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const OWN = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

test("the client's traceparent and tracestate pass on unchanged", () => {
  assert.deepEqual(workerTraceContext({ traceparent: CLIENT, tracestate: 'a=1' }), {
    traceparent: CLIENT,
    tracestate: 'a=1',
  });
});

test("the gateway's own traceparent replaces the client's; tracestate stays the client's", () => {
  assert.deepEqual(workerTraceContext({ traceparent: CLIENT, tracestate: 'a=1' }, OWN), {
    traceparent: OWN,
    tracestate: 'a=1',
  });
  assert.deepEqual(workerTraceContext({}, OWN), { traceparent: OWN, tracestate: undefined });
});

test('a request without trace context builds none', () => {
  assert.equal(workerTraceContext({}), undefined);
  assert.equal(workerTraceContext({ traceparent: '' }), undefined);
});

test('a value that is not printable ASCII is not passed on (grpc-js would fail the call)', () => {
  assert.equal(workerTraceContext({ traceparent: 'bad\u00e9value' }), undefined);
  assert.deepEqual(workerTraceContext({ traceparent: CLIENT, tracestate: 'k=\u00ff' }), {
    traceparent: CLIENT,
    tracestate: undefined,
  });
});
