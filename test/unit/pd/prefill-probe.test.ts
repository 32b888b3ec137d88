import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasMultimodalInput, samplingN, sanitizePrefill } from '../../../src/pd/sanitize.js';
import { grpcSkipInputs } from '../../../src/pd/grpc/grpc-sequential.js';
import { shouldSkipPrefill, type KvConnectorMode } from '../../../src/pd/skip-prefill.js';

test('the probe is one token, not streamed, must stop on length', () => {
  const body = {
    model: 'm',
    messages: [],
    max_tokens: 50,
    stream: true,
    stream_options: { include_usage: true },
    min_tokens: 5,
    min_completion_tokens: 5,
    stop: ['\n'],
    stop_token_ids: [2],
    n: 1,
    temperature: 0.7,
  };
  const probe = sanitizePrefill('chat', body);
  assert.deepEqual(probe, {
    model: 'm',
    messages: [],
    max_tokens: 1,
    stream: false,
    n: 1,
    temperature: 0.7,
    ignore_eos: true,
  });
  assert.equal(body.max_tokens, 50, 'the original is untouched');
});

test('the output cap key follows the route', () => {
  assert.deepEqual(sanitizePrefill('chat', { max_completion_tokens: 9, max_tokens: 9 }), {
    max_completion_tokens: 1,
    stream: false,
    ignore_eos: true,
  });
  assert.equal(sanitizePrefill('responses', { max_output_tokens: 9 }).max_output_tokens, 1);
  assert.equal(sanitizePrefill('completion', {}).max_tokens, 1);
});

test('samplingN and multimodal detection', () => {
  assert.equal(samplingN({}), 1);
  assert.equal(samplingN({ n: 3 }), 3);
  assert.equal(
    hasMultimodalInput('chat', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url: 'data:' } },
          ],
        },
      ],
    }),
    true,
  );
  assert.equal(hasMultimodalInput('chat', { messages: [{ role: 'user', content: 'x' }] }), false);
});

test('prefill is skipped only for fan-out with nothing else needing the prefill leg (full matrix)', () => {
  const modes: KvConnectorMode[] = ['nixl', 'mooncake', 'passthrough'];
  for (const relayPossible of [true, false]) {
    for (const hasEncodeLeg of [true, false]) {
      for (const hasMultimodalInput of [true, false]) {
        for (const mode of modes) {
          const expected =
            !relayPossible && !hasEncodeLeg && !hasMultimodalInput && mode !== 'mooncake';
          assert.equal(
            shouldSkipPrefill({ relayPossible, hasEncodeLeg, hasMultimodalInput, mode }),
            expected,
            JSON.stringify({ relayPossible, hasEncodeLeg, hasMultimodalInput, mode }),
          );
        }
      }
    }
  }
});

test('the gRPC path skips the vLLM probe for fan-out under NIXL or passthrough only', () => {
  const modes: KvConnectorMode[] = ['nixl', 'mooncake', 'passthrough'];
  for (const n of [1, 2, 8]) {
    for (const mode of modes) {
      assert.equal(
        shouldSkipPrefill(grpcSkipInputs(n, mode)),
        n > 1 && mode !== 'mooncake',
        JSON.stringify({ n, mode }),
      );
    }
  }
});
