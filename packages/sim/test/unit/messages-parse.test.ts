// Anthropic Messages bodies are planned as the chat request an engine would convert them to: the
// same prompt count and content key (so the same answer and prefix-cache blocks), max_tokens as a
// cap over the natural length, and Anthropic-style validation messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerationPlan } from '../../src/request-parse.js';
import { countMessagesTokens, parseMessages } from '../../src/messages-parse.js';
import { parseInference } from '../../src/request-parse.js';

const defaults = { model: 'sim-model', outputTokens: 16, blockSize: 4 };

function messages(body: unknown): GenerationPlan {
  const r = parseMessages(body, defaults);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

function chat(body: unknown): GenerationPlan {
  const r = parseInference('chat', body, defaults);
  if (!r.ok) assert.fail(r.message);
  return r.plan;
}

function rejects(body: unknown, pattern: RegExp): void {
  const r = parseMessages(body, defaults);
  assert.equal(r.ok, false, 'expected a 400');
  if (!r.ok) assert.match(r.message, pattern);
}

const base = { model: 'm', max_tokens: 8 };

void describe('parseMessages', () => {
  void it('plans the same prompt as the equivalent chat request, system first', () => {
    const m = messages({
      ...base,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'Hello, world!' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ],
    });
    const c = chat({
      max_tokens: 8,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello, world!' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: 'Again' },
      ],
    });
    assert.equal(m.promptTokens, c.promptTokens);
    assert.equal(m.items[0]?.key, c.items[0]?.key, 'same content key: same seeded answer');
    assert.deepEqual(m.items[0]?.keys, c.items[0]?.keys, 'same prefix-cache blocks');
    assert.equal(m.kind, 'chat');
    assert.equal(m.n, 1);
    assert.equal(m.model, 'm');
  });

  void it('counts system blocks, text blocks and tool results; skips other blocks', () => {
    const m = messages({
      ...base,
      system: [{ type: 'text', text: 'Rules' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'url', url: 'http://x/y.png' } },
            { type: 'text', text: 'look' },
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'r1' }] },
            { type: 'tool_result', tool_use_id: 't2', content: 'r2' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't3', name: 'f', input: {} }] },
      ],
    });
    // "system: Rules\nuser: look r1 r2\nassistant: \n"
    // = system : Rules / user : look r1 r2 / assistant : → 3 + 5 + 2 tokens
    assert.equal(m.promptTokens, 10);
  });

  void it('ends naturally after --output-tokens unless max_tokens is smaller', () => {
    const long = messages({
      ...base,
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.deepEqual([long.maxTokens, long.finishReason], [16, 'stop']);
    const short = messages({ ...base, max_tokens: 3, messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual([short.maxTokens, short.finishReason], [3, 'length']);
    const eos = parseMessages(
      { ...base, max_tokens: 100, messages: [{ role: 'user', content: 'x' }] },
      { ...defaults, eosLength: 5 },
    );
    assert.ok(eos.ok);
    if (eos.ok) assert.deepEqual([eos.plan.maxTokens, eos.plan.finishReason], [5, 'stop']);
  });

  void it('carries stream and the PD fields over, and nothing else', () => {
    const m = messages({
      ...base,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
      kv_transfer_params: { do_remote_decode: true },
      bootstrap_host: '10.0.0.1',
      bootstrap_port: 8998,
      n: 3,
      logprobs: true,
    });
    assert.equal(m.stream, true);
    assert.deepEqual(m.kvTransferParams, { do_remote_decode: true });
    assert.deepEqual(m.bootstrap, { host: '10.0.0.1', port: 8998 });
    assert.equal(m.n, 1, 'Messages has no n');
    assert.equal(m.topLogprobs, undefined);
  });

  void it('refuses what the engines refuse', () => {
    const msgs = [{ role: 'user', content: 'x' }];
    rejects({ model: 'm', messages: msgs }, /^max_tokens: Field required$/);
    rejects({ ...base, max_tokens: 0, messages: msgs }, /max_tokens/);
    rejects({ ...base, max_tokens: 2.5, messages: msgs }, /max_tokens/);
    rejects({ ...base }, /^messages: Field required$/);
    rejects({ ...base, messages: [] }, /at least one message/);
    rejects({ max_tokens: 8, messages: msgs }, /^model: Field required$/);
    rejects({ ...base, messages: [{ role: 'tool', content: 'x' }] }, /messages\.0\.role/);
    rejects({ ...base, messages: [{ role: 'user', content: 7 }] }, /messages\.0\.content/);
    rejects({ ...base, messages: [{ role: 'user', content: [{ text: 'x' }] }] }, /\.type/);
    rejects({ ...base, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, /\.text/);
    rejects({ ...base, messages: msgs, stop_sequences: 'END' }, /stop_sequences/);
    rejects({ ...base, messages: msgs, temperature: 'hot' }, /temperature/);
    rejects({ ...base, messages: msgs, tools: [{ description: 'no name' }] }, /tools\.0\.name/);
    rejects({ ...base, messages: msgs, tool_choice: { type: 'some' } }, /tool_choice/);
    rejects({ ...base, messages: msgs, stream: 'yes' }, /stream/);
    rejects([], /JSON object/);
  });
});

void describe('countMessagesTokens', () => {
  void it('counts what /v1/messages plans, without needing max_tokens', () => {
    const body = {
      model: 'm',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello, world!' }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    };
    const counted = countMessagesTokens(body, defaults);
    assert.deepEqual(counted, {
      ok: true,
      inputTokens: messages({ ...body, max_tokens: 1 }).promptTokens,
    });
    assert.deepEqual(counted, { ok: true, inputTokens: 11 });
    const bad = countMessagesTokens({ model: 'm' }, defaults);
    assert.equal(bad.ok, false);
  });
});
