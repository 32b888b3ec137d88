// An engine that never starts its stream is not waited on forever: after --request-timeout-secs
// the request is a 504 call_upstream_timeout, as for an HTTP worker that sends no response head,
// and the engine is told to abort the request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimGrpcWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { startGrpcGateway } from '../../helpers/grpc.js';

let engine: SimWorker;
let gateway: Gateway;

before(async () => {
  engine = await startSimGrpcWorker({ runtime: 'sglang', ttftMs: 1, itlMs: 1 });
  gateway = await startGrpcGateway([engine], ['--request-timeout-secs', '1', '--disable-retries']);
});

after(async () => {
  await gateway.close();
  await engine.close();
});

test('a stream that does not start within the request timeout is a 504 and is aborted', async () => {
  engine.setFaults({ hang: true });
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 504);
  assert.equal(res.headers.get('x-smg-error-code'), 'call_upstream_timeout');
  await res.arrayBuffer();
  const id = String(engine.grpc?.requests.at(-1)?.request_id);
  await waitFor(
    () => engine.grpc?.aborts.some((a) => a.requestIds.includes(id)) ?? false,
    'the engine to be told to abort',
  );
  engine.setFaults({});
  await assertAllReleased(gateway);
});
