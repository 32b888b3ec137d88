// Fixed answers on PD pairs: the decode leg answers what a regular worker answers (the
// directive's text, a constrained JSON, the tool calls), and the prefill leg still plays its
// part (SGLang: one token; vLLM: the KV handoff), with the handoff counters to prove it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { simPost } from '../../src/testing.js';
import { post, streamedChoices, streamedMessage, wholeChoices } from '../helpers/answers.js';
import { assertIdle, withBootstrapRoom } from '../helpers/pd-pairs.js';

const SCALE = 0.01;
const CALL = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>';
const TOOLS = [
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
];
// Over 16 prompt tokens once rendered: a full KV block, so a vLLM prefill has KV to hand over.
const PROMPT = (answer: string): string =>
  `Which track does the freight train take tonight, and when? <sim-answer>${answer}</sim-answer>`;
const chatBody = (answer: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content: PROMPT(answer) }],
  tools: TOOLS,
  ...extra,
});

void describe('fixed answers on an SGLang PD pair', () => {
  let prefill: SimWorker;
  let decode: SimWorker;
  before(async () => {
    const common = { engine: 'realistic', timeScale: SCALE, runtime: 'sglang' } as const;
    prefill = await startSimWorker({ ...common, role: 'prefill' });
    decode = await startSimWorker({ ...common, role: 'decode' });
  });
  after(async () => {
    assertIdle([prefill, decode]);
    await Promise.all([prefill.close(), decode.close()]);
  });

  async function pair(path: string, body: Record<string, unknown>, room: string) {
    const [p, d] = await Promise.all([
      simPost(`${prefill.url}${path}`, withBootstrapRoom(prefill, room, body)),
      simPost(`${decode.url}${path}`, withBootstrapRoom(prefill, room, body)),
    ]);
    assert.equal(p.status, 200, p.text);
    assert.equal(d.status, 200, d.text);
    return { p: p.text, d: d.text };
  }

  void it('chat: the prefill answers one token, the decode the tool call', async () => {
    const transfers = decode.stats().kvTransfers;
    const { p, d } = await pair('/v1/chat/completions', chatBody(CALL), '31');
    const [pc] = wholeChoices(p);
    assert.equal(pc?.finish, 'length');
    assert.equal(
      (JSON.parse(p) as { usage: { completion_tokens: number } }).usage.completion_tokens,
      1,
    );
    const [dc] = wholeChoices(d);
    assert.equal(dc?.finish, 'tool_calls');
    assert.deepEqual(
      dc?.toolCalls?.map((t) => [t.name, t.arguments]),
      [['get_time', '{"zone": "UTC"}']],
    );
    assert.equal(decode.stats().kvTransfers, transfers + 1, 'the decode read the KV');
  });

  void it('a streamed decode answers the directive text; /generate and Messages too', async () => {
    const chat = await pair(
      '/v1/chat/completions',
      chatBody('On track 7.', { stream: true }),
      '32',
    );
    assert.deepEqual(
      streamedChoices(chat.d).map((c) => [c.content, c.finish]),
      [['On track 7.', 'stop']],
    );
    const gen = await pair('/generate', { text: PROMPT('At nine.') }, '33');
    assert.equal((JSON.parse(gen.d) as { text: string }).text, 'At nine.');
    assert.equal((JSON.parse(gen.p) as { text: string }).text, 'At', 'the prefill’s one token');
    const messages = {
      model: 'm',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: PROMPT(CALL) }],
      tools: [{ name: 'get_time', input_schema: { type: 'object' } }],
    };
    const m = await pair('/v1/messages', messages, '34');
    const dm = streamedMessage(m.d);
    assert.equal(dm.stop_reason, 'tool_use');
    assert.deepEqual(
      dm.content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : b)),
      [['get_time', { zone: 'UTC' }]],
    );
  });
});

void describe('fixed answers on a vLLM NIXL pair', () => {
  let prefill: SimWorker;
  let decode: SimWorker;
  before(async () => {
    const common = {
      runtime: 'vllm',
      engine: 'realistic',
      timeScale: SCALE,
      kvConnector: 'NixlConnector',
    } as const;
    prefill = await startSimWorker({ ...common, kvEngineId: 'engine-p' });
    decode = await startSimWorker({ ...common, kvEngineId: 'engine-d' });
  });
  after(async () => {
    assertIdle([prefill, decode]);
    await Promise.all([prefill.close(), decode.close()]);
  });

  async function handoff(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const kv = { do_remote_decode: true, do_remote_prefill: false };
    const r = await post(`${prefill.url}/v1/chat/completions`, {
      ...body,
      max_tokens: 1,
      kv_transfer_params: kv,
    });
    assert.equal(r.status, 200, r.text);
    const params = (JSON.parse(r.text) as { kv_transfer_params: Record<string, unknown> | null })
      .kv_transfer_params;
    assert.ok(params, 'the one-token prefill stopped on its cap and hands its KV over');
    return params;
  }

  void it('the decode given the handoff answers the calls, whole and streamed', async () => {
    for (const stream of [false, true]) {
      const params = await handoff(chatBody(CALL));
      const r = await post(`${decode.url}/v1/chat/completions`, {
        ...chatBody(CALL),
        stream,
        kv_transfer_params: params,
      });
      const [c] = stream ? streamedChoices(r.text) : wholeChoices(r.text);
      assert.equal(c?.finish, 'tool_calls');
      assert.deepEqual(
        c?.toolCalls?.map((t) => t.name),
        ['get_time'],
      );
    }
    assert.equal(decode.stats().kvTransfers, 2);
    assert.equal(decode.stats().promptsRecomputed, 0);
  });

  void it('a one-token answer: the prefill still stops on its cap and hands over', async () => {
    const params = await handoff(chatBody('Yes'));
    const r = await post(`${decode.url}/v1/chat/completions`, {
      ...chatBody('Yes'),
      kv_transfer_params: params,
    });
    assert.deepEqual(
      wholeChoices(r.text).map((c) => [c.content, c.finish]),
      [['Yes', 'stop']],
    );
  });

  void it('a constrained answer survives the handoff', async () => {
    const rf = {
      response_format: {
        type: 'json_schema',
        json_schema: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
    };
    const params = await handoff(chatBody('free text', rf));
    const r = await post(`${decode.url}/v1/chat/completions`, {
      ...chatBody('free text', rf),
      kv_transfer_params: params,
    });
    assert.deepEqual(
      wholeChoices(r.text).map((c) => [c.content, c.finish]),
      [['{"n":1}', 'stop']],
    );
  });
});
