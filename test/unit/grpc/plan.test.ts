// What a gRPC-mode request asks for, read from its body before any worker is chosen: sampling
// left unset when the client did not send it (each runtime applies its own default), one
// constraint at most, and the inputs not built yet (images, prompt batches) refused with a 400.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { planFor } from '../../../src/grpc/plan.js';
import { chatSampling, withModelDefaults } from '../../../src/grpc/sampling.js';
import type { Endpoint } from '../../../src/routing/endpoint.js';
import type { RequestContext } from '../../../src/routing/request-context.js';

function ctxOf(endpoint: Endpoint, body: Record<string, unknown>): RequestContext {
  return {
    endpoint,
    endpointLabel: endpoint,
    body,
    stream: body.stream === true,
  } as unknown as RequestContext;
}

function refusedWith(code: string, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GatewayError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.status, 400);
    return true;
  });
}

void describe('gRPC request plan', () => {
  void it('leaves every sampling field the client did not send unset, with SMG defaults for flags', () => {
    const s = chatSampling({ messages: [] });
    assert.equal(s.temperature, undefined);
    assert.equal(s.topK, undefined);
    assert.equal(s.maxNewTokens, undefined);
    assert.deepEqual(s.stop, []);
    assert.equal(s.n, 1);
    assert.equal(s.skipSpecialTokens, true);
    assert.equal(s.spacesBetweenSpecialTokens, true);
    assert.equal(s.ignoreEos, false);
  });

  void it('prefers max_completion_tokens over the legacy max_tokens and takes one stop string', () => {
    const s = chatSampling({ max_tokens: 5, max_completion_tokens: 9, stop: 'END' });
    assert.equal(s.maxNewTokens, 9);
    assert.deepEqual(s.stop, ['END']);
  });

  void it('maps response_format to a constraint and refuses two constraints', () => {
    assert.deepEqual(chatSampling({ response_format: { type: 'json_object' } }).constraint, {
      kind: 'json_object',
    });
    assert.deepEqual(
      chatSampling({ response_format: { type: 'json_schema', json_schema: { schema: { a: 1 } } } })
        .constraint,
      { kind: 'json_schema', value: '{"a":1}' },
    );
    refusedWith('invalid_request_parameters', () =>
      chatSampling({ response_format: { type: 'json_object' }, regex: 'a+' }),
    );
  });

  void it('refuses token ids and top_k that the wire would silently wrap', () => {
    refusedWith('invalid_request_parameters', () => chatSampling({ stop_token_ids: [2 ** 32] }));
    refusedWith('invalid_request_parameters', () => chatSampling({ top_k: 2 ** 31 }));
    assert.deepEqual(chatSampling({ stop_token_ids: [2 ** 32 - 1], top_k: -1 }).stopTokenIds, [
      2 ** 32 - 1,
    ]);
  });

  void it('bounds the stop strings the gateway matches itself', () => {
    assert.equal(
      chatSampling({ stop: new Array<string>(32).fill('x'.repeat(512)) }).stop.length,
      32,
    );
    refusedWith('invalid_request_parameters', () =>
      chatSampling({ stop: new Array<string>(33).fill('x') }),
    );
    refusedWith('invalid_request_parameters', () => chatSampling({ stop: 'x'.repeat(513) }));
  });

  void it('fills only the fields the client left out from the model defaults label', () => {
    const s = withModelDefaults(
      chatSampling({ temperature: 0.2 }),
      '{"temperature":0.7,"top_p":0.8}',
    );
    assert.equal(s.temperature, 0.2);
    assert.equal(s.topP, 0.8);
  });

  void it('refuses image content and prompt batches with a 400 before any worker is chosen', () => {
    refusedWith('multimodal_not_supported', () =>
      planFor(
        ctxOf('chat', {
          messages: [
            {
              role: 'user',
              content: [{ type: 'image_url', image_url: { url: 'http://x/a.png' } }],
            },
          ],
        }),
      ),
    );
    refusedWith('invalid_request_parameters', () =>
      planFor(ctxOf('completion', { prompt: ['one', 'two'] })),
    );
  });

  void it('reads chat, completion and /generate prompts', () => {
    const chat = planFor(
      ctxOf('chat', {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        stream: true,
        stream_options: { include_usage: true },
        logprobs: true,
        top_logprobs: 3,
      }),
    );
    assert.equal(chat.prompt.kind, 'chat');
    assert.equal(chat.stream, true);
    assert.equal(chat.includeUsage, true);
    assert.deepEqual(chat.logprobs, { topLogprobs: 3 });
    const unnamed = planFor(ctxOf('chat', { messages: [], logprobs: true }));
    assert.deepEqual(unnamed.logprobs, { topLogprobs: undefined });
    const completion = planFor(ctxOf('completion', { prompt: 'once', echo: true, logprobs: 9 }));
    assert.deepEqual(completion.prompt, { kind: 'text', text: 'once' });
    assert.equal(completion.echo, true);
    assert.deepEqual(completion.logprobs, { topLogprobs: 5 });
    const generate = planFor(
      ctxOf('generate', { input_ids: [1, 2, 3], sampling_params: { max_new_tokens: 4 } }),
    );
    assert.deepEqual(generate.prompt, { kind: 'ids', ids: [1, 2, 3] });
    assert.equal(generate.sampling.maxNewTokens, 4);
  });
});
