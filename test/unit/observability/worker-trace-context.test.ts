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
  // A new trace (the client's traceparent was not valid) does not take the client's tracestate.
  assert.deepEqual(workerTraceContext({ traceparent: 'junk', tracestate: 'a=1' }, OWN), {
    traceparent: OWN,
    tracestate: undefined,
  });
});

test('a malformed client traceparent is not passed on, nor the tracestate that goes with it', () => {
  for (const bad of [
    'junk',
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
    'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
    '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
  ]) {
    assert.equal(workerTraceContext({ traceparent: bad, tracestate: 'a=1' }), undefined, bad);
  }
  // A later version may carry more fields.
  const v1 = '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more';
  assert.deepEqual(workerTraceContext({ traceparent: v1 }), {
    traceparent: v1,
    tracestate: undefined,
  });
});

test('a tracestate over 512 characters or 32 members is not passed on', () => {
  const members = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
  assert.equal(
    workerTraceContext({ traceparent: CLIENT, tracestate: members(32) })?.tracestate,
    members(32),
  );
  assert.equal(
    workerTraceContext({ traceparent: CLIENT, tracestate: members(33) })?.tracestate,
    undefined,
  );
  const long = `k=${'x'.repeat(511)}`;
  assert.equal(
    workerTraceContext({ traceparent: CLIENT, tracestate: long })?.tracestate,
    undefined,
  );
});

test('a request without trace context builds none', () => {
  assert.equal(workerTraceContext({}), undefined);
  assert.equal(workerTraceContext({ traceparent: '' }), undefined);
});

test('a value that is not printable ASCII is not passed on (grpc-js would fail the call)', () => {
  assert.equal(workerTraceContext({ traceparent: `${CLIENT}\u00e9` }), undefined);
  assert.deepEqual(workerTraceContext({ traceparent: CLIENT, tracestate: 'k=\u00ff' }), {
    traceparent: CLIENT,
    tracestate: undefined,
  });
});
