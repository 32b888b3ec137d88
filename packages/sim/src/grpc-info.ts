// The gRPC management answers (GetModelInfo, GetServerInfo, GetLoads) for each runtime, from the
// worker's options, its tokenizer and its engine's own load numbers. The field sets differ per
// proto (grpc-mode.md §1.2-1.4); unknown fields would be dropped by the encoder anyway, but each
// builder sets only what its proto has so the shapes stay readable.
import type { EngineLoad } from './engine.js';
import type { PdQueues } from './info.js';
import type { ResolvedSimOptions } from './options.js';
import type { SimTokenizer } from './sim-tokenizer.js';
import { disaggregationMetrics, disaggregationMode } from './info.js';

type Msg = Record<string, unknown>;

const VERSIONS = { sglang: '0.5.4-sim', vllm: '0.11.0-sim', tokenspeed: '0.1.0-sim' } as const;

export function modelInfo(opts: ResolvedSimOptions, tok: SimTokenizer): Msg {
  const common: Msg = {
    model_path: opts.model,
    tokenizer_path: opts.tokenizerPathLabel ?? tok.dir,
    served_model_name: opts.model,
    model_type: 'sim',
    architectures: ['SimForCausalLM'],
    max_context_length: opts.maxContextLength,
    max_req_input_len: opts.maxContextLength - 1,
    vocab_size: tok.vocabSize,
    eos_token_ids: [...tok.eosTokenIds],
    default_sampling_params_json: opts.defaultSamplingParamsJson,
    supports_vision: false,
  };
  if (tok.padTokenId !== undefined) common['pad_token_id'] = tok.padTokenId;
  if (tok.bosTokenId !== undefined) common['bos_token_id'] = tok.bosTokenId;
  if (opts.runtime === 'vllm') return { ...common, is_generation: true };
  const weights = { weight_version: opts.weightVersion };
  if (opts.runtime === 'sglang') return { ...common, ...weights, is_generation: true };
  return { ...common, ...weights, supports_multimodal: false, model_dtype: 'bfloat16' };
}

export interface ServerState {
  kvEngineId: string;
  /** The prefill's bootstrap listener, once bound. */
  bootstrapPort: number | undefined;
  load: EngineLoad;
  active: number;
  startedAtMs: number;
  lastReceiveMs: number;
}

export function serverInfo(opts: ResolvedSimOptions, tok: SimTokenizer, s: ServerState): Msg {
  const uptime = (Date.now() - s.startedAtMs) / 1000;
  if (opts.runtime === 'vllm') {
    return {
      active_requests: s.active,
      is_paused: false,
      last_receive_timestamp: s.lastReceiveMs / 1000,
      uptime_seconds: uptime,
      server_type: 'vllm-grpc',
      kv_connector: opts.kvConnector ?? '',
      kv_role: opts.kvConnector === undefined ? '' : 'kv_both',
      kv_engine_id: s.kvEngineId,
      data_parallel_size: opts.dpSize,
    };
  }
  const sglang = opts.runtime === 'sglang';
  const args: Msg = {
    [sglang ? 'model_path' : 'model']: opts.model,
    [sglang ? 'tokenizer_path' : 'tokenizer']: opts.tokenizerPathLabel ?? tok.dir,
    served_model_name: opts.model,
    tp_size: opts.tpSize,
    dp_size: opts.dpSize,
    pp_size: 1,
    context_length: opts.maxContextLength,
    max_total_tokens: s.load.maxTotalTokens,
    max_running_requests: opts.maxRunningRequests,
    disaggregation_mode: disaggregationMode(opts.role),
    is_embedding: false,
    skip_tokenizer_init: true,
    weight_version: opts.weightVersion,
  };
  if (s.bootstrapPort !== undefined) args['disaggregation_bootstrap_port'] = s.bootstrapPort;
  // TokenSpeed also spells its window vLLM's way (pd-protocols.md, SMG #2466).
  if (!sglang) args['max_num_seqs'] = opts.maxRunningRequests;
  const start = { seconds: String(Math.floor(s.startedAtMs / 1000)), nanos: 0 };
  const body: Msg = {
    server_args: toStruct(args),
    scheduler_info: toStruct({ max_total_num_tokens: s.load.maxTotalTokens }),
    active_requests: s.active,
    is_paused: false,
    uptime_seconds: uptime,
    max_total_num_tokens: s.load.maxTotalTokens,
    start_time: start,
  };
  if (sglang) {
    body['sglang_version'] = VERSIONS.sglang;
    body['server_type'] = 'grpc';
    body['last_receive_timestamp'] = s.lastReceiveMs / 1000;
  } else {
    body['tokenspeed_version'] = VERSIONS.tokenspeed;
  }
  return body;
}

/**
 * GetLoadsResponse for one DP rank (vLLM has no optional sections and no aggregate; only SGLang's
 * proto has the PD queues).
 */
export function loads(opts: ResolvedSimOptions, load: EngineLoad, pd: PdQueues): Msg {
  const total = load.running + load.waiting;
  const usage = load.usedTokens / load.maxTotalTokens;
  const utilization = load.running / opts.maxRunningRequests;
  const entry: Msg = {
    dp_rank: 0,
    num_running_reqs: load.running,
    num_waiting_reqs: load.waiting,
    num_total_reqs: total,
    num_used_tokens: load.usedTokens,
    max_total_num_tokens: load.maxTotalTokens,
    token_usage: usage,
    gen_throughput: load.genThroughput,
    cache_hit_rate: load.cacheHitRate,
    utilization,
    max_running_requests: opts.maxRunningRequests,
  };
  const body: Msg = {
    timestamp: new Date().toISOString(),
    version: VERSIONS[opts.runtime],
    dp_rank_count: 1,
    loads: [entry],
  };
  if (opts.runtime === 'vllm') return body;
  entry['num_waiting_uncached_tokens'] = load.waitingUncachedTokens;
  entry['queues'] = { waiting: load.waiting, grammar: 0, paused: 0, retracted: 0 };
  const disaggregation =
    opts.runtime === 'sglang' ? disaggregationMetrics(opts.role, load, pd) : undefined;
  if (disaggregation !== undefined) entry['disaggregation'] = disaggregation;
  body['aggregate'] = {
    total_running_reqs: load.running,
    total_waiting_reqs: load.waiting,
    total_reqs: total,
    avg_token_usage: usage,
    avg_throughput: load.genThroughput,
    avg_utilization: utilization,
  };
  return body;
}

/**
 * A plain JSON object as a google.protobuf.Struct. protobufjs bundles struct.proto with camelCase
 * field names (`stringValue`, not `string_value`), and keepCase keeps them that way.
 */
export function toStruct(value: Msg): Msg {
  const fields: Msg = {};
  for (const [k, v] of Object.entries(value)) fields[k] = toValue(v);
  return { fields };
}

function toValue(v: unknown): Msg {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStruct(v as Msg) };
}
