// Structured output over HTTP: `response_format` json_schema and json_object on chat and
// completions (every runtime), vLLM's guided_json and structured_outputs, SGLang's /generate
// `sampling_params.json_schema`. The answer is JSON the schema accepts, whole and streamed, the
// very text a gRPC worker answers for the same schema, and it beats a <sim-answer> directive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SimRuntime } from '../../src/index.js';
import { SIM_RUNTIMES } from '../../src/options.js';
import { startSimWorker } from '../../src/index.js';
import { loadSimTokenizer } from '../../src/sim-tokenizer.js';
import { post, streamedChoices, wholeChoices } from '../helpers/answers.js';
import { collect, engineClient, generateRequest, idsOf, parts } from '../helpers/grpc-client.js';
import { instantWorkers } from '../helpers/instant-workers.js';
import { schemaErrors } from '../helpers/schema-check.js';

const RUNTIMES = SIM_RUNTIMES;

/** Several types, nesting, an array, an enum, bounds and a $ref. */
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 5 },
    count: { type: 'integer', minimum: 3, maximum: 9 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.5 },
    ok: { type: 'boolean' },
    unit: { $ref: '#/$defs/Unit' },
    place: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: ['integer', 'null'] } },
      required: ['city', 'zip'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string', format: 'date' }, minItems: 2 },
    note: { type: 'string' },
  },
  required: ['name', 'count', 'ratio', 'ok', 'unit', 'place', 'tags'],
  $defs: { Unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
};
const RESPONSE_FORMAT = { type: 'json_schema', json_schema: { name: 'report', schema: SCHEMA } };
const DIRECTIVE = 'Report. <sim-answer>not JSON at all</sim-answer>';

const worker = instantWorkers();
const urlOf = (runtime: SimRuntime, path: string): string => `${worker(runtime).url}${path}`;

/** The JSON an answer carries, checked against SCHEMA. */
function schemaValue(text: string | null | undefined): unknown {
  const value = JSON.parse(text ?? '') as unknown;
  assert.deepEqual(schemaErrors(value, SCHEMA), [], text ?? '');
  return value;
}

void describe('structured output over HTTP', () => {
  void it('response_format json_schema: chat and completions, whole and streamed', async () => {
    for (const runtime of RUNTIMES) {
      const chat = {
        messages: [{ role: 'user', content: DIRECTIVE }],
        response_format: RESPONSE_FORMAT,
      };
      const completion = { prompt: DIRECTIVE, response_format: RESPONSE_FORMAT };
      const texts: string[] = [];
      for (const [path, body] of [
        ['/v1/chat/completions', chat],
        ['/v1/completions', completion],
      ] as const) {
        const [whole] = wholeChoices((await post(urlOf(runtime, path), body)).text);
        const [streamed] = streamedChoices(
          (await post(urlOf(runtime, path), { ...body, stream: true })).text,
        );
        assert.equal(whole?.finish, 'stop', `${runtime} ${path}`);
        assert.equal(streamed?.finish, 'stop');
        assert.equal(streamed?.content, whole?.content, 'the stream adds up to the whole');
        assert.ok((streamed?.chunks ?? 0) > 10, 'streamed token by token');
        schemaValue(whole?.content);
        texts.push(whole?.content ?? '');
      }
      assert.equal(texts[0], texts[1], 'the same JSON on both routes');
    }
  });

  void it('the same JSON text a gRPC worker answers for the same schema', async () => {
    const grpcWorker = await startSimWorker({ protocol: 'grpc', runtime: 'sglang', ttftMs: 0 });
    const client = engineClient('sglang', grpcWorker.url);
    try {
      const req = generateRequest('sglang', { stream: true });
      req['sampling_params'] = {
        ...(req['sampling_params'] as Record<string, unknown>),
        json_schema: JSON.stringify(SCHEMA),
      };
      const r = await collect(client, 'Generate', req);
      assert.equal(r.code, 0, r.details);
      const tok = await loadSimTokenizer(undefined);
      const ids = idsOf(parts(r.messages).chunks);
      const grpcText = tok.decode(ids.slice(0, -1)); // without the EOS
      const body = { messages: [{ role: 'user', content: 'x' }], response_format: RESPONSE_FORMAT };
      const [c] = wholeChoices((await post(urlOf('sglang', '/v1/chat/completions'), body)).text);
      assert.equal(c?.content, grpcText);
    } finally {
      client.close();
      await grpcWorker.close();
    }
  });

  void it('json_object answers {}', async () => {
    for (const runtime of RUNTIMES) {
      const body = {
        messages: [{ role: 'user', content: DIRECTIVE }],
        response_format: { type: 'json_object' },
      };
      const [c] = wholeChoices((await post(urlOf(runtime, '/v1/chat/completions'), body)).text);
      assert.deepEqual([c?.content, c?.finish], ['{}', 'stop']);
    }
  });

  void it('vLLM: guided_json (object or text) and structured_outputs', async () => {
    const url = urlOf('vllm', '/v1/chat/completions');
    const messages = [{ role: 'user', content: DIRECTIVE }];
    for (const extra of [
      { guided_json: SCHEMA },
      { guided_json: JSON.stringify(SCHEMA) },
      { structured_outputs: { json: SCHEMA } },
    ]) {
      const [c] = wholeChoices((await post(url, { messages, ...extra })).text);
      schemaValue(c?.content);
    }
    const choice = { structured_outputs: { choice: ['left', 'right'] } };
    assert.equal(wholeChoices((await post(url, { messages, ...choice })).text)[0]?.content, 'left');
    // SGLang has no guided_json: the directive answers there.
    const sglang = await post(urlOf('sglang', '/v1/chat/completions'), {
      messages,
      guided_json: SCHEMA,
    });
    assert.equal(wholeChoices(sglang.text)[0]?.content, 'not JSON at all');
  });

  void it('SGLang /generate: sampling_params.json_schema, whole and streamed', async () => {
    for (const runtime of ['sglang', 'tokenspeed'] as const) {
      const body = { text: DIRECTIVE, sampling_params: { json_schema: JSON.stringify(SCHEMA) } };
      const g = JSON.parse((await post(urlOf(runtime, '/generate'), body)).text) as {
        text: string;
        meta_info: { finish_reason: { type: string } };
      };
      schemaValue(g.text);
      assert.equal(g.meta_info.finish_reason.type, 'stop');
      const s = await post(urlOf(runtime, '/generate'), { ...body, stream: true });
      assert.ok(s.text.includes(JSON.stringify(g.text)), 'the last cumulative chunk has it all');
    }
  });

  void it('a cap cuts the JSON (finish length); regex and ebnf leave the answer alone', async () => {
    const url = urlOf('sglang', '/v1/chat/completions');
    const messages = [{ role: 'user', content: DIRECTIVE }];
    const cut = wholeChoices(
      (await post(url, { messages, response_format: RESPONSE_FORMAT, max_tokens: 4 })).text,
    );
    assert.equal(cut[0]?.finish, 'length');
    assert.throws(() => JSON.parse(cut[0]?.content ?? ''), 'four tokens of JSON are not JSON');
    for (const extra of [{ regex: '[a-z]+' }, { ebnf: 'root ::= "x"' }]) {
      const [c] = wholeChoices((await post(url, { messages, ...extra })).text);
      assert.equal(c?.content, 'not JSON at all');
    }
  });

  void it('refuses a schema that is not JSON and an unknown format type with 400', async () => {
    const bad = await post(urlOf('sglang', '/generate'), {
      text: 'x',
      sampling_params: { json_schema: '{' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /json_schema is not valid JSON/);
    const type = await post(urlOf('vllm', '/v1/chat/completions'), {
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'yaml' },
    });
    assert.equal(type.status, 400);
    assert.match(type.text, /response_format.type/);
  });
});
