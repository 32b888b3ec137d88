import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerationPlan, InferenceKind } from '../../src/request-parse.js';
import { parseInference } from '../../src/request-parse.js';

const defaults = { model: 'sim-model', outputTokens: 16 };

function plan(kind: InferenceKind, body: unknown): GenerationPlan {
  const r = parseInference(kind, body, defaults);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

function rejects(kind: InferenceKind, body: unknown, pattern: RegExp): void {
  const r = parseInference(kind, body, defaults);
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.message, pattern);
}

void describe('parseInference', () => {
  void it('renders chat messages and counts their tokens', () => {
    const p = plan('chat', { messages: [{ role: 'user', content: 'Hello, world!' }] });
    // "user: Hello, world!" → user : Hello , world ! = 6 tokens
    assert.equal(p.promptTokens, 6);
    assert.equal(p.maxTokens, 16);
    assert.equal(p.finishReason, 'stop');
    assert.equal(p.model, 'sim-model');
    assert.equal(p.stream, false);
  });

  void it('reads text parts of array content the same as string content', () => {
    const a = plan('chat', { messages: [{ role: 'user', content: 'a b' }] });
    const b = plan('chat', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    });
    assert.equal(a.items[0]?.key, b.items[0]?.key);
  });

  void it('caps output with max_completion_tokens over max_tokens and reports length', () => {
    const p = plan('chat', {
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 9,
      max_completion_tokens: 3,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
      model: 'alias',
    });
    assert.equal(p.maxTokens, 3);
    assert.equal(p.finishReason, 'length');
    assert.equal(p.n, 2);
    assert.equal(p.includeUsage, true);
    assert.equal(p.model, 'alias');
  });

  void it('accepts completion prompts as text, token ids and batches', () => {
    assert.equal(plan('completion', { prompt: 'a b c' }).promptTokens, 3);
    const ids = plan('completion', { prompt: [5, 6, 7, 8] });
    assert.equal(ids.promptTokens, 4);
    assert.equal(ids.batch, false);
    const batch = plan('completion', { prompt: ['a', 'b c'] });
    assert.equal(batch.items.length, 2);
    assert.equal(batch.promptTokens, 3);
  });

  void it('reads /generate sampling params, rid and token ids for logprobs', () => {
    const p = plan('generate', {
      text: 'one two',
      rid: 'r1',
      return_logprob: true,
      sampling_params: { max_new_tokens: 0 },
    });
    assert.equal(p.maxTokens, 0);
    assert.equal(p.finishReason, 'length');
    assert.equal(p.rid, 'r1');
    assert.equal(p.items[0]?.ids?.length, 2);
    const byIds = plan('generate', { input_ids: [[1, 2], [3]] });
    assert.equal(byIds.batch, true);
    assert.equal(byIds.items.length, 2);
    assert.equal(plan('generate', { text: 'x', sampling_params: { n: 2 } }).batch, true);
  });

  void it('rejects malformed requests with a message naming the field', () => {
    rejects('chat', [], /JSON object/);
    rejects('chat', { messages: [] }, /messages/);
    rejects('chat', { messages: [{ content: 'x' }] }, /role/);
    rejects('chat', { messages: [{ role: 'user', content: 'x' }], n: 0 }, /'n'/);
    rejects('chat', { messages: [{ role: 'user', content: 'x' }], max_tokens: 1.5 }, /max_tokens/);
    rejects('chat', { messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, /stream/);
    rejects('completion', { prompt: 42 }, /prompt/);
    rejects('completion', { prompt: [] }, /empty/);
    rejects('generate', {}, /prompt/);
    rejects('generate', { text: 'x', sampling_params: 3 }, /sampling_params/);
  });
});
