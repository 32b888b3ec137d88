// --max-concurrent-requests: the permit is taken once the request body is in, so clients slow to
// send their bodies cannot lock everyone else out; and every way a request ends returns its
// permit exactly once.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import {
  assertBodyTimeout,
  assertPermitsIntact,
  COMPLETION_BODY,
  holdPermit,
  partialRequest,
  startTwoPermitGateway,
  waitForRequestHeads,
} from '../helpers/slow-clients.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

function setup(flags: string[]): Promise<Gateway> {
  return startTwoPermitGateway(flags, cleanup);
}

test('two clients holding partial bodies do not lock a complete request out', async () => {
  const gateway = await setup([]);
  const stalled = [partialRequest(gateway, 10), partialRequest(gateway, 10)];
  await waitForRequestHeads(gateway, 2);

  const served = await postJson(`${gateway.url}/v1/completions`, COMPLETION_BODY);
  const text = await served.text();
  assert.equal(served.status, 200, `a complete request is served, got ${served.status}: ${text}`);
  assert.equal(gateway.internals.limiter?.inflight, 0, 'the partial bodies hold no permit');

  for (const s of stalled) s.socket.destroy();
  await Promise.all(stalled.map((s) => s.answer));
  await assertPermitsIntact(gateway, 2);
});

test('every way a request ends returns its permit exactly once', async () => {
  const gateway = await setup(['--request-body-timeout-secs', '1', '--max-payload-size', '4096']);
  // 408: the body deadline passed.
  assertBodyTimeout(await partialRequest(gateway, 10).answer);
  // The client hangs up mid-body.
  const gone = partialRequest(gateway, 10);
  await waitForRequestHeads(gateway, 2);
  gone.socket.destroy();
  await gone.answer;
  // 413, by content-length and while reading a chunked body.
  const big = await postJson(`${gateway.url}/v1/completions`, 'x'.repeat(8192));
  await assertGatewayError(big, 413, 'payload_too_large');
  const chunked = await fetch(`${gateway.url}/v1/completions`, {
    method: 'POST',
    duplex: 'half',
    headers: { 'content-type': 'application/json' },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(2048)));
        controller.close();
      },
    }),
  });
  await assertGatewayError(chunked, 413, 'payload_too_large');
  // An error answered after admission, a success, and a stream the client abandons.
  const badJson = await postJson(`${gateway.url}/v1/completions`, '{"model": ');
  await assertGatewayError(badJson, 400, 'invalid_json');
  const ok = await postJson(`${gateway.url}/v1/completions`, COMPLETION_BODY);
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
  (await holdPermit(gateway))();
  await assertPermitsIntact(gateway, 2);
});
