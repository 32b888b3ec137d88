// Sampling follows the client: a traceparent whose sampled flag is 00 makes the request span and
// its attempt non-recording (nothing of that trace is exported), while the worker still gets a
// traceparent in the client's trace, naming a span of the gateway's own (not the client's) and
// passing the unsampled flag on. A sampled request beside it is exported, as a control.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, startGatewayFor } from '../../helpers/gateway.js';
import { startOtlpReceiver, type OtlpReceiver, tracingFlags } from '../../helpers/otlp-receiver.js';

const UNSAMPLED_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SAMPLED_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = '00f067aa0ba902b7';

let receiver: OtlpReceiver;
let worker: SimWorker;
let gateway: Gateway;

before(async () => {
  receiver = await startOtlpReceiver();
  worker = await startSimWorker({ ttftMs: 1, itlMs: 1 });
  gateway = await startGatewayFor(worker.url, tracingFlags(receiver.url));
});

after(async () => {
  await gateway.close();
  await worker.close();
  await receiver.close();
});

test('an unsampled client trace is not recorded, and its flag reaches the worker', async () => {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const ask = (trace: string, flags: string) =>
    client.completions.create(
      { model: 'sim-model', prompt: 'sampled?', max_tokens: 1 },
      { headers: { traceparent: `00-${trace}-${CLIENT_SPAN}-${flags}` } },
    );
  await ask(UNSAMPLED_TRACE, '00');
  const seen = String(worker.stats().lastRequest?.headers.traceparent);
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(seen);
  assert.ok(m, `a traceparent reached the worker: ${seen}`);
  assert.equal(m[1], UNSAMPLED_TRACE, "the client's trace");
  assert.notEqual(m[2], CLIENT_SPAN, "the gateway's span, not the client's");
  assert.notEqual(m[2], '0000000000000000');
  assert.equal(m[3], '00', 'the unsampled flag passes on');

  await ask(SAMPLED_TRACE, '01');
  assert.match(String(worker.stats().lastRequest?.headers.traceparent), /-01$/);
  await assertAllReleased(gateway);
  await gateway.close();

  assert.deepEqual(
    receiver.spans.filter((s) => s.traceId === UNSAMPLED_TRACE).map((s) => s.name),
    [],
    'nothing of the unsampled trace is exported',
  );
  assert.deepEqual(
    receiver.spans
      .filter((s) => s.traceId === SAMPLED_TRACE)
      .map((s) => s.name)
      .sort(),
    ['POST /v1/completions', 'attempt'],
  );
});
