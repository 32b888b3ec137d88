import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefillBodyFailed } from '../../../src/pd/prefill-drain.js';

test('an error event inside a 2xx prefill stream is a failure; normal bodies are not', () => {
  assert.equal(
    prefillBodyFailed(
      'data: {"text":"a"}\n\ndata: {"error":{"message":"KV bootstrap timed out","code":500}}\n\ndata: [DONE]\n\n',
    ),
    true,
  );
  assert.equal(prefillBodyFailed('{"error":{"message":"x"}}'), true);
  assert.equal(
    prefillBodyFailed('{"text":"a","meta_info":{"finish_reason":{"type":"abort"}}}'),
    true,
  );
  assert.equal(
    prefillBodyFailed(
      'data: {"text":"a","meta_info":{"finish_reason":{"type":"length"}}}\n\ndata: [DONE]\n\n',
    ),
    false,
  );
  assert.equal(prefillBodyFailed('{"id":"x","choices":[{"text":"a"}],"error":null}'), false);
});
