// finish_reason length vs stop (natural EOS, ignore_eos) and OpenAI logprobs on chat and
// completions, streaming and not, on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseData, simPost } from '../../src/testing.js';

let canned: SimWorker;
let realistic: SimWorker;

type Json = Record<string, unknown>;
interface ChatBody {
  choices: {
    finish_reason: string;
    message: { content: string };
    logprobs: { content: { token: string; logprob: number; top_logprobs: unknown[] }[] } | null;
  }[];
  usage: { completion_tokens: number };
}
interface CompletionBody {
  choices: {
    text: string;
    finish_reason: string;
    logprobs: {
      tokens: string[];
      token_logprobs: number[];
      top_logprobs: Record<string, number>[] | null;
      text_offset: number[];
    } | null;
  }[];
}

async function post<T>(w: SimWorker, path: string, body: Json): Promise<T> {
  const r = await simPost(`${w.url}${path}`, body);
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as T;
}

void describe('finish reasons and logprobs', () => {
  before(async () => {
    canned = await startSimWorker({ ttftMs: 0, itlMs: 0, eosLength: 4 });
    realistic = await startSimWorker({ engine: 'realistic', timeScale: 0.01, eosLength: 4 });
  });
  after(async () => {
    await Promise.all([canned.close(), realistic.close()]);
  });

  void it('stops at the natural EOS before a larger cap, unless ignore_eos', async () => {
    for (const w of [canned, realistic]) {
      const msg = { messages: [{ role: 'user', content: 'eos?' }] };
      const natural = await post<ChatBody>(w, '/v1/chat/completions', { ...msg, max_tokens: 10 });
      assert.equal(natural.choices[0]?.finish_reason, 'stop');
      assert.equal(natural.usage.completion_tokens, 4);
      const capped = await post<ChatBody>(w, '/v1/chat/completions', { ...msg, max_tokens: 2 });
      assert.equal(capped.choices[0]?.finish_reason, 'length');
      const forced = await post<ChatBody>(w, '/v1/chat/completions', {
        ...msg,
        max_tokens: 10,
        ignore_eos: true,
      });
      assert.equal(forced.choices[0]?.finish_reason, 'length');
      assert.equal(forced.usage.completion_tokens, 10);
      assert.ok(
        forced.choices[0]?.message.content.startsWith(natural.choices[0]?.message.content ?? '?'),
      );
      const gen = await post<{ meta_info: { finish_reason: Json } }>(w, '/generate', {
        text: 'eos?',
        sampling_params: { max_new_tokens: 10 },
      });
      assert.deepEqual(gen.meta_info.finish_reason, { type: 'stop', matched: 2 });
    }
  });

  void it('chat logprobs: one entry per token with top_logprobs, streamed the same', async () => {
    const body = {
      messages: [{ role: 'user', content: 'logprobs please' }],
      max_tokens: 3,
      logprobs: true,
      top_logprobs: 2,
    };
    const r = await post<ChatBody>(realistic, '/v1/chat/completions', body);
    const content = r.choices[0]?.logprobs?.content ?? [];
    assert.equal(content.length, 3);
    assert.equal(content.map((c) => c.token).join(''), r.choices[0]?.message.content);
    for (const c of content) {
      assert.ok(c.logprob <= 0);
      assert.equal(c.top_logprobs.length, 2);
      assert.deepEqual(c.top_logprobs[0], {
        token: c.token,
        logprob: c.logprob,
        bytes: [...Buffer.from(c.token)],
      });
    }
    const s = await simPost(`${realistic.url}/v1/chat/completions`, { ...body, stream: true });
    const streamed = parseSseData(s.text)
      .filter((e) => e !== '[DONE]')
      .flatMap((e) => {
        const chunk = JSON.parse(e) as { choices: { logprobs: { content: unknown[] } | null }[] };
        return chunk.choices[0]?.logprobs?.content ?? [];
      });
    assert.deepEqual(streamed, content, 'the stream carries the same logprobs');
    const none = await post<ChatBody>(realistic, '/v1/chat/completions', {
      ...body,
      logprobs: false,
    });
    assert.equal(none.choices[0]?.logprobs, null);
  });

  void it('completion logprobs: tokens, token_logprobs, top_logprobs and text offsets', async () => {
    const r = await post<CompletionBody>(canned, '/v1/completions', {
      prompt: 'offsets',
      max_tokens: 3,
      logprobs: 1,
    });
    const lp = r.choices[0]?.logprobs;
    assert.ok(lp);
    assert.equal(lp.tokens.join(''), r.choices[0]?.text);
    assert.equal(lp.token_logprobs.length, 3);
    assert.deepEqual(lp.text_offset, [
      0,
      lp.tokens[0]?.length,
      (lp.tokens[0]?.length ?? 0) + (lp.tokens[1]?.length ?? 0),
    ]);
    assert.deepEqual(
      lp.top_logprobs?.map((t) => Object.keys(t)),
      lp.tokens.map((t) => [t]),
    );
    const plain = await post<CompletionBody>(canned, '/v1/completions', {
      prompt: 'offsets',
      max_tokens: 3,
    });
    assert.equal(plain.choices[0]?.logprobs, null);
  });
});
