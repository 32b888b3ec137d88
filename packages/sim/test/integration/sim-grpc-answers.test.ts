// What a gRPC Generate answers when the request shapes it: a JSON-schema constraint gives JSON that
// satisfies the schema (vLLM's json_object and choice too), over the worker's answerText; regex and
// grammar constraints leave the answer alone; a schema that is not JSON is refused.
import assert from 'node:assert/strict';
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

/** A Generate with extra sampling params, its output ids, finish and the text they decode to. */
async function generate(
  c: EngineClient,
  runtime: EngineRuntime,
  sampling: Msg,
  stream: boolean,
): Promise<{ ids: number[]; finish: unknown; text: string }> {
  const req = generateRequest(runtime, { stream });
  req['sampling_params'] = { ...(req['sampling_params'] as Msg), ...sampling };
  const r = await collect(c, 'Generate', req);
  assert.equal(r.code, 0, r.details);
  const { chunks, completes } = parts(r.messages);
  const done = completes[0] ?? {};
  const ids = stream ? idsOf(chunks) : ((done['output_ids'] as number[] | undefined) ?? []);
  return { ids, finish: done['finish_reason'], text: tok.decode(ids, true) };
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
