import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  mergeInto,
  mergeSseEvent,
  prefillInputLogprobs,
  wantsLogprobs,
} from '../../../src/pd/logprobs.js';

const prefillDoc = {
  text: 'x',
  meta_info: {
    input_token_logprobs: [
      [-0.1, 1, null],
      [-0.2, 2, null],
    ],
  },
};

test('prefill logprobs come from a JSON body or the first SSE event that has them', () => {
  assert.deepEqual(
    prefillInputLogprobs(JSON.stringify(prefillDoc)),
    prefillDoc.meta_info.input_token_logprobs,
  );
  const sse = `data: {"text":"","meta_info":{}}\n\ndata: ${JSON.stringify(prefillDoc)}\n\ndata: [DONE]\n\n`;
  assert.deepEqual(prefillInputLogprobs(sse), prefillDoc.meta_info.input_token_logprobs);
  assert.equal(prefillInputLogprobs('not json'), undefined);
});

test('merge puts the prefill logprobs in front, in JSON and in SSE events', () => {
  const decode = { text: 'y', meta_info: { input_token_logprobs: [[-0.3, 3, null]] } };
  assert.equal(mergeInto(decode, [[-0.1, 1, null]]), true);
  assert.deepEqual(decode.meta_info.input_token_logprobs, [
    [-0.1, 1, null],
    [-0.3, 3, null],
  ]);
  const event = mergeSseEvent('data: {"meta_info":{"input_token_logprobs":[[-0.3,3,null]]}}', [
    [-0.1, 1, null],
  ]);
  assert.equal(event, 'data: {"meta_info":{"input_token_logprobs":[[-0.1,1,null],[-0.3,3,null]]}}');
  assert.equal(mergeSseEvent('data: [DONE]', [1]), 'data: [DONE]');
  assert.equal(
    mergeSseEvent('data: {"choices":[]}', [1]),
    'data: {"choices":[]}',
    'OpenAI bodies pass unchanged',
  );
});

test('wantsLogprobs reads both spellings', () => {
  assert.equal(wantsLogprobs({ return_logprob: true }), true);
  assert.equal(wantsLogprobs({ logprobs: true }), true);
  assert.equal(wantsLogprobs({ logprobs: 2 }), true);
  assert.equal(wantsLogprobs({}), false);
  assert.equal(wantsLogprobs({ logprobs: false }), false);
});
