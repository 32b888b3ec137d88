// The `<sim-answer>` directive over HTTP: on chat, completions, Anthropic Messages and /generate,
// on every runtime and both engines, the last directive of the prompt is the answer, exactly,
// streamed one sim token per chunk, ending by itself unless max_tokens cuts it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimRuntime, SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseData } from '../../src/testing.js';
import { answerTokens } from '../../src/text.js';
import { post, streamedChoices, streamedMessage, wholeChoices } from '../helpers/answers.js';

const RUNTIMES: SimRuntime[] = ['sglang', 'vllm', 'tokenspeed'];
/** Newlines, runs of spaces and markup: all of it must come back as written. */
const ANSWER = '<think>\nThe user  wants a word.\n</think>\n\nYard 7,  track "B".\n';
const TOKENS = answerTokens(ANSWER).length;
const asked = (answer: string): string => `Please answer <sim-answer>${answer}</sim-answer> now.`;

const workers = new Map<string, SimWorker>();
function worker(runtime: SimRuntime, engine: 'canned' | 'realistic'): SimWorker {
  const w = workers.get(`${runtime}/${engine}`);
  if (w === undefined) throw new Error(`no ${runtime} ${engine} worker`);
  return w;
}

interface Generated {
  text: string;
  output_ids: number[];
  meta_info: { completion_tokens: number; finish_reason: { type: string; length?: number } };
}

void describe('the <sim-answer> directive over HTTP', () => {
  before(async () => {
    for (const runtime of RUNTIMES) {
      workers.set(`${runtime}/canned`, await startSimWorker({ runtime, ttftMs: 0, itlMs: 0 }));
      workers.set(
        `${runtime}/realistic`,
        await startSimWorker({ runtime, engine: 'realistic', timeScale: 0.01 }),
      );
    }
  });
  after(async () => {
    for (const w of workers.values()) {
      const s = w.stats();
      assert.deepEqual([s.running, s.waiting], [0, 0], `${w.name} leaked`);
    }
    await Promise.all([...workers.values()].map((w) => w.close()));
  });

  void it('chat answers it whole and streamed, one token per chunk, finish stop', async () => {
    for (const runtime of RUNTIMES) {
      for (const engine of ['canned', 'realistic'] as const) {
        const url = `${worker(runtime, engine).url}/v1/chat/completions`;
        const body = { messages: [{ role: 'user', content: asked(ANSWER) }] };
        const whole = await post(url, body);
        assert.equal(whole.status, 200, whole.text);
        const [c] = wholeChoices(whole.text);
        assert.deepEqual([c?.content, c?.finish], [ANSWER, 'stop'], `${runtime} ${engine}`);
        const usage = (JSON.parse(whole.text) as { usage: { completion_tokens: number } }).usage;
        assert.equal(usage.completion_tokens, TOKENS);
        const [s] = streamedChoices((await post(url, { ...body, stream: true })).text);
        assert.deepEqual([s?.content, s?.finish], [ANSWER, 'stop']);
        assert.equal(s?.chunks, TOKENS + 2, 'role chunk, a chunk per token, finish chunk');
      }
    }
  });

  void it('completions answer each prompt of a batch by its own directive', async () => {
    for (const runtime of RUNTIMES) {
      const url = `${worker(runtime, 'canned').url}/v1/completions`;
      const whole = await post(url, { prompt: asked(ANSWER) });
      assert.deepEqual(
        wholeChoices(whole.text).map((c) => [c.content, c.finish]),
        [[ANSWER, 'stop']],
      );
      const batch = { prompt: [asked('one'), asked('two three')], stream: true };
      const streamed = streamedChoices((await post(url, batch)).text);
      assert.deepEqual(
        streamed.map((c) => [c.content, c.finish]),
        [
          ['one', 'stop'],
          ['two three', 'stop'],
        ],
      );
    }
  });

  void it('Anthropic Messages answer it as one text block, whole and streamed', async () => {
    for (const runtime of RUNTIMES) {
      const url = `${worker(runtime, 'canned').url}/v1/messages`;
      // In the system prompt and a tool result: every text the template renders is read.
      const body = {
        model: 'm',
        max_tokens: 200,
        system: asked('not this one'),
        messages: [
          { role: 'user', content: 'What now?' },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: asked(ANSWER) }],
          },
        ],
      };
      const whole = JSON.parse((await post(url, body)).text) as {
        content: { text: string }[];
        stop_reason: string;
        usage: { output_tokens: number };
      };
      assert.deepEqual([whole.content[0]?.text, whole.stop_reason], [ANSWER, 'end_turn']);
      assert.equal(whole.usage.output_tokens, TOKENS);
      const s = streamedMessage((await post(url, { ...body, stream: true })).text);
      assert.deepEqual(s.content, [{ type: 'text', text: ANSWER }]);
      assert.equal(s.stop_reason, 'end_turn');
    }
  });

  void it('/generate answers it with its ids, finish stop (matched EOS)', async () => {
    for (const runtime of ['sglang', 'tokenspeed'] as const) {
      const url = `${worker(runtime, 'realistic').url}/generate`;
      const g = JSON.parse((await post(url, { text: asked(ANSWER) })).text) as Generated;
      assert.equal(g.text, ANSWER);
      assert.equal(g.output_ids.length, TOKENS);
      assert.deepEqual(g.meta_info.finish_reason, { type: 'stop', matched: 2 });
      const events = parseSseData((await post(url, { text: asked(ANSWER), stream: true })).text);
      const last = JSON.parse(events.at(-2) ?? '{}') as Generated;
      assert.equal(events.length, TOKENS + 1, 'a cumulative chunk per token, then [DONE]');
      assert.equal(last.text, ANSWER);
    }
  });

  void it('max_tokens cuts it: the first tokens, finish length', async () => {
    const first3 = answerTokens(ANSWER)
      .slice(0, 3)
      .map((t) => t.text)
      .join('');
    const w = worker('sglang', 'canned');
    const chat = { messages: [{ role: 'user', content: asked(ANSWER) }], max_tokens: 3 };
    for (const stream of [false, true]) {
      const r = await post(`${w.url}/v1/chat/completions`, { ...chat, stream });
      const [c] = stream ? streamedChoices(r.text) : wholeChoices(r.text);
      assert.deepEqual([c?.content, c?.finish], [first3, 'length']);
    }
    const m = await post(`${w.url}/v1/messages`, {
      model: 'm',
      max_tokens: 3,
      messages: [{ role: 'user', content: asked(ANSWER) }],
    });
    const message = JSON.parse(m.text) as { content: { text: string }[]; stop_reason: string };
    assert.deepEqual([message.content[0]?.text, message.stop_reason], [first3, 'max_tokens']);
    const g = await post(`${w.url}/generate`, {
      text: asked(ANSWER),
      sampling_params: { max_new_tokens: 3 },
    });
    const gen = JSON.parse(g.text) as Generated;
    assert.deepEqual(
      [gen.text, gen.meta_info.finish_reason],
      [first3, { type: 'length', length: 3 }],
    );
  });

  void it('the last directive of the conversation wins; none leaves the canned words', async () => {
    const w = worker('vllm', 'canned');
    const url = `${w.url}/v1/chat/completions`;
    const messages = [
      { role: 'system', content: asked('system') },
      { role: 'user', content: asked('first') },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: [{ type: 'text', text: asked('second') }] },
    ];
    assert.equal(wholeChoices((await post(url, { messages })).text)[0]?.content, 'second');
    const open = [{ role: 'user', content: `${asked('closed')} <sim-answer>open` }];
    assert.equal(wholeChoices((await post(url, { messages: open })).text)[0]?.content, 'closed');
    const plain = wholeChoices(
      (await post(url, { messages: [{ role: 'user', content: 'hi' }] })).text,
    );
    assert.equal(plain[0]?.content?.split(' ').length, 16, 'the --output-tokens canned words');
  });
});
