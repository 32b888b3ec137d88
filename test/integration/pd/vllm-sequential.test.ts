// vLLM PD: a sanitized one-token probe to the prefill, then the decode with the KV handoff
// params. The simulator's counters prove a real transfer rather than a silent recompute.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';
import { startPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

async function vllm(
  connector: 'NixlConnector' | 'MooncakeConnector',
  extraSpec: Record<string, unknown> = {},
  prefillOpts = {},
): Promise<PdSetup> {
  const s = await startPdSetup({
    prefill: { runtime: 'vllm', role: 'regular', kvConnector: connector, ...prefillOpts },
    decode: { runtime: 'vllm', role: 'regular', kvConnector: connector },
    prefillSpec: { kv_connector: connector, ...extraSpec },
  });
  setups.push(s);
  return s;
}

const chat = {
  model: 'sim-model',
  messages: [
    { role: 'user', content: 'a prompt long enough to fill several kv blocks '.repeat(8) },
  ],
  max_tokens: 20,
  stream: true,
};

test('NIXL: params returned by the prefill are relayed and the decode pulls the KV', async () => {
  const pd = await vllm('NixlConnector');
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, chat);
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const [p, d] = [pd.prefills[0], pd.decodes[0]];
  const probe = p?.stats().lastRequest?.body as Record<string, unknown>;
  assert.equal(probe.max_tokens, 1);
  assert.equal(probe.stream, false);
  assert.equal(probe.ignore_eos, true);
  assert.deepEqual(probe.kv_transfer_params, { do_remote_decode: true, do_remote_prefill: false });
  const decodeBody = d?.stats().lastRequest?.body as Record<string, unknown>;
  assert.equal(decodeBody.max_tokens, 20, 'the decode gets the original sampling');
  assert.equal(decodeBody.stream, true);
  assert.equal((decodeBody.kv_transfer_params as Record<string, unknown>).do_remote_prefill, true);
  assert.equal(decodeBody.bootstrap_room, undefined);
  assert.equal(d?.stats().kvTransfers, 1, 'a transfer, not a recompute');
  assert.equal(d?.stats().promptsRecomputed, 0);
  assert.equal(
    p?.stats().lastRequest?.headers['x-request-id'],
    d?.stats().lastRequest?.headers['x-request-id'],
    'same request id on both legs',
  );
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(m, 'smg_pd_kv_connector_mode_total', { mode: 'nixl' }), 1);
  assert.equal(metricValue(m, 'smg_pd_kv_transfer_failures_total'), 0);
  assert.equal(
    metricValue(m, 'smg_pd_kv_transfer_duration_seconds_count', { model: 'sim-model' }),
    1,
  );
  await assertAllReleased(pd.gateway);
});

test('an EOS first token still yields a handoff because the probe sets ignore_eos', async () => {
  const pd = await vllm('NixlConnector', {}, { eosLength: 1 });
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, { ...chat, stream: false });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(pd.decodes[0]?.stats().kvTransfers, 1);
  assert.equal(pd.decodes[0]?.stats().promptsRecomputed, 0);
});

test('Mooncake: the gateway mints transfer_id and the decode params', async () => {
  const pd = await vllm('MooncakeConnector', {}, {});
  const p = pd.prefills[0];
  assert.ok(p);
  // Re-register the prefill with its engine id and bootstrap port (what an operator provides).
  const id = pd.gateway.internals.registry.ofType('prefill')[0]?.id ?? '';
  assert.equal(typeof p.kvEngineId, 'string');
  assert.equal(
    pd.gateway.internals.registry.get(id)?.kvEngineId,
    undefined,
    'registered without one',
  );
  const put = await fetch(`${pd.gateway.url}/workers/${id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      url: p.url,
      worker_type: 'prefill',
      kv_connector: 'MooncakeConnector',
      kv_engine_id: p.kvEngineId,
      bootstrap_port: p.port,
    }),
  });
  assert.equal(put.status, 202, await put.clone().text());
  // The PUT re-registers in the background: wait until the new worker replaced the old one.
  await waitFor(() => {
    const w = pd.gateway.internals.registry.get(id);
    return w?.isHealthy === true && w.kvEngineId === p.kvEngineId && w.bootstrapPort === p.port;
  }, 'the re-registered prefill with its engine id and bootstrap port');
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, { ...chat, stream: false });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const probeParams = (
    p.stats().lastRequest?.body as { kv_transfer_params: Record<string, unknown> }
  ).kv_transfer_params;
  assert.match(String(probeParams.transfer_id), /^xfer-/);
  const decodeParams = (
    pd.decodes[0]?.stats().lastRequest?.body as { kv_transfer_params: Record<string, unknown> }
  ).kv_transfer_params;
  assert.deepEqual(decodeParams, {
    do_remote_decode: false,
    do_remote_prefill: true,
    transfer_id: probeParams.transfer_id,
    remote_engine_id: p.kvEngineId,
    remote_bootstrap_addr: `http://127.0.0.1:${p.port}`,
  });
  assert.equal(pd.decodes[0]?.stats().kvTransfers, 1);
  await assertAllReleased(pd.gateway);
});

test('n > 1 goes to the decode alone: no prefill request, no prefill metrics', async () => {
  const pd = await vllm('NixlConnector');
  const res = await postJson(`${pd.gateway.url}/v1/chat/completions`, {
    ...chat,
    stream: false,
    n: 2,
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { choices: unknown[] };
  assert.equal(body.choices.length, 2);
  assert.equal(pd.prefills[0]?.stats().requests['/v1/chat/completions'] ?? 0, 0);
  const m = await scrapeMetrics(pd.gateway);
  assert.equal(
    metricValue(m, 'smg_pd_prefill_duration_seconds_count', { model: 'sim-model' }),
    undefined,
  );
  assert.equal(metricValue(m, 'smg_pd_kv_transfer_failures_total'), 0);
  await assertAllReleased(pd.gateway);
});
