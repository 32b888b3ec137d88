// Our messages against bytes written by hand from the spec's field numbers (reference §1.2–1.4):
// tag = (field << 3) | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32), varints
// little-endian base-128, floats IEEE-754 little-endian, repeated uint32 packed. A renamed field
// (which fromObject drops silently) or a wrong number in a .proto file changes these bytes.
// protobufjs writes every field the object sets, zeros included, in field-number order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineService, type EngineRuntime } from '@switchyard/protos';
import { normaliseLoads } from '../../../src/engine/loads.js';
import { OutputNormaliser } from '../../../src/engine/normalise.js';
import { buildSglangRequest } from '../../../src/engine/sglang-request.js';
import { buildTokenSpeedRequest } from '../../../src/engine/tokenspeed-request.js';
import { buildVllmRequest } from '../../../src/engine/vllm-request.js';
import type { GenerateInput, SamplingInput } from '../../../src/engine/types.js';

interface MethodDef {
  requestSerialize(value: unknown): Buffer;
  requestDeserialize(bytes: Buffer): Record<string, unknown>;
  responseSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): Record<string, unknown>;
}

function method(runtime: EngineRuntime, name: string): MethodDef {
  return (engineService(runtime).service as unknown as Record<string, MethodDef>)[name]!;
}

/** Hex bytes → a Buffer; whitespace is ignored and `|` starts a comment to the end of the line. */
function hex(s: string): Buffer {
  const digits = s
    .split('\n')
    .map((line) => line.split('|')[0]!.replace(/\s/g, ''))
    .join('');
  assert.match(digits, /^([0-9a-f]{2})*$/, 'hand bytes are whole hex pairs');
  return Buffer.from(digits, 'hex');
}

function input(sampling: Partial<SamplingInput>, extra: Partial<GenerateInput>): GenerateInput {
  return {
    kind: 'chat',
    requestId: 'r1',
    inputIds: [1, 300],
    originalText: 'hi',
    stream: true,
    sampling: {
      stop: [],
      stopTokenIds: [],
      ignoreEos: false,
      noStopTrim: false,
      n: 1,
      skipSpecialTokens: true,
      spacesBetweenSpecialTokens: true,
      ...sampling,
    },
    ...extra,
  };
}

// varint 300 = ac 02; -1 as int32/int64 = ff ff ff ff ff ff ff ff ff 01 (ten bytes);
// 8998 = a6 46; 1.0f = 00 00 80 3f; 0.5f = 00 00 00 3f.
const SGLANG_REQUEST = hex(`
  0a 02 72 31                                   | 1 request_id "r1"
  12 09 0a 02 68 69 12 03 01 ac 02              | 2 tokenized {1 original_text "hi", 2 input_ids [1,300]}
  22 3e                                         | 4 sampling_params, 62 bytes:
    0d 00 00 00 3f                              |   1 temperature 0.5
    15 00 00 80 3f                              |   2 top_p 1
    18 ff ff ff ff ff ff ff ff ff 01            |   3 top_k -1
    25 00 00 00 00                              |   4 min_p 0
    2d 00 00 00 00                              |   5 frequency_penalty 0
    35 00 00 00 00                              |   6 presence_penalty 0
    3d 00 00 80 3f                              |   7 repetition_penalty 1
    40 10                                       |   8 max_new_tokens 16
    52 01 02                                    |  10 stop_token_ids [2]
    58 01                                       |  11 skip_special_tokens
    60 01                                       |  12 spaces_between_special_tokens
    88 01 01                                    |  17 n 1
    90 01 00                                    |  18 min_new_tokens 0
    98 01 00                                    |  19 ignore_eos false
    a0 01 00                                    |  20 no_stop_trim false
  28 00                                         | 5 return_logprob false
  30 ff ff ff ff ff ff ff ff ff 01              | 6 logprob_start_len -1
  38 00                                         | 7 top_logprobs_num 0
  52 08 0a 01 68 10 a6 46 18 05                 | 10 disaggregated_params {"h", 8998, room 5}
  80 01 01                                      | 16 data_parallel_rank 1
  88 01 01                                      | 17 stream true
`);

const VLLM_REQUEST = hex(`
  0a 02 72 31                                   | 1 request_id
  12 09 0a 02 68 69 12 03 01 ac 02              | 2 tokenized (the input oneof)
  22 3d                                         | 4 sampling_params, 61 bytes (no temperature):
    15 00 00 80 3f                              |   2 top_p 1
    18 05                                       |   3 top_k 5
    25 00 00 00 00                              |   4 min_p
    2d 00 00 00 00                              |   5
    35 00 00 00 00                              |   6
    3d 00 00 80 3f                              |   7 repetition_penalty 1
    40 10                                       |   8 max_tokens 16
    48 00                                       |   9 min_tokens 0
    52 01 78                                    |  10 stop ["x"]
    60 01                                       |  12 skip_special_tokens
    68 01                                       |  13 spaces_between_special_tokens
    70 00                                       |  14 ignore_eos
    78 01                                       |  15 n 1
    a0 01 01                                    |  20 json_object true
    c0 01 07                                    |  24 seed 7
    c8 01 00                                    |  25 include_stop_str_in_output false
    d2 01 07 08 0f 15 00 00 00 3f               |  26 logit_bias {15: 0.5}
  28 00                                         | 5 stream false
  42 02 7b 7d                                   | 8 kv_transfer_params_json "{}"
`);

// 2^53 + 1 as a varint: 81 80 80 80 80 80 80 10 (bit 0, and bit 53 = bit 4 of the 8th group).
const TOKENSPEED_REQUEST = hex(`
  0a 02 72 31                                   | 1 request_id
  12 09 0a 03 01 ac 02 12 02 68 69              | 2 tokenized {1 input_ids, 2 original_text}: swapped
  1a 39                                         | 3 sampling_params, 57 bytes:
    0d 00 00 80 3f                              |   1 temperature 1
    15 00 00 80 3f                              |   2 top_p 1
    18 ff ff ff ff ff ff ff ff ff 01            |   3 top_k -1
    25 00 00 00 00                              |   4 min_p
    2d 00 00 00 00                              |   5
    35 00 00 00 00                              |   6
    3d 00 00 80 3f                              |   7 repetition_penalty 1
    48 00                                       |   9 min_new_tokens
    60 00                                       |  12 ignore_eos
    68 01                                       |  13 skip_special_tokens
    70 01                                       |  14 spaces_between_special_tokens
    78 01                                       |  15 n
    b0 01 00                                    |  22 no_stop_trim
    b8 01 2a                                    |  23 sampling_seed 42
  20 00                                         | 4 return_logprob
  28 ff ff ff ff ff ff ff ff ff 01              | 5 logprob_start_len -1
  30 00                                         | 6 top_logprobs_num
  40 01                                         | 8 stream true
  5a 0f 0a 01 68 10 a6 46 18 81 80 80 80 80 80 80 10 | 11 kv_bootstrap_info {"h", 8998, 2^53+1}
`);

test('SGLang GenerateRequest encodes to the hand-written bytes and back', () => {
  const req = buildSglangRequest(
    input(
      { temperature: 0.5, maxNewTokens: 16, stopTokenIds: [2] },
      { bootstrap: { host: 'h', port: 8998, room: 5n }, dataParallelRank: 1 },
    ),
  );
  const m = method('sglang', 'Generate');
  assert.equal(m.requestSerialize(req).toString('hex'), SGLANG_REQUEST.toString('hex'));
  const back = m.requestDeserialize(SGLANG_REQUEST);
  assert.deepEqual(back.tokenized, { original_text: 'hi', input_ids: [1, 300] });
  assert.deepEqual(back.disaggregated_params, {
    bootstrap_host: 'h',
    bootstrap_port: 8998,
    bootstrap_room: 5,
  });
  const sp = back.sampling_params as Record<string, unknown>;
  assert.equal(sp.top_k, -1);
  assert.equal(sp.n, 1);
  assert.equal(back.logprob_start_len, -1);
});

test('vLLM GenerateRequest encodes to the hand-written bytes and back', () => {
  const req = buildVllmRequest(
    input(
      {
        topK: 5,
        stop: ['x'],
        seed: 7,
        maxNewTokens: 16,
        logitBias: { '15': 0.5 },
        constraint: { kind: 'json_object' },
      },
      { stream: false, kvTransferParamsJson: '{}' },
    ),
  );
  const m = method('vllm', 'Generate');
  assert.equal(m.requestSerialize(req).toString('hex'), VLLM_REQUEST.toString('hex'));
  const back = m.requestDeserialize(VLLM_REQUEST);
  assert.equal(back.input, 'tokenized');
  const sp = back.sampling_params as Record<string, unknown>;
  assert.equal(sp.temperature, undefined);
  assert.equal(sp.constraint, 'json_object');
  assert.deepEqual(sp.logit_bias, { '15': 0.5 });
  assert.equal(back.kv_transfer_params_json, '{}');
});

test('TokenSpeed GenerateRequest keeps a room above 2^53 exact, both ways', () => {
  const room = 2n ** 53n + 1n;
  const req = buildTokenSpeedRequest(
    input({ seed: 42 }, { bootstrap: { host: 'h', port: 8998, room } }),
  );
  const m = method('tokenspeed', 'Generate');
  assert.equal(m.requestSerialize(req).toString('hex'), TOKENSPEED_REQUEST.toString('hex'));
  const back = m.requestDeserialize(TOKENSPEED_REQUEST);
  assert.deepEqual(back.tokenized, { input_ids: [1, 300], original_text: 'hi' });
  assert.equal((back.kv_bootstrap_info as Record<string, unknown>).bootstrap_room, room.toString());
  assert.equal((back.sampling_params as Record<string, unknown>).sampling_seed, '42');
});

test('GenerateResponse chunks and completes decode from hand bytes (SGLang, vLLM)', () => {
  const sgChunk = hex(`
    0a 02 72 31                               | 1 request_id
    12 0a 0a 02 05 06 10 03 18 02 40 01       | 2 chunk {token_ids [5,6], prompt 3, completion 2, 8 index 1}
  `);
  // matched_token_id 0 inside the oneof is still sent, so "stopped by token 0" survives.
  const sgComplete = hex(`
    0a 02 72 31                               | 1 request_id
    1a 10                                     | 3 complete, 16 bytes:
      0a 02 05 06 12 04 73 74 6f 70           |   1 output_ids [5,6], 2 finish_reason "stop"
      18 03 20 02 40 00                       |   3 prompt 3, 4 completion 2, 8 matched_token_id 0
  `);
  const sg = method('sglang', 'Generate');
  const n = new OutputNormaliser(false);
  assert.deepEqual(n.normalise(sg.responseDeserialize(sgChunk)), {
    kind: 'chunk',
    index: 1,
    tokenIds: [5, 6],
    promptTokens: 3,
    completionTokens: 2,
    cachedTokens: 0,
    reasoningTokens: 0,
    logprobs: undefined,
  });
  const done = n.normalise(sg.responseDeserialize(sgComplete));
  assert.equal(done.kind, 'complete');
  assert.equal(done.kind === 'complete' && done.matchedStop, 0);
  assert.equal(done.kind === 'complete' && done.finishReason, 'stop');
  assert.equal(
    sg
      .responseSerialize({
        request_id: 'r1',
        chunk: { token_ids: [5, 6], prompt_tokens: 3, completion_tokens: 2, index: 1 },
      })
      .toString('hex'),
    sgChunk.toString('hex'),
  );

  // vLLM has no request_id; chunk is field 1 and complete field 2.
  const vlChunk = hex('0a 07 0a 01 04 18 01 38 01'); // chunk {token_ids [4], completion 1, 7 index 1}
  const vlComplete = hex(`
    12 1c                                     | 2 complete, 28 bytes:
      0a 01 09 12 04 73 74 6f 70              |   1 output_ids [9], 2 finish_reason "stop"
      40 01                                   |   8 index 1
      5a 05 6c 6f 20 77 6f                    |  11 matched_stop_str "lo wo"
      62 08 7b 22 61 22 3a 20 31 7d           |  12 kv_transfer_params_json '{"a": 1}'
  `);
  const vl = method('vllm', 'Generate');
  const completeObj = {
    complete: {
      output_ids: [9],
      finish_reason: 'stop',
      index: 1,
      matched_stop_str: 'lo wo',
      kv_transfer_params_json: '{"a": 1}',
    },
  };
  assert.equal(vl.responseSerialize(completeObj).toString('hex'), vlComplete.toString('hex'));
  const vn = new OutputNormaliser(true);
  const c = vn.normalise(vl.responseDeserialize(vlChunk));
  assert.equal(c.kind === 'chunk' && c.tokenIds[0], 4);
  const end = vn.normalise(vl.responseDeserialize(vlComplete));
  assert.equal(end.kind === 'complete' && end.matchedStop, 'lo wo');
  assert.equal(end.kind === 'complete' && end.kvTransferParamsJson, '{"a": 1}');
  assert.equal(end.index, 1);
});

test('GetLoadsResponse: SGLang and TokenSpeed number SchedulerLoad differently', () => {
  // 1000 = e8 07; 0.25 as a double = 00 00 00 00 00 00 d0 3f.
  const sglang = hex(`
    12 01 76 18 01                            | 2 version "v", 3 dp_rank_count 1
    22 22                                     | 4 loads[0], 34 bytes:
      10 03 18 02 30 e8 07                    |   2 running 3, 3 waiting 2, 6 max_total_num_tokens 1000
      39 00 00 00 00 00 00 d0 3f              |   7 token_usage 0.25 (fixed64)
      58 40                                   |  11 max_running_requests 64
      7a 0e 0a 06 64 65 63 6f 64 65           |  15 disaggregation {1 mode "decode",
        20 01 28 02 30 03                     |      4 prealloc 1, 5 transfer 2, 6 retracted 3}
  `);
  const tokenspeed = hex(`
    18 01                                     | 3 dp_rank_count 1
    22 11                                     | 4 loads[0], 17 bytes:
      10 03 38 40                             |   2 running 3, 7 max_running_requests 64
      41 00 00 00 00 00 00 d0 3f              |   8 token_usage 0.25 (fixed64)
      6a 02 08 04                             |  13 queues {1 waiting 4}
  `);
  const sgLoads = method('sglang', 'GetLoads');
  const tsLoads = method('tokenspeed', 'GetLoads');
  const expected = {
    dpRank: 0,
    numRunningReqs: 3,
    numWaitingReqs: 0,
    numUsedTokens: 0,
    maxTotalNumTokens: 0,
    maxRunningRequests: 64,
    tokenUsage: 0.25,
    prefillQueue: 0,
    decodeQueue: 0,
  };
  assert.deepEqual(normaliseLoads(sgLoads.responseDeserialize(sglang)), [
    { ...expected, numWaitingReqs: 2, maxTotalNumTokens: 1000, decodeQueue: 6 },
  ]);
  assert.deepEqual(normaliseLoads(tsLoads.responseDeserialize(tokenspeed)), [expected]);
  const tsObj = {
    dp_rank_count: 1,
    loads: [
      { num_running_reqs: 3, max_running_requests: 64, token_usage: 0.25, queues: { waiting: 4 } },
    ],
  };
  assert.equal(tsLoads.responseSerialize(tsObj).toString('hex'), tokenspeed.toString('hex'));
  // The same object through SGLang's numbering gives different bytes: field 7 is token_usage there.
  assert.notEqual(sgLoads.responseSerialize(tsObj).toString('hex'), tokenspeed.toString('hex'));
});
