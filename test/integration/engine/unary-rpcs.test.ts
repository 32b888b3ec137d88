// The engine's unary RPCs through the client against a real grpc-js server: what GetLoads asks
// for and how it is normalised, Structs in GetServerInfo, raw model info, health, and the
// GetTokenizer transfer checks (reference §1.1, §5.1).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '@switchyard/kit';
import { engineService, type EngineRuntime } from '@switchyard/protos';
import { connectEngine } from '../../../src/engine/connect.js';
import { collectTokenizerBundle } from '../../../src/engine/tokenizer-download.js';
import { EngineCallError, type EngineClient } from '../../../src/engine/types.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startEngineServer, unary, type Handlers } from './engine-server.js';

const closers: (() => void)[] = [];
after(() => closers.forEach((close) => close()));

async function client(runtime: EngineRuntime, handlers: Handlers): Promise<EngineClient> {
  const server = await startEngineServer({ [runtime]: handlers });
  const c = connectEngine(server.url, runtime, {
    clock: new ManualClock(),
    logger: silentLogger(),
  });
  closers.push(
    () => c.close(),
    () => server.close(),
  );
  return c;
}

function chunks(list: object[]): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    for (const c of list) call.write(c);
    call.end();
  };
}

test('getLoads asks for core, disagg, queues and memory and folds the PD queues', async () => {
  const seen: unknown[] = [];
  const c = await client('sglang', {
    GetLoads: unary(
      {
        dp_rank_count: 2,
        loads: [
          { dp_rank: 0, num_running_reqs: 3, max_running_requests: 8, token_usage: 0.5 },
          {
            dp_rank: 1,
            num_waiting_reqs: 4,
            num_used_tokens: 100,
            max_total_num_tokens: 1000,
            disaggregation: {
              mode: 'prefill',
              prefill_prealloc_queue_reqs: 1,
              prefill_inflight_queue_reqs: 2,
              decode_transfer_queue_reqs: 5,
            },
          },
        ],
      },
      seen,
    ),
  });
  const loads = await c.getLoads(5_000);
  assert.deepEqual(seen, [{ include: ['core', 'disagg', 'queues', 'memory'] }]);
  assert.deepEqual(loads, [
    {
      dpRank: 0,
      numRunningReqs: 3,
      numWaitingReqs: 0,
      numUsedTokens: 0,
      maxTotalNumTokens: 0,
      maxRunningRequests: 8,
      tokenUsage: 0.5,
      prefillQueue: 0,
      decodeQueue: 0,
    },
    {
      dpRank: 1,
      numRunningReqs: 0,
      numWaitingReqs: 4,
      numUsedTokens: 100,
      maxTotalNumTokens: 1000,
      maxRunningRequests: 0,
      tokenUsage: 0,
      prefillQueue: 3,
      decodeQueue: 5,
    },
  ]);
});

test('getServerInfo turns Structs into plain objects and leaves the Timestamp', async () => {
  // Struct's Value members are camelCase on proto-loader objects (protobufjs's bundled
  // descriptors), keepCase or not.
  const c = await client('tokenspeed', {
    GetServerInfo: unary({
      server_args: {
        fields: {
          tp_size: { numberValue: 2 },
          model_path: { stringValue: '/m' },
          enable_x: { boolValue: true },
          none: { nullValue: 'NULL_VALUE' },
          nested: {
            structValue: {
              fields: {
                a: { listValue: { values: [{ numberValue: 1 }, { stringValue: 'b' }] } },
              },
            },
          },
        },
      },
      tokenspeed_version: '1.0',
      max_total_num_tokens: 4096,
      start_time: { seconds: '1700000000', nanos: 5 },
    }),
  });
  const info = await c.getServerInfo(5_000);
  assert.deepEqual(info.server_args, {
    tp_size: 2,
    model_path: '/m',
    enable_x: true,
    none: null,
    nested: { a: [1, 'b'] },
  });
  assert.equal(info.scheduler_info, undefined);
  assert.equal(info.tokenspeed_version, '1.0');
  assert.equal(info.max_total_num_tokens, 4096);
  assert.deepEqual(info.start_time, { seconds: '1700000000', nanos: 5 });
});

test('getModelInfo returns the raw snake_case fields; healthCheck reports healthy and message', async () => {
  const c = await client('vllm', {
    GetModelInfo: unary({ served_model_name: 'm', max_context_length: 32768, eos_token_ids: [2] }),
    HealthCheck: unary({ healthy: true, message: 'ok' }),
  });
  assert.deepEqual(await c.getModelInfo(5_000), {
    served_model_name: 'm',
    max_context_length: 32768,
    eos_token_ids: [2],
  });
  assert.deepEqual(await c.healthCheck(5_000), { healthy: true, message: 'ok' });
});

test('a unary failure rejects with the EngineCallError of its status', async () => {
  const c = await client('sglang', {});
  await assert.rejects(c.getLoads(5_000), (err: unknown) => {
    assert.ok(err instanceof EngineCallError);
    assert.equal(err.code, grpc.status.UNIMPLEMENTED);
    return true;
  });
});

test('getTokenizer concatenates the chunks and takes the sha256 of the last', async () => {
  const c = await client('sglang', {
    GetTokenizer: chunks([
      { data: Buffer.from('PK\u0003\u0004ab') },
      { data: Buffer.from('cd'), sha256: 'f00d' },
    ]),
  });
  const bundle = await c.getTokenizer(5_000);
  assert.equal(bundle.data.toString('latin1'), 'PK\u0003\u0004abcd');
  assert.equal(bundle.sha256, 'f00d');
});

test('getTokenizer refuses a missing sha256, no chunk, and empty data', async () => {
  const cases: [object[], RegExp][] = [
    [[{ data: Buffer.from('a'), sha256: 'x' }, { data: Buffer.from('b') }], /no sha256/],
    [[], /no tokenizer chunk/],
    [[{ sha256: 'x' }], /empty tokenizer bundle/],
  ];
  for (const [list, message] of cases) {
    const c = await client('tokenspeed', { GetTokenizer: chunks(list) });
    await assert.rejects(c.getTokenizer(5_000), message);
  }
});

test('a bundle over the size limit is refused and the stream cancelled', async () => {
  let cancelled = false;
  const server = await startEngineServer({
    vllm: {
      GetTokenizer: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        call.on('cancelled', () => (cancelled = true));
        for (let i = 0; i < 4; i++) call.write({ data: Buffer.alloc(1024) });
      },
    },
  });
  const Stub = engineService('vllm');
  const stub = new Stub(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  closers.push(
    () => stub.close(),
    () => server.close(),
  );
  const stream = (
    stub as unknown as Record<string, (r: object) => grpc.ClientReadableStream<unknown>>
  ).GetTokenizer!({});
  await assert.rejects(collectTokenizerBundle(stream, 3000), /exceeds 3000 bytes/);
  await waitFor(() => cancelled, 'the server to see the stream cancelled');
});

test('getTokenizer stops at its signal: the stream is cancelled and the promise rejects', async () => {
  let received = false;
  let cancelled = false;
  const c = await client('sglang', {
    // Never sends: a tokenizer fetch that would otherwise hold its 120 s deadline.
    GetTokenizer: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      received = true;
      call.on('cancelled', () => (cancelled = true));
    },
  });
  const controller = new AbortController();
  const pending = c.getTokenizer(60_000, controller.signal);
  await waitFor(() => received, 'the server to get the call');
  controller.abort();
  await assert.rejects(pending);
  await waitFor(() => cancelled, 'the server to see the stream cancelled');
});
