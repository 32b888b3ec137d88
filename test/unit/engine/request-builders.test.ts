// Each runtime's GenerateRequest carries SMG's defaults for a request that set no sampling field
// (reference §1.6, acceptance A5), and the fields that differ per runtime (stops, top_k, seed,
// constraint names, PD rendezvous) take each runtime's shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSglangRequest } from '../../../src/engine/sglang-request.js';
import { buildTokenSpeedRequest } from '../../../src/engine/tokenspeed-request.js';
import { buildVllmRequest } from '../../../src/engine/vllm-request.js';
import type { GenerateInput, SamplingInput } from '../../../src/engine/types.js';

function input(sampling: Partial<SamplingInput> = {}, extra: Partial<GenerateInput> = {}) {
  const base: GenerateInput = {
    kind: 'chat',
    requestId: 'chatcmpl-1',
    inputIds: [1, 2, 3],
    originalText: '<|im_start|>user\nhi',
    stream: true,
    sampling: {
      stop: ['</s>', 'END'],
      stopTokenIds: [7],
      ignoreEos: false,
      noStopTrim: false,
      n: 1,
      skipSpecialTokens: true,
      spacesBetweenSpecialTokens: true,
      ...sampling,
    },
  };
  return { ...base, ...extra };
}

test('SGLang gets every sampling field explicit and no stop strings', () => {
  assert.deepEqual(buildSglangRequest(input()), {
    request_id: 'chatcmpl-1',
    tokenized: { original_text: '<|im_start|>user\nhi', input_ids: [1, 2, 3] },
    sampling_params: {
      temperature: 1,
      top_p: 1,
      top_k: -1,
      min_p: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      repetition_penalty: 1,
      stop: [],
      stop_token_ids: [7],
      skip_special_tokens: true,
      spaces_between_special_tokens: true,
      n: 1,
      min_new_tokens: 0,
      ignore_eos: false,
      no_stop_trim: false,
    },
    return_logprob: false,
    logprob_start_len: -1,
    top_logprobs_num: 0,
    stream: true,
  });
});

test('vLLM leaves temperature unset, disables top_k with 0 and sends stop strings', () => {
  assert.deepEqual(buildVllmRequest(input()), {
    request_id: 'chatcmpl-1',
    tokenized: { original_text: '<|im_start|>user\nhi', input_ids: [1, 2, 3] },
    sampling_params: {
      top_p: 1,
      top_k: 0,
      min_p: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      repetition_penalty: 1,
      min_tokens: 0,
      stop: ['</s>', 'END'],
      stop_token_ids: [7],
      skip_special_tokens: true,
      spaces_between_special_tokens: true,
      ignore_eos: false,
      n: 1,
      include_stop_str_in_output: false,
    },
    stream: true,
  });
});

test('TokenSpeed gets every scalar present, stop strings and no input logprobs', () => {
  assert.deepEqual(buildTokenSpeedRequest(input()), {
    request_id: 'chatcmpl-1',
    tokenized: { input_ids: [1, 2, 3], original_text: '<|im_start|>user\nhi' },
    sampling_params: {
      temperature: 1,
      top_p: 1,
      top_k: -1,
      min_p: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      repetition_penalty: 1,
      min_new_tokens: 0,
      stop: ['</s>', 'END'],
      stop_token_ids: [7],
      ignore_eos: false,
      skip_special_tokens: true,
      spaces_between_special_tokens: true,
      n: 1,
      no_stop_trim: false,
    },
    return_logprob: false,
    logprob_start_len: -1,
    top_logprobs_num: 0,
    stream: true,
  });
});

test('client values pass through; top_k -1 becomes vLLM 0 and a positive one stays', () => {
  const sampling = {
    temperature: 0,
    topP: 0.5,
    topK: 20,
    minP: 0.1,
    maxNewTokens: 64,
    minNewTokens: 2,
    n: 2,
    noStopTrim: true,
    ignoreEos: true,
  };
  const sg = buildSglangRequest(input(sampling)).sampling_params;
  assert.equal(sg.temperature, 0);
  assert.equal(sg.top_k, 20);
  assert.equal(sg.max_new_tokens, 64);
  assert.equal(sg.min_new_tokens, 2);
  assert.equal(sg.no_stop_trim, true);
  const vl = buildVllmRequest(input(sampling)).sampling_params;
  assert.equal(vl.temperature, 0);
  assert.equal(vl.max_tokens, 64);
  assert.equal(vl.min_tokens, 2);
  assert.equal(vl.include_stop_str_in_output, true);
  assert.equal(buildVllmRequest(input({ topK: -1 })).sampling_params.top_k, 0);
  const ts = buildTokenSpeedRequest(input(sampling)).sampling_params;
  assert.equal(ts.max_new_tokens, 64);
  assert.equal(ts.top_p, 0.5);
});

test('logprobs: SGLang/TokenSpeed return_logprob + top_logprobs_num, vLLM logprobs', () => {
  const lp = { logprobs: { topLogprobs: 3 } };
  const sg = buildSglangRequest(input({}, lp));
  assert.equal(sg.return_logprob, true);
  assert.equal(sg.top_logprobs_num, 3);
  const ts = buildTokenSpeedRequest(input({}, lp));
  assert.equal(ts.return_logprob, true);
  assert.equal(ts.top_logprobs_num, 3);
  assert.equal(buildVllmRequest(input({}, lp)).sampling_params.logprobs, 3);
  assert.equal(buildVllmRequest(input()).sampling_params.logprobs, undefined);
  // No count named: vLLM gets SMG's 1, the schedulers 0 alternatives.
  const unnamed = { logprobs: {} };
  assert.equal(buildVllmRequest(input({}, unnamed)).sampling_params.logprobs, 1);
  assert.equal(buildSglangRequest(input({}, unnamed)).top_logprobs_num, 0);
  assert.equal(
    buildVllmRequest(input({}, { logprobs: { topLogprobs: 0 } })).sampling_params.logprobs,
    0,
  );
});

test('constraints take each runtime member name', () => {
  const cases = [
    [{ kind: 'json_object' }, { json_schema: '{"type":"object"}' }, { json_object: true }],
    [{ kind: 'json_schema', value: 'S' }, { json_schema: 'S' }, { json_schema: 'S' }],
    [{ kind: 'regex', value: 'R' }, { regex: 'R' }, { regex: 'R' }],
    [{ kind: 'ebnf', value: 'E' }, { ebnf_grammar: 'E' }, { grammar: 'E' }],
    [{ kind: 'structural_tag', value: 'T' }, { structural_tag: 'T' }, { structural_tag: 'T' }],
  ] as const;
  for (const [constraint, scheduler, vllm] of cases) {
    const sg = buildSglangRequest(input({ constraint })).sampling_params;
    const ts = buildTokenSpeedRequest(input({ constraint })).sampling_params;
    const vl = buildVllmRequest(input({ constraint })).sampling_params;
    for (const [k, v] of Object.entries(scheduler)) {
      assert.equal((sg as Record<string, unknown>)[k], v);
      assert.equal((ts as Record<string, unknown>)[k], v);
    }
    for (const [k, v] of Object.entries(vllm)) assert.equal((vl as Record<string, unknown>)[k], v);
  }
});

test('seed: clamped to int32 for vLLM, a uint64 decimal string for TokenSpeed, absent on SGLang', () => {
  assert.equal(buildVllmRequest(input({ seed: 2 ** 40 })).sampling_params.seed, 2 ** 31 - 1);
  assert.equal(buildVllmRequest(input({ seed: -(2 ** 40) })).sampling_params.seed, -(2 ** 31));
  assert.equal(buildVllmRequest(input({ seed: 42 })).sampling_params.seed, 42);
  assert.equal(buildTokenSpeedRequest(input({ seed: 42 })).sampling_params.sampling_seed, '42');
  assert.equal(
    buildTokenSpeedRequest(input({ seed: -1 })).sampling_params.sampling_seed,
    '18446744073709551615',
  );
  assert.equal('seed' in buildSglangRequest(input({ seed: 42 })).sampling_params, false);
});

test('logit bias: string keys for SGLang/TokenSpeed, integer token ids for vLLM', () => {
  const logitBias = { '15': 1.5, '200': -2, bad: 3 };
  assert.deepEqual(buildVllmRequest(input({ logitBias })).sampling_params.logit_bias, {
    '15': 1.5,
    '200': -2,
  });
  assert.deepEqual(buildSglangRequest(input({ logitBias })).sampling_params.logit_bias, logitBias);
  assert.equal(buildSglangRequest(input({ logitBias: {} })).sampling_params.logit_bias, undefined);
});

test('PD and DP fields: SGLang int32 room, TokenSpeed exact 63-bit room, vLLM params string', () => {
  const bootstrap = { host: '10.0.0.1', port: 8998, room: 12345n };
  assert.deepEqual(buildSglangRequest(input({}, { bootstrap })).disaggregated_params, {
    bootstrap_host: '10.0.0.1',
    bootstrap_port: 8998,
    bootstrap_room: 12345,
  });
  assert.throws(
    () => buildSglangRequest(input({}, { bootstrap: { ...bootstrap, room: 2n ** 31n } })),
    RangeError,
  );
  const big = 2n ** 53n + 1n;
  assert.deepEqual(
    buildTokenSpeedRequest(input({}, { bootstrap: { ...bootstrap, room: big } })).kv_bootstrap_info,
    { bootstrap_host: '10.0.0.1', bootstrap_port: 8998, bootstrap_room: '9007199254740993' },
  );
  assert.throws(
    () => buildTokenSpeedRequest(input({}, { bootstrap: { ...bootstrap, room: 2n ** 63n } })),
    RangeError,
  );
  const json = '{"do_remote_decode": true}';
  const vl = buildVllmRequest(input({}, { kvTransferParamsJson: json, dataParallelRank: 0 }));
  assert.equal(vl.kv_transfer_params_json, json);
  assert.equal(vl.data_parallel_rank, 0);
  assert.equal(buildSglangRequest(input({}, { dataParallelRank: 0 })).data_parallel_rank, 0);
  assert.equal('data_parallel_rank' in buildSglangRequest(input()), false);
});
