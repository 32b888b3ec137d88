// Responses requests on PD pairs play their leg exactly as chat does: SGLang's bootstrap
// rendezvous (the same body, with bootstrap_host/port/room, to both legs) and vLLM's NIXL handoff
// (the prefill answers kv_transfer_params beside the response, the decode reads the KV). Failures
// come back in OpenAI's shape, as a JSON error or a stream's `error` event. Time scale 0.01.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseEvents, simPost, waitForStats } from '../../src/testing.js';
import { assertIdle, withBootstrapRoom } from '../helpers/pd-pairs.js';
import type { ResponseObject } from '../helpers/responses-api.js';
import { item, streamedResponse } from '../helpers/responses-api.js';

const SCALE = 0.01;
// 20 prompt tokens once rendered: one full KV block of 16, so a vLLM prefill has KV to hand over.
const INSTRUCTIONS = 'You answer questions about railway yards.';
const USER = 'Which track does the freight train take tonight?';
// Above 2^53: JSON.parse would round it; both legs must see these exact digits.
const BIG_ROOM = '9223372036854775803';

type Json = Record<string, unknown>;

const responsesBody = (extra: Json = {}): Json => ({
  model: 'sim-model',
  instructions: INSTRUCTIONS,
  input: USER,
  max_output_tokens: 8,
  ...extra,
});

function parse(r: {
  status: number;
  text: string;
}): ResponseObject & { kv_transfer_params?: Json } {
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as ResponseObject;
}

const text = (r: ResponseObject): string => item(r.output[0] ?? {}).text ?? '';

void describe('Responses on SGLang PD', () => {
  let prefill: SimWorker;
  let decode: SimWorker;
  let regular: SimWorker;
  let quickPrefill: SimWorker;
  let quickDecode: SimWorker;
  before(async () => {
    const common = { engine: 'realistic', timeScale: SCALE, runtime: 'sglang', seed: 3 } as const;
    prefill = await startSimWorker({ ...common, role: 'prefill' });
    decode = await startSimWorker({ ...common, role: 'decode' });
    regular = await startSimWorker(common);
    quickPrefill = await startSimWorker({ ...common, role: 'prefill', bootstrapTimeoutSecs: 2 });
    quickDecode = await startSimWorker({ ...common, role: 'decode', waitingTimeoutSecs: 3 });
  });
  after(async () => {
    const all = [prefill, decode, regular, quickPrefill, quickDecode];
    assertIdle(all);
    await Promise.all(all.map((w) => w.close()));
  });

  const url = (w: SimWorker): string => `${w.url}/v1/responses`;

  void it('both legs get the room; the prefill answers one token, the decode all', async () => {
    const [p, d] = await Promise.all([
      simPost(url(prefill), withBootstrapRoom(prefill, BIG_ROOM, responsesBody())),
      simPost(url(decode), withBootstrapRoom(prefill, BIG_ROOM, responsesBody())),
    ]);
    const pr = parse(p);
    const dr = parse(d);
    assert.deepEqual([pr.usage?.output_tokens, pr.status], [1, 'incomplete']);
    assert.deepEqual([dr.usage?.output_tokens, dr.status], [8, 'incomplete']);
    assert.equal(dr.usage?.input_tokens, 20);
    for (const w of [prefill, decode]) assert.ok(w.stats().roomsSeen.includes(BIG_ROOM), w.name);
    assert.equal(prefill.stats().kvTransfersSent, 1);
    assert.equal(decode.stats().kvTransfers, 1, 'the decode received the KV');
    assert.equal(decode.stats().promptsRecomputed, 0);
    const plain = parse(await simPost(url(regular), responsesBody()));
    assert.equal(text(dr), text(plain), 'the answer a regular worker gives');
  });

  void it('streams the decode leg as Responses events', async () => {
    const [p, d] = await Promise.all([
      simPost(url(prefill), withBootstrapRoom(prefill, '31', responsesBody())),
      simPost(url(decode), withBootstrapRoom(prefill, '31', responsesBody({ stream: true }))),
    ]);
    parse(p);
    assert.equal(d.status, 200);
    const s = streamedResponse(d.text);
    assert.equal(s.names.filter((n) => n === 'response.output_text.delta').length, 8);
    assert.equal(s.completed.usage?.output_tokens, 8);
  });

  void it('a prefill whose decode never comes fails in OpenAI’s shape', async () => {
    const r = await simPost(
      url(quickPrefill),
      withBootstrapRoom(quickPrefill, '32', responsesBody()),
    );
    assert.equal(r.status, 500);
    const e = JSON.parse(r.text) as { error: { type: string; message: string; code: number } };
    assert.deepEqual([e.error.type, e.error.code], ['bootstrap_timeout', 500]);
    assert.match(e.error.message, /no decode joined room 32/);
  });

  void it('a streamed decode whose KV never lands ends with one error event', async () => {
    // A room nobody serves: the decode joins a prefill that never registers it.
    const r = await simPost(
      url(quickDecode),
      withBootstrapRoom(prefill, '33', responsesBody({ stream: true })),
    );
    assert.equal(r.status, 200, 'the SSE head was already sent');
    const events = parseSseEvents(r.text);
    assert.deepEqual(
      events.map((e) => e.event),
      ['error'],
    );
    const e = JSON.parse(events[0]?.data ?? '{}') as Json;
    assert.deepEqual(
      [e['type'], e['code'], e['param'], e['sequence_number']],
      ['error', 'waiting_timeout', null, 0],
    );
    assert.equal(typeof e['message'], 'string');
    await waitForStats(quickDecode, (s) => s.running === 0 && s.transferTimeouts === 1);
    await waitForStats(prefill, (s) => s.roomsOpen === 0);
  });
});

void describe('Responses on vLLM NIXL PD', () => {
  let prefill: SimWorker;
  let decode: SimWorker;
  before(async () => {
    const common = {
      runtime: 'vllm',
      engine: 'realistic',
      timeScale: SCALE,
      kvConnector: 'NixlConnector',
      seed: 3,
    } as const;
    prefill = await startSimWorker({ ...common, kvEngineId: 'engine-p' });
    decode = await startSimWorker({ ...common, kvEngineId: 'engine-d' });
  });
  after(async () => {
    assertIdle([prefill, decode]);
    await Promise.all([prefill.close(), decode.close()]);
  });

  async function prefillLeg(): Promise<Json> {
    const p = parse(
      await simPost(
        `${prefill.url}/v1/responses`,
        responsesBody({
          max_output_tokens: 1,
          kv_transfer_params: { do_remote_decode: true, do_remote_prefill: false },
        }),
      ),
    );
    assert.deepEqual([p.status, p.usage?.output_tokens], ['incomplete', 1]);
    const params = p.kv_transfer_params;
    assert.ok(params, 'the prefill answers kv_transfer_params beside the response');
    return params;
  }

  void it('the prefill answers the handoff and the decode given it reads the KV', async () => {
    const params = await prefillLeg();
    assert.equal(params['do_remote_prefill'], true);
    assert.equal(params['remote_engine_id'], 'engine-p');
    assert.equal((params['remote_block_ids'] as unknown[]).length, 1);
    assert.equal(prefill.stats().kvPinned, 1);
    const d = parse(
      await simPost(`${decode.url}/v1/responses`, responsesBody({ kv_transfer_params: params })),
    );
    assert.deepEqual([d.usage?.output_tokens, d.status], [8, 'incomplete']);
    assert.equal(d.kv_transfer_params, undefined, 'only the prefill answers the field');
    assert.equal(decode.stats().kvTransfers, 1);
    assert.equal(decode.stats().promptsRecomputed, 0);
    assert.deepEqual([prefill.stats().kvTransfersSent, prefill.stats().kvPinned], [1, 0]);
  });

  void it('a streamed decode reads the KV too', async () => {
    const params = await prefillLeg();
    const d = await simPost(
      `${decode.url}/v1/responses`,
      responsesBody({ stream: true, kv_transfer_params: params }),
    );
    assert.equal(d.status, 200);
    const s = streamedResponse(d.text);
    assert.equal(s.completed.usage?.output_tokens, 8);
    assert.equal(decode.stats().kvTransfers, 2);
    assert.equal(decode.stats().promptsRecomputed, 0);
  });
});
