/**
 * An IGW gateway whose /metrics, after `driveObservedTraffic`, holds a series of every family an
 * operator's dashboard reads: regular and PD traffic (SGLang bootstrap pairs and a vLLM pair),
 * a retry and an open circuit, a stream cut mid-way, a prefill admission queue with a rejection,
 * a decode window shed, engine load reports and the IGW router split. Labelled counters and
 * histograms only appear once something is counted, so each of those has to really happen.
 */
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSimWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { startIgwGateway } from './igw-fleet.js';
import { waitFor } from './gateway.js';
import { assertGatewayError, postJson } from './http.js';

/** Models served, one per kind of router path the dashboard shows. */
export const OBSERVED_MODELS = {
  regular: 'obs-regular',
  /** SGLang PD pair whose prefill is made to hang, to fill the prefill admission queue. */
  pd: 'obs-pd',
  /** SGLang PD pair whose decode window is 1, to shed at the decode gate. */
  narrow: 'obs-pd-narrow',
  /** vLLM PD pair (NIXL), the only path that observes the KV-transfer histogram. */
  vllm: 'obs-vllm',
} as const;

export interface ObservedFleet {
  gateway: Gateway;
  regular: [SimWorker, SimWorker];
  pdPrefill: SimWorker;
  narrowDecode: SimWorker;
  sims: SimWorker[];
  close(): Promise<void>;
}

const FAST = { ttftMs: 1, itlMs: 1 } satisfies SimWorkerOptions;

/**
 * One prefill slot per worker and a queue of one, so a hanging prefill puts the next request in
 * the queue and the one after it into `queue_full`; no decode wait budget, so a full decode
 * window sheds at once instead of after a sleep; a low circuit threshold and near-zero backoff.
 */
const GATEWAY_FLAGS = [
  '--engine-metrics',
  '--load-monitor-interval',
  '3600',
  '--prefill-max-inflight-requests-per-worker',
  '1',
  '--prefill-queue-size',
  '1',
  '--pd-admission-wait-secs',
  '0',
  '--max-concurrent-requests',
  '64',
  '--retry-initial-backoff-ms',
  '1',
  '--retry-max-backoff-ms',
  '1',
  '--cb-failure-threshold',
  '2',
  '--cb-timeout-duration-secs',
  '3600',
];

async function register(gateway: Gateway, spec: Record<string, unknown>): Promise<void> {
  const res = await postJson(`${gateway.url}/workers`, spec);
  assert.equal(res.status, 202, await res.text());
}

export async function startObservedFleet(): Promise<ObservedFleet> {
  const m = OBSERVED_MODELS;
  const start = (opts: SimWorkerOptions): Promise<SimWorker> =>
    startSimWorker({ ...FAST, ...opts });
  const [regA, regB, pdPrefill, pdDecode, narrowPrefill, narrowDecode, vPrefill, vDecode] =
    await Promise.all([
      start({ model: m.regular }),
      start({ model: m.regular }),
      start({ model: m.pd, role: 'prefill' }),
      start({ model: m.pd, role: 'decode', maxRunningRequests: 4 }),
      start({ model: m.narrow, role: 'prefill' }),
      start({ model: m.narrow, role: 'decode', maxRunningRequests: 1 }),
      // vLLM workers take their PD part from each request; only the registration says which.
      start({ model: m.vllm, runtime: 'vllm', kvConnector: 'NixlConnector' }),
      start({ model: m.vllm, runtime: 'vllm', kvConnector: 'NixlConnector' }),
    ]);
  const sims = [regA, regB, pdPrefill, pdDecode, narrowPrefill, narrowDecode, vPrefill, vDecode];
  const gateway = await startIgwGateway({ flags: GATEWAY_FLAGS });
  await register(gateway, { url: regA.url });
  await register(gateway, { url: regB.url });
  for (const p of [pdPrefill, narrowPrefill])
    await register(gateway, {
      url: p.url,
      worker_type: 'prefill',
      bootstrap_port: p.bootstrapPort,
    });
  for (const d of [pdDecode, narrowDecode])
    await register(gateway, { url: d.url, worker_type: 'decode' });
  await register(gateway, {
    url: vPrefill.url,
    worker_type: 'prefill',
    kv_connector: 'NixlConnector',
  });
  await register(gateway, { url: vDecode.url, worker_type: 'decode' });
  await waitFor(
    () => gateway.internals.registry.all().filter((w) => w.isHealthy).length === sims.length,
    `${sims.length} ready workers`,
  );
  return {
    gateway,
    regular: [regA, regB],
    pdPrefill,
    narrowDecode,
    sims,
    close: async () => {
      await gateway.close();
      await Promise.all(sims.map((s) => s.close()));
    },
  };
}

/**
 * Long enough to fill whole KV blocks: a vLLM prefill hands over only full blocks, and with none
 * the gateway counts a KV-transfer failure instead of observing the transfer's duration.
 */
const PROMPT = 'a prompt long enough to fill several kv blocks '.repeat(8);

/** Ordinary traffic through the official client: chat (plain and streamed) and completions. */
async function clientTraffic(gateway: Gateway): Promise<void> {
  const client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  for (const model of Object.values(OBSERVED_MODELS)) {
    const messages = [{ role: 'user' as const, content: PROMPT }];
    await client.chat.completions.create({ model, messages, max_tokens: 4 });
    const stream = await client.chat.completions.create({
      model,
      messages,
      max_tokens: 4,
      stream: true,
    });
    for await (const chunk of stream) void chunk;
    await client.completions.create({ model, prompt: PROMPT, max_tokens: 4 });
  }
  // A model no worker serves: a gateway-minted error code for the error panels.
  await assert.rejects(
    client.chat.completions.create({
      model: 'no-such-model',
      messages: [{ role: 'user', content: 'x' }],
    }),
    (err: unknown) => err instanceof OpenAI.NotFoundError,
  );
}

/** One streamed completion of `model` through fetch; resolves when its body ends or breaks. */
async function streamOnce(gateway: Gateway, model: string): Promise<void> {
  const res = await postJson(`${gateway.url}/v1/completions`, {
    model,
    prompt: 'cut me',
    max_tokens: 8,
    stream: true,
  });
  await res.arrayBuffer().catch(() => undefined);
}

/** A stream cut after its first chunk (a worker error), then worker B failing until its circuit opens. */
async function failureTraffic(fleet: ObservedFleet): Promise<void> {
  const [a, b] = fleet.regular;
  const { registry } = fleet.gateway.internals;
  for (const w of [a, b]) w.setFaults({ dropAfterChunks: 1, maxFires: 1 });
  await streamOnce(fleet.gateway, OBSERVED_MODELS.regular);
  for (const w of [a, b]) w.setFaults({});
  // Each request that lands on B fails with a retryable 500 and is retried on A.
  b.setFaults({ errorRate: 1, errorStatus: 500 });
  await waitFor(async () => {
    await streamOnce(fleet.gateway, OBSERVED_MODELS.regular);
    return registry.getByUrl(b.url)?.circuit.state === 'open';
  }, "worker B's circuit to open");
  b.setFaults({});
}

/** An aborted request's fetch: started now, ended by `abort()`. */
function abortable(url: string, body: unknown): { done: Promise<unknown>; abort(): void } {
  const ac = new AbortController();
  const done = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: ac.signal,
  }).then((res) => res.arrayBuffer());
  return { done: done.catch(() => undefined), abort: () => ac.abort() };
}

/**
 * The PD admission gates at work. Prefill: a hanging prefill holds the pair's only slot, the
 * next request queues, the third finds the queue full (429). Decode: a hanging decode holds the
 * narrow window's only room, so the next request is shed (no wait budget) on every attempt.
 */
async function admissionTraffic(fleet: ObservedFleet): Promise<void> {
  const { gateway, pdPrefill, narrowDecode } = fleet;
  const { prefillAdmission, decodeAdmission, registry } = gateway.internals;
  const url = `${gateway.url}/v1/completions`;
  const body = (model: string) => ({ model, prompt: 'admit me', max_tokens: 2 });

  pdPrefill.setFaults({ hang: true });
  const held = abortable(url, body(OBSERVED_MODELS.pd));
  const prefill = registry.getByUrl(pdPrefill.url);
  assert.ok(prefill && prefillAdmission);
  await waitFor(() => prefillAdmission.inflight(prefill) === 1, 'the prefill slot to be held');
  const queued = postJson(url, body(OBSERVED_MODELS.pd));
  await waitFor(() => prefillAdmission.queued === 1, 'a request in the prefill queue');
  await assertGatewayError(
    await postJson(url, body(OBSERVED_MODELS.pd)),
    429,
    'pd_prefill_queue_full',
  );
  pdPrefill.setFaults({});
  held.abort();
  await held.done;
  const served = await queued;
  assert.equal(served.status, 200, await served.clone().text());
  await served.arrayBuffer();

  narrowDecode.setFaults({ hang: true });
  const holding = abortable(url, body(OBSERVED_MODELS.narrow));
  const decode = registry.getByUrl(narrowDecode.url);
  assert.ok(decode && decodeAdmission);
  await waitFor(() => decodeAdmission.claimed(decode) === 1, 'the decode room to be claimed');
  await assertGatewayError(
    await postJson(url, body(OBSERVED_MODELS.narrow)),
    503,
    'no_available_workers',
  );
  narrowDecode.setFaults({});
  holding.abort();
  await holding.done;
}

/** Everything above, then one round of engine load reports. */
export async function driveObservedTraffic(fleet: ObservedFleet): Promise<void> {
  await clientTraffic(fleet.gateway);
  await failureTraffic(fleet);
  await admissionTraffic(fleet);
  await fleet.gateway.internals.loadMonitor?.pollAll();
}
