// A traceparent the client named in its `Connection` header was meant for its hop to the gateway
// only (RFC 9110 §7.6.1): with --enable-trace the request does not join that trace; it starts its
// own, and the worker gets the gateway's trace, not the client's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../../helpers/gateway.js';
import {
  parseTraceparent,
  spanNamed,
  startOtlpReceiver,
  type OtlpReceiver,
  tracingFlags,
} from '../../helpers/otlp-receiver.js';
import {
  rawPost,
  startRecordingWorker,
  type RecordingWorker,
} from '../../helpers/recording-worker.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let receiver: OtlpReceiver;
let worker: RecordingWorker;
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpReceiver();
  worker = await startRecordingWorker();
  gateway = await startGatewayFor(worker.url, tracingFlags(receiver.url));
});

after(async () => {
  await gateway.close();
  await worker.close();
  await receiver.close();
});

test('a Connection-nominated traceparent does not parent the request span', async () => {
  const res = await rawPost(
    `${gateway.url}/v1/completions`,
    { model: 'recorded-model', prompt: 'x', max_tokens: 1 },
    {
      connection: 'keep-alive, traceparent',
      traceparent: `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`,
    },
  );
  assert.equal(res.status, 200, res.text);
  await assertAllReleased(gateway);
  await gateway.close();

  const request = spanNamed(receiver.spans, 'POST /v1/completions');
  assert.notEqual(request.traceId, CLIENT_TRACE, 'a trace of its own');
  assert.equal(request.parentSpanId, '', 'a root span');
  const seen = parseTraceparent(worker.to('/v1/completions').at(-1)?.headers.traceparent);
  assert.equal(seen.traceId, request.traceId, "the worker joins the gateway's trace");
  assert.equal(seen.parentId, spanNamed(receiver.spans, 'attempt').spanId);
});
