// The same chat against each gRPC runtime (acceptance A5, A10): SGLang, vLLM and TokenSpeed each
// receive SMG's own request for a chat with no sampling fields (§1.6 of the spec: SGLang every
// field explicit and no string stops, single-token stops folded into stop_token_ids; vLLM
// temperature unset and top_k 0, stop strings sent; TokenSpeed every optional scalar present),
// and the client sees the same text, finish, stop and usage from all three, streamed or not,
// however the engine counts its tokens (running totals on SGLang/TokenSpeed, deltas on vLLM).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSimGrpcWorker, type SimRuntime, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import type { Gateway } from '../../../src/server/gateway.js';
import { assertAllReleased } from '../../helpers/gateway.js';
import { generateRequests, startGrpcGateway } from '../../helpers/grpc.js';

const RUNTIMES: readonly SimRuntime[] = ['sglang', 'vllm', 'tokenspeed'];
/** The sim's tiny tokenizer: `Hello` is one token, `<|im_end|>` (its EOS) another. */
const HELLO = 331;
const IM_END = 658;

const engines = new Map<SimRuntime, SimWorker>();
let gateway: Gateway;
let client: OpenAI;

before(async () => {
  for (const runtime of RUNTIMES) {
    engines.set(
      runtime,
      await startSimGrpcWorker({
        runtime,
        model: `m-${runtime}`,
        answerText: 'Hello world',
        ttftMs: 1,
        itlMs: 1,
      }),
    );
  }
  gateway = await startGrpcGateway([...engines.values()]);
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await Promise.all([...engines.values()].map((e) => e.close()));
});

function lastSent(runtime: SimRuntime): {
  sampling: Record<string, unknown>;
  request: Record<string, unknown>;
} {
  const request = generateRequests(engines.get(runtime) as SimWorker).at(-1);
  assert.ok(request, `${runtime} received a GenerateRequest`);
  return { request, sampling: request.sampling_params as Record<string, unknown> };
}

const hi = [{ role: 'user' as const, content: 'Hi' }];

/** A streamed chat's text, finish, matched stop and usage, as the openai client reads them. */
async function streamed(
  model: string,
  extra: Record<string, unknown> = {},
): Promise<{
  texts: Map<number, string>;
  finish: Map<number, string | null>;
  matched: Map<number, unknown>;
  usage: OpenAI.CompletionUsage | undefined;
}> {
  const stream = await client.chat.completions.create({
    model,
    messages: hi,
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  const texts = new Map<number, string>();
  const finish = new Map<number, string | null>();
  const matched = new Map<number, unknown>();
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      texts.set(c.index, (texts.get(c.index) ?? '') + (c.delta.content ?? ''));
      if (c.finish_reason !== null) {
        finish.set(c.index, c.finish_reason);
        matched.set(c.index, (c as unknown as { matched_stop?: unknown }).matched_stop);
      }
    }
  }
  return { texts, finish, matched, usage };
}

void describe('each runtime gets SMG’s request for a chat with no sampling fields (A5)', () => {
  void it('SGLang: every sampling field explicit, no string stops', async () => {
    await client.chat.completions.create({ model: 'm-sglang', messages: hi });
    const { request, sampling } = lastSent('sglang');
    assert.deepEqual(
      {
        temperature: sampling.temperature,
        top_p: sampling.top_p,
        top_k: sampling.top_k,
        min_p: sampling.min_p,
        frequency_penalty: sampling.frequency_penalty,
        presence_penalty: sampling.presence_penalty,
        repetition_penalty: sampling.repetition_penalty,
        skip_special_tokens: sampling.skip_special_tokens,
        spaces_between_special_tokens: sampling.spaces_between_special_tokens,
        n: sampling.n,
        ignore_eos: sampling.ignore_eos,
        no_stop_trim: sampling.no_stop_trim,
        stop: sampling.stop ?? [],
        stop_token_ids: sampling.stop_token_ids ?? [],
        max_new_tokens: sampling.max_new_tokens,
      },
      {
        temperature: 1,
        top_p: 1,
        top_k: -1,
        min_p: 0,
        frequency_penalty: 0,
        presence_penalty: 0,
        repetition_penalty: 1,
        skip_special_tokens: true,
        spaces_between_special_tokens: true,
        n: 1,
        ignore_eos: false,
        no_stop_trim: false,
        stop: [],
        stop_token_ids: [],
        max_new_tokens: undefined,
      },
    );
    assert.equal(request.return_logprob, false);
    assert.equal(request.logprob_start_len, -1);
    assert.equal(request.top_logprobs_num, 0);
    assert.equal(request.stream, false);
  });

  void it('SGLang: single-token stop strings folded into stop_token_ids, none sent as strings', async () => {
    const reply = await client.chat.completions.create({
      model: 'm-sglang',
      messages: hi,
      stop: ['<|im_end|>', 'Hello', 'lo wo'],
    });
    const { sampling } = lastSent('sglang');
    assert.deepEqual(sampling.stop ?? [], []);
    assert.deepEqual(sampling.stop_token_ids, [IM_END, HELLO]);
    // The engine stops at `Hello` itself; the client sees the stop string it asked for.
    assert.equal(reply.choices[0]?.message.content, '');
    assert.equal(reply.choices[0]?.finish_reason, 'stop');
  });

  void it('vLLM: temperature unset, top_k 0, stop strings sent', async () => {
    await client.chat.completions.create({ model: 'm-vllm', messages: hi });
    let { sampling } = lastSent('vllm');
    assert.equal('temperature' in sampling, false, 'temperature left to the engine');
    assert.equal(sampling.top_k ?? 0, 0);
    assert.equal(sampling.top_p, 1);
    assert.equal(sampling.min_p ?? 0, 0);
    assert.equal(sampling.repetition_penalty, 1);
    assert.equal(sampling.skip_special_tokens, true);
    assert.equal(sampling.spaces_between_special_tokens, true);
    assert.equal(sampling.n, 1);
    assert.equal(sampling.include_stop_str_in_output ?? false, false);
    assert.equal(sampling.max_tokens, undefined);
    assert.equal(sampling.logprobs, undefined);
    await client.chat.completions.create({
      model: 'm-vllm',
      messages: hi,
      stop: ['<|im_end|>', 'Hello', 'lo wo'],
    });
    ({ sampling } = lastSent('vllm'));
    assert.deepEqual(sampling.stop, ['<|im_end|>', 'Hello', 'lo wo']);
    assert.deepEqual(sampling.stop_token_ids ?? [], []);
  });

  void it('TokenSpeed: every optional scalar present with SGLang’s defaults, stop strings sent', async () => {
    await client.chat.completions.create({ model: 'm-tokenspeed', messages: hi });
    const { request } = lastSent('tokenspeed');
    let { sampling } = lastSent('tokenspeed');
    const expected: Record<string, number> = {
      temperature: 1,
      top_p: 1,
      top_k: -1,
      min_p: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      repetition_penalty: 1,
    };
    for (const [field, value] of Object.entries(expected)) {
      assert.equal(sampling[field], value, field);
      // proto-loader names the synthetic oneof of a present proto3 `optional` field `_<field>`.
      assert.equal(sampling[`_${field}`], field, `${field} is present on the wire`);
    }
    assert.equal(sampling.skip_special_tokens, true);
    assert.equal(request.logprob_start_len, -1);
    assert.equal(request._logprob_start_len, 'logprob_start_len');
    await client.chat.completions.create({
      model: 'm-tokenspeed',
      messages: hi,
      stop: ['<|im_end|>', 'Hello', 'lo wo'],
    });
    ({ sampling } = lastSent('tokenspeed'));
    assert.deepEqual(sampling.stop, ['<|im_end|>', 'Hello', 'lo wo']);
  });
});

void describe('the same answer from every runtime (A5, A10)', () => {
  for (const runtime of RUNTIMES) {
    void it(`${runtime}: streamed and whole chats agree on text, finish and usage`, async () => {
      const model = `m-${runtime}`;
      const whole = await client.chat.completions.create({ model, messages: hi });
      assert.equal(whole.choices[0]?.message.content, 'Hello world');
      assert.equal(whole.choices[0]?.finish_reason, 'stop');
      assert.equal((whole.choices[0] as unknown as { matched_stop: unknown }).matched_stop, IM_END);
      assert.equal(whole.usage?.completion_tokens, 3, 'Hello, world, EOS');
      const s = await streamed(model);
      assert.equal(s.texts.get(0), 'Hello world');
      assert.equal(s.finish.get(0), 'stop');
      assert.equal(s.matched.get(0), IM_END);
      assert.deepEqual(s.usage, whole.usage);
    });

    void it(`${runtime}: a stop string the client gave is the matched stop, streamed or not`, async () => {
      const model = `m-${runtime}`;
      for (const stop of ['Hello', 'lo wo']) {
        const whole = await client.chat.completions.create({ model, messages: hi, stop: [stop] });
        const text = stop === 'Hello' ? '' : 'Hel';
        assert.equal(whole.choices[0]?.message.content, text, stop);
        assert.equal(whole.choices[0]?.finish_reason, 'stop');
        assert.equal(
          (whole.choices[0] as unknown as { matched_stop: unknown }).matched_stop,
          stop,
          `${runtime} whole, stop ${stop}`,
        );
        const s = await streamed(model, { stop: [stop] });
        assert.equal(s.texts.get(0) ?? '', text);
        assert.equal(s.finish.get(0), 'stop');
        assert.equal(s.matched.get(0), stop, `${runtime} streamed, stop ${stop}`);
      }
    });

    void it(`${runtime}: n=2 usage is prompt max and completion sum, streamed or not (A10)`, async () => {
      const model = `m-${runtime}`;
      const whole = await client.chat.completions.create({ model, messages: hi, n: 2 });
      assert.deepEqual(
        whole.choices.map((c) => [c.index, c.message.content, c.finish_reason]),
        [
          [0, 'Hello world', 'stop'],
          [1, 'Hello world', 'stop'],
        ],
      );
      const prompt = (lastSent(runtime).request.tokenized as { input_ids: number[] }).input_ids
        .length;
      assert.deepEqual(whole.usage, {
        prompt_tokens: prompt,
        completion_tokens: 6,
        total_tokens: prompt + 6,
      });
      const s = await streamed(model, { n: 2 });
      assert.equal(s.texts.get(0), 'Hello world');
      assert.equal(s.texts.get(1), 'Hello world');
      assert.deepEqual(s.usage, whole.usage);
    });
  }

  for (const runtime of RUNTIMES) {
    void it(`${runtime}: completions and /generate, streamed and not, agree`, async () => {
      const model = `m-${runtime}`;
      const whole = await client.completions.create({ model, prompt: 'Say it', max_tokens: 8 });
      assert.equal(whole.choices[0]?.text, 'Hello world');
      assert.equal(whole.choices[0]?.finish_reason, 'stop');
      assert.equal(whole.usage?.completion_tokens, 3);
      const stream = await client.completions.create({
        model,
        prompt: 'Say it',
        max_tokens: 8,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.text ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, 'Hello world');
      assert.deepEqual(usage, whole.usage);
      const gen = await fetch(`${gateway.url}/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, text: 'Say it', sampling_params: { max_new_tokens: 8 } }),
      });
      assert.equal(gen.status, 200);
      const body = (await gen.json()) as {
        text: string;
        meta_info: { finish_reason: unknown; completion_tokens: number };
      };
      assert.equal(body.text, 'Hello world');
      assert.deepEqual(body.meta_info.finish_reason, { type: 'stop' });
      assert.equal(body.meta_info.completion_tokens, 3);
      const genStream = await fetch(`${gateway.url}/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, text: 'Say it', stream: true }),
      });
      const frames = parseSseData(await genStream.text());
      assert.equal(frames.at(-1), '[DONE]');
      const last = JSON.parse(frames.at(-2) ?? '{}') as {
        text: string;
        meta_info: { completion_tokens: number };
      };
      assert.equal(last.text, 'Hello world');
      assert.equal(last.meta_info.completion_tokens, 3, `${runtime} running total`);
    });
  }

  void it('leaves nothing held', async () => {
    await assertAllReleased(gateway);
  });
});
