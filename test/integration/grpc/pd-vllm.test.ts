// vLLM PD over gRPC (acceptance B4, B5): the legs run in sequence with one engine request id.
// NIXL: a sanitized one-token probe tagged `do_remote_decode`, whose returned
// `kv_transfer_params_json` reaches the decode verbatim with the client's own sampling. Mooncake:
// both legs carry the gateway's minted `xfer-` transfer id. A prefill that returns no params is
// counted and the decode runs without params (it computes the prompt itself). Fan-out under NIXL
// sends no prefill request at all, and its decode is aborted at once when the client leaves (no
// deferral: there is no handoff).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { waitForStats } from '@switchyard/sim/testing';
import type { SimWorker } from '@switchyard/sim';
import { assertAllReleased, metricValue, scrapeMetrics, waitFor } from '../../helpers/gateway.js';
import { generateRequests } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import type { PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

type Req = Record<string, unknown>;
const DECODE_ANSWER = 'Decoded after the handoff';
/** Long enough for several full KV blocks (16 tokens each): only full blocks are handed over. */
const LONG_PROMPT = Array.from({ length: 60 }, (_, i) => `token${i}`).join(' ');

async function vllmPair(connector: 'NixlConnector' | 'MooncakeConnector'): Promise<PdSetup> {
  const pd = await startGrpcPdSetup({
    runtime: 'vllm',
    flags: ['--disable-retries'],
    prefill: { kvConnector: connector },
    decode: { kvConnector: connector, answerText: DECODE_ANSWER },
  });
  setups.push(pd);
  return pd;
}

function legs(pd: PdSetup): { prefill: SimWorker; decode: SimWorker } {
  const [prefill, decode] = [pd.prefills[0], pd.decodes[0]];
  assert.ok(prefill && decode);
  return { prefill, decode };
}

const client = (pd: PdSetup) =>
  new OpenAI({ apiKey: 'unused', baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });

test('NIXL: a sanitized probe, then the returned params verbatim on the original request', async () => {
  const pd = await vllmPair('NixlConnector');
  const { prefill, decode } = legs(pd);
  const stream = await client(pd).chat.completions.create({
    model: 'qwen3',
    messages: [{ role: 'user', content: LONG_PROMPT }],
    max_tokens: 40,
    temperature: 0.5,
    stop: ['never'],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, DECODE_ANSWER);

  const [p] = generateRequests(prefill);
  const [d] = generateRequests(decode);
  assert.ok(p && d);
  const ps = p.sampling_params as Req;
  assert.equal(ps.max_tokens, 1);
  assert.equal(ps.n, 1);
  assert.equal(ps.ignore_eos, true);
  assert.deepEqual(ps.stop ?? [], [], 'no stop strings on the probe');
  assert.deepEqual(ps.stop_token_ids ?? [], []);
  assert.equal(p.stream ?? false, false, 'the probe is not streamed');
  assert.deepEqual(JSON.parse(String(p.kv_transfer_params_json)), {
    do_remote_decode: true,
    do_remote_prefill: false,
  });

  assert.equal(d.request_id, p.request_id, 'the same request id on both legs');
  const ds = d.sampling_params as Req;
  assert.equal(ds.max_tokens, 40, "the decode runs the client's sampling");
  assert.equal(ds.temperature, 0.5);
  assert.deepEqual(ds.stop, ['never']);
  assert.equal(d.stream, true);
  const relayed = JSON.parse(String(d.kv_transfer_params_json)) as Req;
  assert.equal(relayed.do_remote_prefill, true);
  assert.equal(relayed.remote_engine_id, prefill.kvEngineId);
  assert.ok(Array.isArray(relayed.remote_block_ids) && relayed.remote_block_ids.length > 0);
  // The decode read the prefill's pinned blocks instead of recomputing the prompt.
  await waitForStats(decode, (s) => s.kvTransfers === 1 && s.running === 0, 3000);
  assert.equal(decode.stats().promptsRecomputed, 0);

  const text2 = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(text2, 'smg_pd_kv_connector_mode_total', { mode: 'nixl' }), 1);
  assert.equal(metricValue(text2, 'smg_pd_kv_transfer_failures_total', {}), 0);
  assert.equal(metricValue(text2, 'smg_pd_prefill_duration_seconds_count', {}), 1);
  assert.equal(metricValue(text2, 'smg_pd_kv_transfer_duration_seconds_count', {}), 1);
  assert.equal(metricValue(text2, 'smg_pd_ttft_seconds_count', {}), 1);
  await assertAllReleased(pd.gateway);
  // Both legs ended cleanly: no Abort anywhere.
  assert.deepEqual(prefill.grpc?.aborts, []);
  assert.deepEqual(decode.grpc?.aborts, []);
});

test('NIXL: a prefill that returns no params is counted and the decode runs without params', async () => {
  const pd = await vllmPair('NixlConnector');
  const { decode } = legs(pd);
  // A prompt shorter than one KV block: the engine has no full block to hand over.
  const res = await client(pd).completions.create({ model: 'qwen3', prompt: 'x', max_tokens: 50 });
  assert.equal(res.choices[0]?.text, DECODE_ANSWER);
  const [d] = generateRequests(decode);
  assert.equal(d?.kv_transfer_params_json, undefined, 'the decode runs without params');
  // A plain request to the decode engine: it computes the prompt itself, nothing is pulled.
  await waitForStats(decode, (s) => s.completed === 1 && s.running === 0, 3000);
  assert.equal(decode.stats().kvTransfers, 0);
  const text = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(text, 'smg_pd_kv_transfer_failures_total', {}), 1);
  assert.equal(
    metricValue(text, 'smg_pd_kv_transfer_duration_seconds_count', {}) ?? 0,
    0,
    'no transfer duration without a relay',
  );
  await assertAllReleased(pd.gateway);
});

test('Mooncake: both legs carry the minted xfer- transfer id and the handoff happens', async () => {
  const pd = await vllmPair('MooncakeConnector');
  const { prefill, decode } = legs(pd);
  const res = await client(pd).completions.create({ model: 'qwen3', prompt: LONG_PROMPT });
  assert.equal(res.choices[0]?.text, DECODE_ANSWER);
  const [p] = generateRequests(prefill);
  const [d] = generateRequests(decode);
  const pp = JSON.parse(String(p?.kv_transfer_params_json)) as Req;
  const dp = JSON.parse(String(d?.kv_transfer_params_json)) as Req;
  assert.match(String(pp.transfer_id), /^xfer-/);
  assert.equal(dp.transfer_id, pp.transfer_id);
  assert.equal(dp.remote_engine_id, prefill.kvEngineId);
  assert.equal(dp.remote_bootstrap_addr, `http://127.0.0.1:${prefill.bootstrapPort}`);
  await waitForStats(decode, (s) => s.kvTransfers === 1 && s.running === 0, 3000);
  const text = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(text, 'smg_pd_kv_connector_mode_total', { mode: 'mooncake' }), 1);
  await assertAllReleased(pd.gateway);
});

test('fan-out under NIXL: no prefill request, the decode gets n=2 and is aborted at once when the client leaves', async () => {
  const pd = await startGrpcPdSetup({
    runtime: 'vllm',
    flags: ['--disable-retries', '--prefill-max-inflight-requests-per-worker', '1'],
    prefill: { kvConnector: 'NixlConnector' },
    // A slow first token: the client leaves before it.
    decode: { kvConnector: 'NixlConnector', ttftMs: 3000 },
  });
  setups.push(pd);
  const { prefill, decode } = legs(pd);
  const gone = new AbortController();
  const pending = client(pd)
    .chat.completions.create(
      { model: 'qwen3', messages: [{ role: 'user', content: LONG_PROMPT }], n: 2, stream: true },
      { signal: gone.signal },
    )
    .then(async (s) => {
      for await (const chunk of s) void chunk;
    })
    .catch(() => undefined);
  await waitFor(() => generateRequests(decode).length === 1, 'the decode leg to be sent');
  const [d] = generateRequests(decode);
  assert.equal((d?.sampling_params as Req).n, 2);
  assert.equal(d?.kv_transfer_params_json, undefined);
  assert.equal(generateRequests(prefill).length, 0, 'no prefill RPC at all');
  const leftAt = performance.now();
  gone.abort();
  await pending;
  await waitFor(() => (decode.grpc?.aborts.length ?? 0) === 1, 'the decode Abort', {
    timeoutMs: 1000,
  });
  const took = performance.now() - leftAt;
  assert.ok(took < 1000, `aborted ${took.toFixed(0)} ms after the client left (no deferral)`);
  const text = await scrapeMetrics(pd.gateway);
  assert.equal(metricValue(text, 'smg_pd_prefill_duration_seconds_count', {}) ?? 0, 0);
  await assertAllReleased(pd.gateway);
});
