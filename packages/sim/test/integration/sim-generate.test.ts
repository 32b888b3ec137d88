// SGLang's native /generate on SGLang and TokenSpeed workers: JSON and SSE shapes, logprobs,
// finish reasons and batches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseData } from '../../src/testing.js';

type Json = Record<string, unknown>;
interface Meta {
  id: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  finish_reason: { type: string; length?: number; matched?: number } | null;
  e2e_latency: number;
  input_token_logprobs?: [number, number, null][];
  output_token_logprobs?: [number, number, null][];
}
interface Result {
  text: string;
  output_ids: number[];
  meta_info: Meta;
  index?: number;
}

let w: SimWorker;

async function generate(body: Json): Promise<{ status: number; type: unknown; text: string }> {
  const res = await request(`${w.url}/generate`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
}

async function generateJson<T>(body: Json): Promise<T> {
  const r = await generate(body);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'application/json');
  return JSON.parse(r.text) as T;
}

void describe('/generate', () => {
  before(async () => {
    w = await startSimWorker({ runtime: 'tokenspeed', ttftMs: 1, itlMs: 1, outputTokens: 5 });
  });
  after(() => w.close());

  void it('answers text with meta_info and prompt/output logprobs', async () => {
    const r = await generateJson<Result>({
      text: 'The quick brown fox',
      rid: 'req-1',
      sampling_params: { max_new_tokens: 3 },
      return_logprob: true,
    });
    assert.equal(r.text.split(' ').length, 3);
    assert.equal(r.output_ids.length, 3);
    const m = r.meta_info;
    assert.equal(m.id, 'req-1');
    assert.equal(m.prompt_tokens, 4);
    assert.equal(m.completion_tokens, 3);
    assert.equal(m.cached_tokens, 0);
    assert.deepEqual(m.finish_reason, { type: 'length', length: 3 });
    assert.ok(m.e2e_latency > 0);
    assert.equal(m.input_token_logprobs?.length, 4);
    for (const [lp, id, text] of m.input_token_logprobs ?? []) {
      assert.ok(lp <= 0 && Number.isInteger(id) && text === null);
    }
    assert.deepEqual(
      m.output_token_logprobs?.map((e) => e[1]),
      r.output_ids,
    );
  });

  void it('omits logprobs unless asked, and stops with the EOS reason without a cap', async () => {
    const r = await generateJson<Result>({ input_ids: [11, 12, 13] });
    assert.equal(r.meta_info.prompt_tokens, 3);
    assert.equal(r.meta_info.completion_tokens, 5);
    assert.equal(r.meta_info.finish_reason?.type, 'stop');
    assert.equal(r.meta_info.input_token_logprobs, undefined);
    assert.equal(r.meta_info.output_token_logprobs, undefined);
  });

  void it('streams cumulative results, finishing on the last one, then [DONE]', async () => {
    const body = {
      text: 'stream this',
      sampling_params: { max_new_tokens: 4 },
      return_logprob: true,
    };
    const r = await generate({ ...body, stream: true });
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/event-stream');
    const data = parseSseData(r.text);
    assert.equal(data.at(-1), '[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Result);
    assert.equal(chunks.length, 4);
    chunks.forEach((c, i) => {
      assert.equal(c.meta_info.completion_tokens, i + 1);
      assert.equal(c.output_ids.length, i + 1);
      assert.equal(c.meta_info.output_token_logprobs?.length, i + 1);
      assert.equal(c.meta_info.input_token_logprobs?.length, 2);
      if (i > 0) assert.ok(c.text.startsWith(chunks[i - 1]?.text ?? '\0'));
      assert.equal(c.meta_info.finish_reason === null, i < 3);
    });
    const whole = await generateJson<Result>(body);
    assert.equal(chunks.at(-1)?.text, whole.text);
  });

  void it('streams a single finished event for max_new_tokens 0', async () => {
    const r = await generate({ text: 'x', sampling_params: { max_new_tokens: 0 }, stream: true });
    const data = parseSseData(r.text);
    assert.equal(data.length, 2);
    const only = JSON.parse(data[0] ?? '{}') as Result;
    assert.equal(only.text, '');
    assert.deepEqual(only.meta_info.finish_reason, { type: 'length', length: 0 });
  });

  void it('answers a batch with an array of indexed results', async () => {
    const rs = await generateJson<Result[]>({
      text: ['a b', 'c'],
      sampling_params: { max_new_tokens: 2 },
    });
    assert.equal(rs.length, 2);
    assert.deepEqual(
      rs.map((r) => [r.index, r.meta_info.prompt_tokens]),
      [
        [0, 2],
        [1, 1],
      ],
    );
    const single = await generateJson<Result>({
      text: 'c',
      sampling_params: { max_new_tokens: 2 },
    });
    assert.equal(rs[1]?.text, single.text, 'batch items get the text they would get alone');
  });

  void it('answers 400 without a prompt', async () => {
    const r = await generate({ sampling_params: {} });
    assert.equal(r.status, 400);
  });
});
