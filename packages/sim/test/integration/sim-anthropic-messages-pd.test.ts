// Anthropic Messages requests on PD pairs play their leg exactly as chat does: SGLang's bootstrap
// rendezvous (the same body, with bootstrap_host/port/room, to both legs) and vLLM's NIXL handoff
// (the prefill answers kv_transfer_params beside the message, the decode reads the KV). Failures
// come back in Anthropic's shape, as a JSON error or a stream's `error` event. Time scale 0.01.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { parseSseEvents, simPost, waitForStats } from '../../src/testing.js';
import { assertIdle, withBootstrapRoom } from '../helpers/pd-pairs.js';

const SCALE = 0.01;
// 20 prompt tokens once rendered: one full KV block of 16, so a vLLM prefill has KV to hand over.
const SYSTEM = 'You answer questions about railway yards.';
const USER = 'Which track does the freight train take tonight?';
// Above 2^53: JSON.parse would round it; both legs must see these exact digits.
const BIG_ROOM = '9223372036854775801';

type Json = Record<string, unknown>;
interface Message {
  content: { type: string; text: string }[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
  kv_transfer_params?: Json | null;
}

const messagesBody = (extra: Json = {}): Json => ({
  model: 'claude-sim',
  system: SYSTEM,
  messages: [{ role: 'user', content: USER }],
  max_tokens: 8,
  ...extra,
});

function parse(r: { status: number; text: string }): Message {
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as Message;
}

void describe('Anthropic Messages on SGLang PD', () => {
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

  void it('both legs get the room; the prefill answers one token, the decode all', async () => {
    const [p, d] = await Promise.all([
      simPost(`${prefill.url}/v1/messages`, withBootstrapRoom(prefill, BIG_ROOM, messagesBody())),
      simPost(`${decode.url}/v1/messages`, withBootstrapRoom(prefill, BIG_ROOM, messagesBody())),
    ]);
    const pm = parse(p);
    const dm = parse(d);
    assert.deepEqual([pm.usage.output_tokens, pm.stop_reason], [1, 'max_tokens']);
    assert.deepEqual([dm.usage.output_tokens, dm.stop_reason], [8, 'max_tokens']);
    assert.equal(dm.usage.input_tokens, 20);
    for (const w of [prefill, decode]) assert.ok(w.stats().roomsSeen.includes(BIG_ROOM), w.name);
    assert.equal(prefill.stats().kvTransfersSent, 1);
    assert.equal(decode.stats().kvTransfers, 1, 'the decode received the KV');
    assert.equal(decode.stats().promptsRecomputed, 0);
    const plain = parse(await simPost(`${regular.url}/v1/messages`, messagesBody()));
    assert.equal(dm.content[0]?.text, plain.content[0]?.text, 'the answer a regular worker gives');
  });

  void it('streams the decode leg as Anthropic events', async () => {
    const [p, d] = await Promise.all([
      simPost(`${prefill.url}/v1/messages`, withBootstrapRoom(prefill, '21', messagesBody())),
      simPost(
        `${decode.url}/v1/messages`,
        withBootstrapRoom(prefill, '21', messagesBody({ stream: true })),
      ),
    ]);
    parse(p);
    assert.equal(d.status, 200);
    const events = parseSseEvents(d.text).map((e) => e.event);
    assert.deepEqual(events.slice(0, 3), ['message_start', 'content_block_start', 'ping']);
    assert.equal(events.filter((e) => e === 'content_block_delta').length, 8);
    assert.deepEqual(events.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  });

  void it('a prefill whose decode never comes fails in Anthropic’s shape', async () => {
    const r = await simPost(
      `${quickPrefill.url}/v1/messages`,
      withBootstrapRoom(quickPrefill, '22', messagesBody()),
    );
    assert.equal(r.status, 500);
    const e = JSON.parse(r.text) as { type: string; error: { type: string; message: string } };
    assert.equal(e.type, 'error');
    assert.equal(e.error.type, 'bootstrap_timeout');
    assert.match(e.error.message, /no decode joined room 22/);
  });

  void it('a streamed decode whose KV never lands ends with one error event', async () => {
    // A room nobody serves: the decode joins a prefill that never registers it.
    const r = await simPost(
      `${quickDecode.url}/v1/messages`,
      withBootstrapRoom(prefill, '23', messagesBody({ stream: true })),
    );
    assert.equal(r.status, 200, 'the SSE head was already sent');
    const events = parseSseEvents(r.text);
    assert.deepEqual(
      events.map((e) => e.event),
      ['error'],
    );
    const e = JSON.parse(events[0]?.data ?? '{}') as { type: string; error: { type: string } };
    assert.deepEqual([e.type, e.error.type], ['error', 'waiting_timeout']);
    await waitForStats(quickDecode, (s) => s.running === 0 && s.transferTimeouts === 1);
    await waitForStats(prefill, (s) => s.roomsOpen === 0);
  });
});

void describe('Anthropic Messages on vLLM NIXL PD', () => {
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
        `${prefill.url}/v1/messages`,
        messagesBody({
          max_tokens: 1,
          kv_transfer_params: { do_remote_decode: true, do_remote_prefill: false },
        }),
      ),
    );
    assert.equal(p.stop_reason, 'max_tokens');
    assert.equal(p.usage.output_tokens, 1);
    const params = p.kv_transfer_params;
    assert.ok(params, 'the prefill answers kv_transfer_params beside the message');
    return params;
  }

  void it('the prefill answers the handoff and the decode given it reads the KV', async () => {
    const params = await prefillLeg();
    assert.equal(params['do_remote_prefill'], true);
    assert.equal(params['do_remote_decode'], false);
    assert.equal(params['remote_engine_id'], 'engine-p');
    assert.equal(params['remote_port'], prefill.port);
    assert.equal((params['remote_block_ids'] as unknown[]).length, 1);
    assert.equal(prefill.stats().kvPinned, 1);
    const d = parse(
      await simPost(`${decode.url}/v1/messages`, messagesBody({ kv_transfer_params: params })),
    );
    assert.deepEqual([d.usage.output_tokens, d.stop_reason], [8, 'max_tokens']);
    assert.equal(d.kv_transfer_params, undefined, 'only the prefill answers the field');
    assert.equal(decode.stats().kvTransfers, 1);
    assert.equal(decode.stats().promptsRecomputed, 0);
    assert.deepEqual([prefill.stats().kvTransfersSent, prefill.stats().kvPinned], [1, 0]);
  });

  void it('a streamed decode reads the KV too', async () => {
    const params = await prefillLeg();
    const d = await simPost(
      `${decode.url}/v1/messages`,
      messagesBody({ stream: true, kv_transfer_params: params }),
    );
    assert.equal(d.status, 200);
    const events = parseSseEvents(d.text).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'content_block_delta').length, 8);
    assert.equal(events.at(-1), 'message_stop');
    assert.equal(decode.stats().kvTransfers, 2);
    assert.equal(decode.stats().promptsRecomputed, 0);
  });
});
