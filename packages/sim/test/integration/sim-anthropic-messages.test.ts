// Anthropic's Messages API on the simulator's HTTP surface (/v1/messages and its count_tokens):
// the JSON message and its named SSE events, stop reasons, Anthropic-shaped errors, token counts
// that agree with the chat route's, prefix caching, faults, and what /sim/stats records.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimStats, SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseEvents, waitForStats } from '../../src/testing.js';

type Json = Record<string, unknown>;
interface Message {
  id: string;
  type: string;
  role: string;
  model: string;
  content: { type: string; text: string }[];
  stop_reason: string;
  stop_sequence: null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

const ANTHROPIC_HEADERS = {
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'prompt-caching-2024-07-31',
};
const SYSTEM = 'You answer questions about railway yards.';
const USER = 'Which track does the freight train take tonight?';
const request = (extra: Json = {}): Json => ({
  model: 'claude-sim',
  system: SYSTEM,
  messages: [{ role: 'user', content: USER }],
  max_tokens: 6,
  ...extra,
});

let canned: SimWorker;
let realistic: SimWorker;

async function post(w: SimWorker, path: string, body: unknown) {
  const res = await fetch(`${w.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ANTHROPIC_HEADERS },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

async function message(w: SimWorker, body: Json): Promise<Message> {
  const r = await post(w, '/v1/messages', body);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'application/json');
  return JSON.parse(r.text) as Message;
}

void describe('Anthropic Messages', () => {
  before(async () => {
    canned = await startSimWorker({ ttftMs: 0, itlMs: 0, seed: 7 });
    realistic = await startSimWorker({ engine: 'realistic', timeScale: 0.01, seed: 7 });
  });
  after(async () => {
    await Promise.all([canned.close(), realistic.close()]);
  });

  void it('answers a message with the chat route’s words, cut by max_tokens', async () => {
    const m = await message(canned, request());
    assert.match(m.id, /^msg_/);
    assert.deepEqual(Object.keys(m), [
      'id',
      'type',
      'role',
      'model',
      'content',
      'stop_reason',
      'stop_sequence',
      'usage',
    ]);
    assert.deepEqual([m.type, m.role, m.model], ['message', 'assistant', 'claude-sim']);
    assert.equal(m.stop_reason, 'max_tokens');
    assert.equal(m.stop_sequence, null);
    assert.equal(m.content.length, 1);
    assert.equal(m.content[0]?.type, 'text');
    assert.equal(m.content[0]?.text.split(' ').length, 6);
    const chat = await post(canned, '/v1/chat/completions', {
      model: 'claude-sim',
      max_tokens: 6,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: USER },
      ],
    });
    const c = JSON.parse(chat.text) as {
      choices: { message: { content: string } }[];
      usage: { prompt_tokens: number };
    };
    assert.equal(m.content[0]?.text, c.choices[0]?.message.content, 'same seeded words');
    assert.deepEqual(m.usage, {
      input_tokens: c.usage.prompt_tokens,
      output_tokens: 6,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  void it('ends its turn naturally when max_tokens is larger than the answer', async () => {
    const m = await message(canned, request({ max_tokens: 4096 }));
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(m.usage.output_tokens, 16, '--output-tokens');
    const short = await message(canned, request());
    assert.ok(m.content[0]?.text.startsWith(short.content[0]?.text ?? '?'), 'same words, longer');
  });

  void it('streams Anthropic’s named events in order, one delta per token', async () => {
    const full = await message(canned, request());
    const r = await post(canned, '/v1/messages', request({ stream: true }));
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/event-stream');
    assert.ok(!r.text.includes('[DONE]'));
    const events = parseSseEvents(r.text);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'ping',
        ...Array<string>(6).fill('content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    const data = events.map((e) => JSON.parse(e.data) as Json);
    for (const [i, d] of data.entries()) assert.equal(d['type'], events[i]?.event);
    const start = data[0]?.['message'] as Json;
    assert.match(String(start['id']), /^msg_/);
    assert.deepEqual(
      { ...start, id: 'x' },
      {
        id: 'x',
        type: 'message',
        role: 'assistant',
        model: 'claude-sim',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...full.usage, output_tokens: 1 },
      },
    );
    assert.deepEqual(data[1], {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    const deltas = data.filter((d) => d['type'] === 'content_block_delta');
    let text = '';
    for (const d of deltas) {
      assert.equal(d['index'], 0);
      const delta = d['delta'] as { type: string; text: string };
      assert.equal(delta.type, 'text_delta');
      text += delta.text;
    }
    assert.equal(text, full.content[0]?.text);
    assert.deepEqual(data.at(-3), { type: 'content_block_stop', index: 0 });
    assert.deepEqual(data.at(-2), {
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { output_tokens: 6 },
    });
    const natural = parseSseEvents(
      (await post(canned, '/v1/messages', request({ stream: true, max_tokens: 100 }))).text,
    );
    const last = JSON.parse(natural.at(-2)?.data ?? '{}') as { delta: { stop_reason: string } };
    assert.equal(last.delta.stop_reason, 'end_turn');
  });

  void it('refuses bad requests with Anthropic’s error body', async () => {
    const user = [{ role: 'user', content: 'x' }];
    const cases: [string, unknown, string, RegExp][] = [
      [
        '/v1/messages',
        { model: 'm', messages: user },
        'invalid_request_error',
        /^max_tokens: Field required$/,
      ],
      [
        '/v1/messages',
        { model: 'm', max_tokens: 8 },
        'invalid_request_error',
        /^messages: Field required$/,
      ],
      [
        '/v1/messages',
        { model: 'm', max_tokens: 0, messages: user },
        'invalid_request_error',
        /max_tokens/,
      ],
      ['/v1/messages', '{"model":', 'invalid_json', /not valid JSON/],
      [
        '/v1/messages/count_tokens',
        { model: 'm' },
        'invalid_request_error',
        /^messages: Field required$/,
      ],
      ['/v1/messages/count_tokens', '{"model":', 'invalid_json', /not valid JSON/],
    ];
    const base = canned.stats();
    for (const [path, body, type, pattern] of cases) {
      const r = await post(canned, path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(r.type, 'application/json');
      const e = JSON.parse(r.text) as { type: string; error: { type: string; message: string } };
      assert.equal(e.type, 'error');
      assert.equal(e.error.type, type);
      assert.match(e.error.message, pattern);
    }
    const s = canned.stats();
    assert.deepEqual([s.completed, s.failed, s.running], [base.completed, base.failed, 0]);
  });

  void it('count_tokens counts what /v1/messages reports as input_tokens', async () => {
    const { max_tokens: _cap, ...countBody } = request({
      tools: [{ name: 'route', input_schema: { type: 'object' } }],
    });
    const r = await post(canned, '/v1/messages/count_tokens', countBody);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text), { input_tokens: 20 });
    const m = await message(canned, request());
    assert.equal(m.usage.input_tokens, 20);
  });

  void it('records the requests and the Anthropic headers in /sim/stats', async () => {
    const before = canned.stats().requests;
    await post(canned, '/v1/messages/count_tokens', {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    const counted = canned.stats();
    assert.equal(
      counted.requests['/v1/messages/count_tokens'],
      (before['/v1/messages/count_tokens'] ?? 0) + 1,
    );
    assert.equal(counted.lastRequest?.path, '/v1/messages/count_tokens');
    await message(canned, request({ metadata: { user_id: 'u-1' } }));
    // Over HTTP, as a gateway test reads it.
    const s = (await (await fetch(`${canned.url}/sim/stats`)).json()) as SimStats;
    assert.equal(s.requests['/v1/messages'], (before['/v1/messages'] ?? 0) + 1);
    assert.equal(s.lastRequest?.path, '/v1/messages');
    assert.equal(s.lastRequest?.headers['anthropic-version'], '2023-06-01');
    assert.equal(s.lastRequest?.headers['anthropic-beta'], 'prompt-caching-2024-07-31');
    assert.deepEqual((s.lastRequest?.body as Json)['metadata'], { user_id: 'u-1' });
  });

  void it('is served by every runtime', async () => {
    for (const runtime of ['vllm', 'tokenspeed', 'sglang'] as const) {
      const w = await startSimWorker({ runtime, ttftMs: 0, itlMs: 0, seed: 7 });
      try {
        const m = await message(w, request());
        assert.equal(m.usage.output_tokens, 6, runtime);
        const r = await post(w, '/v1/messages/count_tokens', {
          model: 'm',
          messages: [{ role: 'user', content: USER }],
        });
        assert.equal(r.status, 200, `${runtime} count_tokens`);
      } finally {
        await w.close();
      }
    }
  });

  void it('hits the prefix cache as the equivalent chat request does', async () => {
    const cold = await message(realistic, request({ max_tokens: 2 }));
    assert.equal(cold.usage.cache_read_input_tokens, 0);
    const base = realistic.stats().cachedTokens;
    const warm = await message(realistic, request({ max_tokens: 2 }));
    // 20 prompt tokens: one full block of 16 is cached.
    assert.equal(warm.usage.cache_read_input_tokens, 16);
    assert.equal(warm.usage.input_tokens, 20, 'input_tokens counts cached tokens too');
    assert.equal(realistic.stats().cachedTokens, base + 16);
    const chat = await post(realistic, '/v1/chat/completions', {
      max_tokens: 2,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: USER },
      ],
    });
    const usage = (JSON.parse(chat.text) as { usage: Json }).usage;
    assert.deepEqual(usage['prompt_tokens_details'], { cached_tokens: 16 }, 'same blocks as chat');
  });

  void it('applies the faults as for chat, with Anthropic-shaped errors', async () => {
    canned.setFaults({ errorRate: 1, errorStatus: 529, maxFires: 1 });
    const failed = await post(canned, '/v1/messages', request());
    assert.equal(failed.status, 529);
    assert.deepEqual(JSON.parse(failed.text), {
      type: 'error',
      error: { type: 'sim_fault', message: 'sim: injected error' },
    });
    canned.setFaults({ dropAfterChunks: 4, maxFires: 1 });
    const res = await fetch(`${canned.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request({ stream: true })),
    });
    assert.equal(res.status, 200);
    await assert.rejects(res.text(), 'the stream ends without message_stop');
    canned.setFaults({});
    const s = await waitForStats(canned, (st) => st.running === 0);
    assert.equal(s.faultsFired >= 2, true);
    assert.equal(realistic.stats().running, 0);
  });
});
