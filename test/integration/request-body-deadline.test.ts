// --request-body-timeout-secs: the whole request body must arrive within the deadline. Past it
// the gateway answers 408 request_body_timeout and closes the connection, whether the client
// went silent or keeps trickling bytes (a deadline on the whole body, not an idle timeout).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { metricValue, scrapeMetrics } from '../helpers/gateway.js';
import {
  assertBodyTimeout,
  assertPermitsIntact,
  COMPLETION_BODY,
  partialRequest,
  startTwoPermitGateway,
} from '../helpers/slow-clients.js';

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** A gateway with a 1 s body deadline and two permits, so the tests also check the permits. */
function setup(): Promise<Gateway> {
  return startTwoPermitGateway(['--request-body-timeout-secs', '1'], cleanup);
}

test('a partial body gets 408 request_body_timeout after the deadline and the connection closes', async () => {
  const gateway = await setup();
  assertBodyTimeout(await partialRequest(gateway, 10).answer);
  const m = await scrapeMetrics(gateway);
  const labels = {
    path: '/v1/completions',
    status_code: '408',
    error_code: 'request_body_timeout',
  };
  assert.equal(metricValue(m, 'smg_http_responses_total', labels), 1);
  await assertPermitsIntact(gateway, 2);
});

test('a body trickling bytes still gets 408 at the deadline', async () => {
  const gateway = await setup();
  const trickle = partialRequest(gateway, 1);
  // One byte per 50 ms: every gap is a twentieth of the deadline, so an idle timeout would never
  // fire, and the body is long enough that its last byte would be due after the deadline.
  let sent = 1;
  const timer = setInterval(() => {
    if (sent < COMPLETION_BODY.length - 1 && !trickle.socket.destroyed) {
      trickle.socket.write(COMPLETION_BODY.charAt(sent++));
    }
  }, 50);
  const answer = await trickle.answer;
  clearInterval(timer);
  assertBodyTimeout(answer);
  assert.ok(sent > 2, `the client kept sending until the answer (${sent} bytes)`);
  assert.ok(sent < COMPLETION_BODY.length - 1, 'the body was still incomplete');
  await assertPermitsIntact(gateway, 2);
});
