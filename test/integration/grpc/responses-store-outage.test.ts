// A Responses request whose history store is gone (a real redis-server stopped under a gateway
// with `--history-backend redis`): a whole answer is 503 history_store_unavailable instead of a
// response nobody could read back, a stream ends with `response.failed` carrying that code in
// place of `response.completed`, a request with `store: false` is still served, /readiness says
// the store is unreachable, and once Redis is back the same gateway stores again. Nothing the
// client was told is complete is lost: every completed response can be read back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased, waitFor } from '../../helpers/gateway.js';
import { qwen3DirWithEos, startGrpcGateway, startQwenEngine } from '../../helpers/grpc.js';
import { RedisServer } from '../../helpers/redis-server.js';

let redis: RedisServer;
let engine: SimWorker;
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  redis = await RedisServer.start();
  engine = await startQwenEngine({ runtime: 'sglang', tokenizerDir: qwen3DirWithEos() });
  gateway = await startGrpcGateway(
    [engine],
    ['--history-backend', 'redis', '--redis-url', redis.url, '--disable-retries'],
  );
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  try {
    await assertAllReleased(gateway);
  } finally {
    await gateway.close();
    await engine.close();
    await redis.close();
  }
});

const input = (text: string) => `Say it <sim-answer>${text}</sim-answer>`;

async function readiness(): Promise<{ history_store?: { reachable: boolean } }> {
  const res = await fetch(`${gateway.url}/readiness`);
  return (await res.json()) as { history_store?: { reachable: boolean } };
}

describe('Responses with the history store down', () => {
  it('stores through Redis while it is up', async () => {
    const made = await client.responses.create({ model: 'qwen3', input: input('Up.') });
    assert.equal((await client.responses.retrieve(made.id)).output_text, 'Up.');
    assert.equal((await readiness()).history_store?.reachable, true);
  });

  it('with Redis stopped: 503 whole, response.failed streamed, store:false served', async () => {
    await redis.stop();
    await assert.rejects(
      client.responses.create({ model: 'qwen3', input: input('Lost?') }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 503 && err.code === 'history_store_unavailable',
    );
    const res = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3', input: input('Streamed, lost?'), stream: true }),
    });
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.ok(!text.includes('event: response.completed'), 'never acknowledged');
    assert.match(text, /event: response\.failed\ndata: [^\n]*"code":"history_store_unavailable"/);
    const unstored = await client.responses.create({
      model: 'qwen3',
      input: input('Not stored.'),
      store: false,
    });
    assert.equal(unstored.output_text, 'Not stored.');
    assert.equal((await readiness()).history_store?.reachable, false);
  });

  it('with Redis back, the same gateway stores again', async () => {
    await redis.restart();
    await waitFor(async () => (await readiness()).history_store?.reachable === true, 'Redis back');
    const made = await client.responses.create({ model: 'qwen3', input: input('Back.') });
    assert.equal((await client.responses.retrieve(made.id)).output_text, 'Back.');
  });
});
