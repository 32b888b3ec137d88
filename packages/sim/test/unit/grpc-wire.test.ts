// The PD fields of a GenerateRequest as the simulator reads them: SGLang's int32 room and
// TokenSpeed's int64 room (a decimal string, every digit kept), the default port, vLLM's
// kv_transfer_params_json and its refusal when it is not a JSON object.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { SimTokenizer } from '../../src/sim-tokenizer.js';
import { firstTokenOnly, planChoice } from '../../src/grpc-answer.js';
import { completeMessage, parseGenerate } from '../../src/grpc-wire.js';
import { loadSimTokenizer } from '../../src/sim-tokenizer.js';

let tok: SimTokenizer;
const base = { request_id: 'r', tokenized: { input_ids: [1, 2, 3] } };

void describe('parseGenerate PD fields', () => {
  before(async () => {
    tok = await loadSimTokenizer(undefined);
  });

  void it('SGLang disaggregated_params: the int32 room as text; port 0 is absent', () => {
    const req = {
      ...base,
      disaggregated_params: { bootstrap_host: '10.0.0.1', bootstrap_room: 7 },
      data_parallel_rank: 2,
    };
    const r = parseGenerate('sglang', req, tok);
    assert.ok(r.ok);
    assert.deepEqual(r.value.bootstrap, { host: '10.0.0.1', port: undefined, room: '7' });
    assert.equal(r.value.dataParallelRank, 2);
    const plain = parseGenerate('sglang', base, tok);
    assert.ok(plain.ok);
    assert.equal(plain.value.bootstrap, undefined);
  });

  void it('TokenSpeed kv_bootstrap_info: an int64 room above 2^53 keeps every digit', () => {
    const req = {
      ...base,
      kv_bootstrap_info: {
        bootstrap_host: '127.0.0.1',
        bootstrap_port: 9001,
        bootstrap_room: '9007199254740993',
      },
    };
    const r = parseGenerate('tokenspeed', req, tok);
    assert.ok(r.ok);
    assert.deepEqual(r.value.bootstrap, {
      host: '127.0.0.1',
      port: 9001,
      room: '9007199254740993',
    });
    // Room 0 is not on the wire (proto3 default), yet the message is there.
    const zero = parseGenerate('tokenspeed', { ...base, kv_bootstrap_info: {} }, tok);
    assert.ok(zero.ok);
    assert.equal(zero.value.bootstrap?.room, '0');
  });

  void it('vLLM kv_transfer_params_json: parsed, null is none, anything else is refused', () => {
    const ok = parseGenerate(
      'vllm',
      { ...base, kv_transfer_params_json: '{"do_remote_decode":true}' },
      tok,
    );
    assert.ok(ok.ok);
    assert.deepEqual(ok.value.kvTransferParams, { do_remote_decode: true });
    const none = parseGenerate('vllm', { ...base, kv_transfer_params_json: 'null' }, tok);
    assert.ok(none.ok);
    assert.equal(none.value.kvTransferParams, undefined);
    const bad = parseGenerate('vllm', { ...base, kv_transfer_params_json: '{nope' }, tok);
    assert.ok(!bad.ok);
    assert.match(bad.message, /kv_transfer_params_json is not valid JSON/);
    const list = parseGenerate('vllm', { ...base, kv_transfer_params_json: '[1]' }, tok);
    assert.ok(!list.ok);
    assert.match(list.message, /must be a JSON object/);
  });
});

void describe('PD answers', () => {
  void it('a prefill answers its first token, on its cap unless it stopped there', () => {
    const rules = { maxNewTokens: 8, stopTokenIds: new Set<number>(), ignoreEos: false };
    const cut = firstTokenOnly(planChoice([5, 6, 7], 9, rules));
    assert.deepEqual([cut.length, cut.finish, cut.matched], [1, 'length', undefined]);
    const eosFirst = planChoice([], 9, rules);
    assert.equal(firstTokenOnly(eosFirst), eosFirst);
  });

  void it('the vLLM complete carries kv_transfer_params_json only when given', () => {
    const counts = { prompt: 3, completion: 1, cached: 0 };
    const withParams = completeMessage('vllm', 'r', 0, [5], 'length', undefined, counts, '{}');
    assert.equal(
      (withParams['complete'] as Record<string, unknown>)['kv_transfer_params_json'],
      '{}',
    );
    const without = completeMessage('vllm', 'r', 0, [5], 'length', undefined, counts);
    assert.equal('kv_transfer_params_json' in (without['complete'] as object), false);
  });
});
