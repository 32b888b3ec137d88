/**
 * What a worker tells us about itself at registration: its runtime (fingerprinted as SMG does:
 * `/v1/models` owned_by, then `/version` for vLLM, then `/server_info` for SGLang), its model ids,
 * and the server-info fields that become labels (`max_running_requests`, `max_num_seqs`,
 * `disaggregation_mode`, `dp_size`, ...).
 */
import { request, type Dispatcher } from 'undici';
import { workerCallHeaders } from '../../upstream/headers.js';
import type { Runtime } from '../worker.js';
import type { WorkerSpec } from '../spec.js';
import type { StartupWait } from './startup-wait.js';

/** Server-info and model-info fields kept as labels (SMG's curated subset plus `max_num_seqs`). */
const LABEL_FIELDS = [
  'model_path',
  'served_model_name',
  'tp_size',
  'dp_size',
  'pp_size',
  'load_balance_method',
  'disaggregation_mode',
  'version',
  'is_embedding',
  'context_length',
  'max_total_tokens',
  'max_total_num_tokens',
  'max_running_requests',
  'max_num_seqs',
  'weight_version',
  'tokenizer_path',
  'is_generation',
  'model_type',
] as const;

export interface DiscoveredMetadata {
  runtime: Runtime;
  models: string[];
  labels: Record<string, string>;
}

export interface ProbeOptions {
  timeoutMs: number;
  apiKey?: string | undefined;
  /** The gateway's guarded worker Agent: re-checks the worker's resolved address per connection. */
  dispatcher: Dispatcher;
}

type Json = Record<string, unknown>;

async function getJson(
  url: string,
  opts: ProbeOptions,
): Promise<{ status: number; json?: Json | undefined }> {
  try {
    const res = await request(url, {
      dispatcher: opts.dispatcher,
      method: 'GET',
      headers: workerCallHeaders(opts.apiKey),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      return { status: res.statusCode };
    }
    const value: unknown = await res.body.json().catch(() => undefined);
    const json =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Json)
        : undefined;
    return { status: res.statusCode, json };
  } catch {
    return { status: 0 };
  }
}

/** SMG tries `/server_info` and falls back to `/get_server_info` when the first is missing. */
async function getWithFallback(
  base: string,
  paths: readonly string[],
  opts: ProbeOptions,
): Promise<Json | undefined> {
  for (const path of paths) {
    const { json } = await getJson(base + path, opts);
    if (json) return json;
  }
  return undefined;
}

/** Flat string labels: nulls, zeros and empty strings are skipped; bools become "true"/"false". */
export function flattenLabels(info: Json): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of LABEL_FIELDS) {
    const v = info[key];
    if (v === null || v === undefined || v === '' || v === 0) continue;
    if (typeof v === 'boolean') out[key] = v ? 'true' : 'false';
    else if (typeof v === 'number' || typeof v === 'string') out[key] = String(v);
  }
  return out;
}

function runtimeFromOwner(owner: unknown): Runtime | undefined {
  switch (owner) {
    case 'vllm':
      return 'vllm';
    case 'sglang':
      return 'sglang';
    case 'tokenspeed':
      return 'tokenspeed';
    default:
      return undefined;
  }
}

export async function discoverMetadata(
  base: string,
  given: Runtime | undefined,
  opts: ProbeOptions,
): Promise<DiscoveredMetadata> {
  const modelsReply = await getJson(`${base}/v1/models`, opts);
  const data = Array.isArray(modelsReply.json?.data) ? (modelsReply.json.data as Json[]) : [];
  const models = data.map((m) => m.id).filter((id): id is string => typeof id === 'string');

  let runtime = given && given !== 'unspecified' ? given : runtimeFromOwner(data[0]?.owned_by);
  let serverInfo: Json | undefined;
  if (runtime === undefined) {
    const version = await getJson(`${base}/version`, opts);
    if (version.json) runtime = 'vllm';
  }
  if (runtime !== 'vllm') {
    serverInfo = await getWithFallback(base, ['/server_info', '/get_server_info'], opts);
    if (runtime === undefined) runtime = serverInfo ? 'sglang' : 'generic';
  }
  const modelInfo =
    runtime === 'vllm'
      ? undefined
      : await getWithFallback(base, ['/model_info', '/get_model_info'], opts);
  const labels = { ...flattenLabels(modelInfo ?? {}), ...flattenLabels(serverInfo ?? {}) };
  return { runtime, models, labels };
}

/** One health probe: any 2xx is success, everything else (including transport errors) fails. */
export async function probeHealth(url: string, opts: ProbeOptions): Promise<boolean> {
  // A probe allowed no time cannot succeed: SMG's client with a zero timeout fails every probe
  // (`--health-check-timeout-secs 0`); undici would read 0 as "no timeout" instead.
  if (opts.timeoutMs <= 0) return false;
  const { status } = await getJson(url, opts);
  return status >= 200 && status < 300;
}

const DISCOVERY_TIMEOUT_MS = 10_000;

export interface HttpRegistrationDeps {
  healthEndpoint: string;
  healthTimeoutMs: number;
  healthDisabled: boolean;
  apiKey: string | undefined;
  dispatcher: Dispatcher;
  wait: StartupWait;
  /** Re-checks the worker's address before each contact (target-guard.ts); throws if refused. */
  assertAllowed: (url: string) => Promise<void>;
  signal: AbortSignal;
}

/**
 * The HTTP half of a registration job: probe the health endpoint until it answers 2xx (unless
 * health checks are disabled), then fingerprint the worker.
 */
export async function discoverHttpWorker(
  spec: WorkerSpec,
  deps: HttpRegistrationDeps,
): Promise<DiscoveredMetadata> {
  const probe = {
    timeoutMs: deps.healthTimeoutMs,
    apiKey: deps.apiKey,
    dispatcher: deps.dispatcher,
  };
  while (!deps.healthDisabled) {
    await deps.assertAllowed(spec.url);
    if (await probeHealth(spec.url + deps.healthEndpoint, probe)) break;
    await deps.wait.next();
  }
  deps.signal.throwIfAborted();
  await deps.assertAllowed(spec.url);
  return discoverMetadata(spec.url, spec.runtime ?? spec.runtime_type, {
    ...probe,
    timeoutMs: DISCOVERY_TIMEOUT_MS,
  });
}
