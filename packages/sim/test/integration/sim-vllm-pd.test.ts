// vLLM PD between simulated workers: the NIXL handoff (pinned blocks read by the decode), its abort
// timeout, the EOS-first refusal, invalid parameters, and Mooncake's router-minted transfer id.
// /sim/stats tells a real transfer from a silent recompute.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { simPost, waitForStats } from '../../src/testing.js';

const SCALE = 0.01;
const PROMPT =
  'Explain in detail how a railway switchyard sorts freight cars onto the right tracks';
let prefill: SimWorker;
let decode: SimWorker;

type Params = Record<string, unknown>;
interface Chat {
  choices: { finish_reason: string; message: { content: string } }[];
  usage: { completion_tokens: number };
  kv_transfer_params?: Params | null;
}

const chat = (extra: Params) => ({
  model: 'sim-model',
  messages: [{ role: 'user', content: PROMPT }],
  ...extra,
});

async function prefillLeg(w: SimWorker, extra: Params = {}): Promise<Chat> {
  const r = await simPost(
    `${w.url}/v1/chat/completions`,
    chat({
      max_tokens: 1,
      stream: false,
      kv_transfer_params: { do_remote_decode: true, do_remote_prefill: false },
      ...extra,
    }),
  );
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as Chat;
}

async function decodeLeg(params: unknown): Promise<Chat> {
  const r = await simPost(
    `${decode.url}/v1/chat/completions`,
    chat({ max_tokens: 5, kv_transfer_params: params }),
  );
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as Chat;
}

void describe('vLLM NIXL PD', () => {
  const common = {
    runtime: 'vllm',
    engine: 'realistic',
    timeScale: SCALE,
    kvConnector: 'NixlConnector',
  } as const;
  before(async () => {
    prefill = await startSimWorker({ ...common, kvEngineId: 'engine-p', kvAbortTimeoutSecs: 600 });
    decode = await startSimWorker({ ...common, kvEngineId: 'engine-d' });
  });
  after(async () => {
    await Promise.all([prefill.close(), decode.close()]);
  });

  void it('hands the KV over: the prefill returns the params and the decode pulls them', async () => {
    const p = await prefillLeg(prefill);
    assert.equal(p.choices[0]?.finish_reason, 'length');
    const params = p.kv_transfer_params;
    assert.ok(params, 'params returned');
    assert.deepEqual(Object.keys(params).sort(), [
      'do_remote_decode',
      'do_remote_prefill',
      'remote_block_ids',
      'remote_engine_id',
      'remote_host',
      'remote_port',
      'remote_request_id',
      'tp_size',
    ]);
    assert.equal(params['do_remote_prefill'], true);
    assert.equal(params['do_remote_decode'], false);
    assert.equal(params['remote_engine_id'], 'engine-p');
    assert.equal(params['remote_host'], '127.0.0.1');
    assert.equal(params['remote_port'], prefill.port);
    assert.equal((params['remote_block_ids'] as number[]).length, 1, '17 prompt tokens: 1 block');
    assert.equal(prefill.stats().kvPinned, 1);
    const d = await decodeLeg(params);
    assert.equal(d.usage.completion_tokens, 5);
    assert.equal(decode.stats().kvTransfers, 1);
    assert.equal(decode.stats().promptsRecomputed, 0);
    const ps = prefill.stats();
    assert.deepEqual([ps.kvTransfersSent, ps.kvPinned], [1, 0]);
    // Read once: the same params a second time find nothing pinned and recompute.
    await decodeLeg(params);
    assert.equal(decode.stats().promptsRecomputed, 1);
  });

  void it('invalid or missing params make the decode recompute the prompt', async () => {
    const p = await prefillLeg(prefill);
    const good = p.kv_transfer_params ?? {};
    const base = decode.stats().promptsRecomputed;
    await decodeLeg({ ...good, remote_engine_id: 'someone-else' });
    await decodeLeg({ do_remote_prefill: true, do_remote_decode: false });
    await decodeLeg({ ...good, remote_port: 1 }); // nobody listens there
    assert.equal(decode.stats().promptsRecomputed, base + 3);
    await decodeLeg(good);
    assert.equal(decode.stats().kvTransfers, 2, 'the pin survived the bad reads');
  });

  void it('refuses the handoff when the first token is EOS, unless ignore_eos', async () => {
    const eos = await startSimWorker({ ...common, eosLength: 1 });
    try {
      const refused = await prefillLeg(eos);
      assert.equal(refused.choices[0]?.finish_reason, 'stop');
      assert.equal(refused.kv_transfer_params, null);
      assert.equal(eos.stats().kvPinned, 0);
      const forced = await prefillLeg(eos, { ignore_eos: true });
      assert.equal(forced.choices[0]?.finish_reason, 'length');
      assert.ok(forced.kv_transfer_params);
    } finally {
      await eos.close();
    }
  });

  void it('returns no params for a prompt shorter than one block', async () => {
    const r = await simPost(`${prefill.url}/v1/completions`, {
      prompt: 'short',
      max_tokens: 1,
      kv_transfer_params: { do_remote_decode: true },
    });
    assert.equal((JSON.parse(r.text) as Chat).kv_transfer_params, null);
  });

  void it('unpins after the abort timeout; a late decode recomputes', async () => {
    const short = await startSimWorker({ ...common, kvAbortTimeoutSecs: 2 });
    try {
      const p = await prefillLeg(short);
      assert.equal(short.stats().kvPinned, 1);
      const s = await waitForStats(short, (st) => st.kvExpired === 1);
      assert.equal(s.kvPinned, 0);
      const base = decode.stats();
      await decodeLeg(p.kv_transfer_params);
      assert.equal(decode.stats().promptsRecomputed, base.promptsRecomputed + 1);
      assert.equal(decode.stats().kvTransfers, base.kvTransfers);
    } finally {
      await short.close();
    }
  });
});

void describe('vLLM Mooncake PD', () => {
  const common = {
    runtime: 'vllm',
    engine: 'realistic',
    timeScale: SCALE,
    kvConnector: 'MooncakeConnector',
  } as const;
  let mp: SimWorker;
  let md: SimWorker;
  before(async () => {
    mp = await startSimWorker({ ...common, role: 'prefill', kvEngineId: 'mc-p' });
    md = await startSimWorker({ ...common, kvEngineId: 'mc-d' });
  });
  after(async () => {
    await Promise.all([mp.close(), md.close()]);
  });

  const decodeParams = (id: string, addr: string) => ({
    do_remote_decode: false,
    do_remote_prefill: true,
    transfer_id: id,
    remote_engine_id: 'mc-p',
    remote_bootstrap_addr: addr,
  });
  const mooncakeDecode = async (params: Params) => {
    const r = await simPost(
      `${md.url}/v1/chat/completions`,
      chat({ max_tokens: 4, kv_transfer_params: params }),
    );
    assert.equal(r.status, 200, r.text);
  };

  void it('pushes the KV for the minted transfer id, sequentially or concurrently', async () => {
    const addr = `http://127.0.0.1:${mp.bootstrapPort ?? 0}`;
    const p = await prefillLeg(mp, {
      kv_transfer_params: {
        do_remote_decode: true,
        do_remote_prefill: false,
        transfer_id: 'xfer-1',
      },
    });
    assert.equal(p.kv_transfer_params, null, 'Mooncake returns nothing to relay');
    await mooncakeDecode(decodeParams('xfer-1', addr));
    assert.equal(md.stats().kvTransfers, 1);
    // vLLM's own proxy fires both legs at once: the decode's query waits for the prefill.
    await Promise.all([
      mooncakeDecode(decodeParams('xfer-2', `http://127.0.0.1:${mp.port}`)),
      prefillLeg(mp, { kv_transfer_params: { do_remote_decode: true, transfer_id: 'xfer-2' } }),
    ]);
    assert.equal(md.stats().kvTransfers, 2);
    assert.equal(mp.stats().kvTransfersSent, 2);
    assert.equal(md.stats().promptsRecomputed, 0);
  });

  void it('recomputes without the http:// scheme or for an unknown transfer', async () => {
    await prefillLeg(mp, { kv_transfer_params: { do_remote_decode: true, transfer_id: 'xfer-3' } });
    await mooncakeDecode(decodeParams('xfer-3', `127.0.0.1:${mp.bootstrapPort ?? 0}`));
    await mooncakeDecode(decodeParams('xfer-404', `http://127.0.0.1:${mp.bootstrapPort ?? 0}`));
    assert.equal(md.stats().promptsRecomputed, 2);
    assert.equal(md.stats().kvTransfers, 2);
  });
});
