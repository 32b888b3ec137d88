// --enable-trace through a shutdown whose grace period runs out: the stream the gateway cuts
// still has its request and attempt spans exported. Their ends run in the cut connection's close
// handlers, after the sockets are destroyed; the exporter is flushed only once they have.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { startGatewayFor } from '../../helpers/gateway.js';
import { startOtlpReceiver, tracingFlags, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
let worker: SimWorker | undefined;
after(async () => {
  await worker?.close();
  await receiver?.close();
});

test('a stream cut at the end of the grace period is still exported', async () => {
  receiver = await startOtlpReceiver();
  worker = await startSimWorker({ ttftMs: 1, itlMs: 200 });
  const gateway = await startGatewayFor(worker.url, tracingFlags(receiver.url));
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'sim-model',
    messages: [{ role: 'user', content: 'a long answer' }],
    max_tokens: 200,
    stream: true,
  });
  const reading = (async () => {
    try {
      for await (const chunk of stream) void chunk;
    } catch {
      // Cut by the shutdown, as intended.
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await gateway.shutdown(100);
  await reading;
  const names = receiver.spans.map((s) => s.name).sort();
  assert.deepEqual(names, ['POST /v1/chat/completions', 'attempt']);
});
