/**
 * What a gRPC engine tells us about itself at registration, as SMG reads it
 * (`discover_metadata.rs::fetch_grpc_metadata`): every `GetModelInfo` field as a flat label, then
 * `GetServerInfo` (SGLang and TokenSpeed: a curated subset of `server_args` plus the version;
 * vLLM: every field), then SMG's renames and drops. A `GetServerInfo` failure is only a warning;
 * a `GetModelInfo` failure fails the registration.
 */
import type { EngineClient, EngineRuntime } from '../../engine/types.js';

type Json = Record<string, unknown>;

/** SMG's canonical names for the parallelism keys; a canonical key the engine sent wins. */
export const GRPC_LABEL_RENAMES: Readonly<Record<string, string>> = {
  tensor_parallel_size: 'tp_size',
  pipeline_parallel_size: 'pp_size',
  context_parallel_size: 'cp_size',
  data_parallel_size: 'dp_size',
};

/** Transient server state, never a label. */
export const GRPC_DROPPED_LABELS: readonly string[] = [
  'active_requests',
  'is_paused',
  'last_receive_timestamp',
  'uptime_seconds',
  'server_type',
];

/** `server_args` keys SMG keeps for SGLang (`routers/grpc/client.rs`), plus `max_num_seqs` (#2466). */
const SGLANG_SERVER_ARGS = [
  'model_path',
  'served_model_name',
  'tokenizer_path',
  'tp_size',
  'dp_size',
  'pp_size',
  'context_length',
  'max_total_tokens',
  'max_running_requests',
  'max_num_seqs',
  'load_balance_method',
  'disaggregation_mode',
  'is_embedding',
  'vocab_size',
  'weight_version',
] as const;

/** TokenSpeed's: its `model` and `tokenizer` are SGLang's `model_path` and `tokenizer_path`. */
const TOKENSPEED_SERVER_ARGS = [
  'model',
  'served_model_name',
  'tokenizer',
  'tp_size',
  'dp_size',
  'pp_size',
  'context_length',
  'max_total_tokens',
  'max_running_requests',
  'max_num_seqs',
  'load_balance_method',
  'is_embedding',
  'vocab_size',
  'weight_version',
] as const;

const TOKENSPEED_ALIASES: Readonly<Record<string, string>> = {
  model: 'model_path',
  tokenizer: 'tokenizer_path',
};

/**
 * SMG's `flat_labels` rule for one value: a non-empty string, a non-zero number, any boolean
 * and a non-empty array (as JSON) are kept; zeros, empty values, null and objects are not.
 */
export function labelValue(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number') return v === 0 || !Number.isFinite(v) ? undefined : String(v);
  if (typeof v === 'bigint') return v === 0n ? undefined : String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return v.length === 0 ? undefined : JSON.stringify(v);
  return undefined;
}

function flat(info: Json, keys: readonly string[] = Object.keys(info)): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = labelValue(info[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function asObject(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

/** Labels from a `GetServerInfo` reply, by runtime. */
export function serverInfoLabels(runtime: EngineRuntime, info: Json): Record<string, string> {
  if (runtime === 'vllm') return flat(info);
  const args = asObject(info.server_args);
  const labels: Record<string, string> = {};
  if (runtime === 'sglang') {
    Object.assign(labels, flat(args, SGLANG_SERVER_ARGS));
    const version = labelValue(info.sglang_version);
    if (version !== undefined) labels.version = version;
    return labels;
  }
  for (const [key, value] of Object.entries(flat(args, TOKENSPEED_SERVER_ARGS))) {
    labels[TOKENSPEED_ALIASES[key] ?? key] = value;
  }
  const version = labelValue(info.tokenspeed_version);
  if (version !== undefined) labels.version = version;
  const shm = labelValue(asObject(info.scheduler_info).shm_namespace_id);
  if (shm !== undefined) labels.shm_namespace_id = shm;
  return labels;
}

/** SMG's `normalize_grpc_keys`: the renames (an existing canonical key wins), then the drops. */
export function normalizeGrpcLabels(labels: Record<string, string>): Record<string, string> {
  const out = { ...labels };
  for (const [from, to] of Object.entries(GRPC_LABEL_RENAMES)) {
    const value = out[from];
    if (value === undefined) continue;
    delete out[from];
    out[to] ??= value;
  }
  for (const key of GRPC_DROPPED_LABELS) delete out[key];
  return out;
}

export interface GrpcMetadata {
  /** `served_model_name`, else `model_path`; empty when the engine names neither. */
  models: string[];
  labels: Record<string, string>;
}

/**
 * Reads a registered engine's labels and model id. `warn` receives the `GetServerInfo` failure,
 * which does not fail the registration.
 */
export async function discoverGrpcMetadata(
  client: EngineClient,
  runtime: EngineRuntime,
  timeoutMs: number,
  warn: (message: string) => void,
): Promise<GrpcMetadata> {
  let modelInfo: Json;
  try {
    modelInfo = await client.getModelInfo(timeoutMs);
  } catch (err) {
    throw new Error(`Failed to fetch gRPC model info: ${(err as Error).message}`);
  }
  const labels = flat(modelInfo);
  try {
    Object.assign(labels, serverInfoLabels(runtime, await client.getServerInfo(timeoutMs)));
  } catch (err) {
    warn(`Failed to fetch gRPC server info: ${(err as Error).message}`);
  }
  const normalized = normalizeGrpcLabels(labels);
  const model = normalized.served_model_name ?? normalized.model_path;
  return { models: model === undefined ? [] : [model], labels: normalized };
}
