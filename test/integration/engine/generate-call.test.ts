// A Generate call against a real grpc-js server: when it counts as started, how failures before
// and after the start surface, and how each runtime's counts become running totals per sample.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '@switchyard/kit';
import type { EngineRuntime } from '@switchyard/protos';
import { connectEngine } from '../../../src/engine/connect.js';
import {
  EngineCallError,
  MalformedEngineOutputError,
  type EngineClient,
  type EngineOutput,
  type GenerateCall,
  type GenerateInput,
} from '../../../src/engine/types.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { startEngineServer, type EngineServer } from './engine-server.js';

type StreamCall = grpc.ServerWritableStream<Record<string, unknown>, unknown>;

const closers: (() => void)[] = [];
after(() => closers.forEach((close) => close()));

async function setup(
  runtime: EngineRuntime,
  generate: (call: StreamCall) => void,
): Promise<{ server: EngineServer; client: EngineClient }> {
  const server = await startEngineServer({ [runtime]: { Generate: generate } });
  const client = connectEngine(server.url, runtime, {
    clock: new ManualClock(),
    logger: silentLogger(),
  });
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return { server, client };
}

function request(id = 'req-1', n = 1): GenerateInput {
  return {
    kind: 'completion',
    requestId: id,
    inputIds: [1, 2],
    originalText: 'ab',
    stream: true,
    sampling: {
      stop: [],
      stopTokenIds: [],
      ignoreEos: false,
      noStopTrim: false,
      n,
      skipSpecialTokens: true,
      spacesBetweenSpecialTokens: true,
    },
  };
}

async function drain(call: GenerateCall): Promise<EngineOutput[]> {
  const out: EngineOutput[] = [];
  for await (const o of call) out.push(o);
  return out;
}

for (const [code, name] of [
  [grpc.status.UNAVAILABLE, 'UNAVAILABLE'],
  [grpc.status.INVALID_ARGUMENT, 'INVALID_ARGUMENT'],
] as const) {
  test(`a Trailers-Only ${name} rejects started with beforeStart = true`, async () => {
    const { client } = await setup('sglang', (call) => {
      call.emit('error', { code, details: `no: ${name}` });
    });
    const call = client.generate(request());
    await assert.rejects(call.started, (err: unknown) => {
      assert.ok(err instanceof EngineCallError);
      assert.equal(err.code, code);
      assert.equal(err.details, `no: ${name}`);
      assert.equal(err.beforeStart, true);
      return true;
    });
    await assert.rejects(drain(call), (err: EngineCallError) => err.beforeStart);
    call.dispose();
  });
}

test('a failure after the first message throws from iteration with beforeStart = false', async () => {
  const { client } = await setup('sglang', (call) => {
    call.write({ request_id: 'req-1', chunk: { token_ids: [5], completion_tokens: 1 } });
    setImmediate(() => call.emit('error', { code: grpc.status.INTERNAL, details: 'boom' }));
  });
  const call = client.generate(request());
  await call.started;
  const seen: EngineOutput[] = [];
  await assert.rejects(
    async () => {
      for await (const o of call) seen.push(o);
    },
    (err: unknown) => err instanceof EngineCallError && err.code === 13 && !err.beforeStart, // INTERNAL
  );
  assert.equal(seen.length, 1);
  call.dispose();
});

test('headers alone start the call', async () => {
  let finish: (() => void) | undefined;
  const { client } = await setup('tokenspeed', (call) => {
    call.sendMetadata(new grpc.Metadata());
    finish = () => call.end();
  });
  const call = client.generate(request());
  await call.started;
  finish?.();
  assert.deepEqual(await drain(call), []);
  call.dispose();
});

test('a message with neither chunk nor complete is a MalformedEngineOutputError', async () => {
  const { client } = await setup('sglang', (call) => {
    call.write({ request_id: 'req-1' });
    call.end();
  });
  const call = client.generate(request());
  await assert.rejects(drain(call), MalformedEngineOutputError);
  call.dispose();
});

test('vLLM delta counts are summed per index into running totals', async () => {
  const { client } = await setup('vllm', (call) => {
    for (const ids of [[10], [11, 12], [13]]) {
      call.write({ chunk: { token_ids: ids, prompt_tokens: 2, completion_tokens: ids.length } });
    }
    // The streamed complete repeats the last delta and its count.
    call.write({
      complete: {
        output_ids: [13],
        finish_reason: 'length',
        prompt_tokens: 2,
        completion_tokens: 1,
      },
    });
    call.end();
  });
  const out = await drain(client.generate(request()));
  assert.deepEqual(
    out.map((o) => [o.kind, o.completionTokens, o.promptTokens]),
    [
      ['chunk', 1, 2],
      ['chunk', 3, 2],
      ['chunk', 4, 2],
      ['complete', 4, 2],
    ],
  );
});

test('vLLM without a stream: the complete count is the whole', async () => {
  const { client } = await setup('vllm', (call) => {
    call.write({
      complete: { output_ids: [1, 2, 3], finish_reason: 'stop', completion_tokens: 3 },
    });
    call.end();
  });
  const [done] = await drain(client.generate({ ...request(), stream: false }));
  assert.equal(done?.completionTokens, 3);
});

test('n = 2 interleaved: each index keeps its own totals (vLLM deltas, SGLang running)', async () => {
  const { client: vllm } = await setup('vllm', (call) => {
    call.write({ chunk: { token_ids: [1], completion_tokens: 1, index: 0 } });
    call.write({ chunk: { token_ids: [2], completion_tokens: 1, index: 1 } });
    call.write({ chunk: { token_ids: [3, 4], completion_tokens: 2, index: 1 } });
    call.write({ chunk: { token_ids: [5], completion_tokens: 1, index: 0 } });
    call.write({ complete: { output_ids: [4], completion_tokens: 2, index: 1 } });
    call.write({ complete: { output_ids: [5], completion_tokens: 1, index: 0 } });
    call.end();
  });
  const { client: sglang } = await setup('sglang', (call) => {
    call.write({ request_id: 'r', chunk: { token_ids: [1], completion_tokens: 1, index: 0 } });
    call.write({ request_id: 'r', chunk: { token_ids: [2], completion_tokens: 1, index: 1 } });
    call.write({ request_id: 'r', chunk: { token_ids: [3, 4], completion_tokens: 3, index: 1 } });
    call.write({ request_id: 'r', chunk: { token_ids: [5], completion_tokens: 2, index: 0 } });
    call.write({ request_id: 'r', complete: { output_ids: [4], completion_tokens: 3, index: 1 } });
    call.write({ request_id: 'r', complete: { output_ids: [5], completion_tokens: 2, index: 0 } });
    call.end();
  });
  const expected = [
    ['chunk', 0, 1],
    ['chunk', 1, 1],
    ['chunk', 1, 3],
    ['chunk', 0, 2],
    ['complete', 1, 3],
    ['complete', 0, 2],
  ];
  for (const client of [vllm, sglang]) {
    const out = await drain(client.generate(request('r', 2)));
    assert.deepEqual(
      out.map((o) => [o.kind, o.index, o.completionTokens]),
      expected,
      client.runtime,
    );
  }
});

test('the engine receives the built request', async () => {
  let seen: Record<string, unknown> | undefined;
  const { client } = await setup('sglang', (call) => {
    seen = call.request;
    call.end();
  });
  await drain(client.generate(request('req-9')));
  assert.equal(seen?.request_id, 'req-9');
  assert.deepEqual(seen?.tokenized, { original_text: 'ab', input_ids: [1, 2] });
  assert.equal((seen?.sampling_params as Record<string, unknown>).top_k, -1);
});
