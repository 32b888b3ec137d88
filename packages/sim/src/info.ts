// Introspection bodies a gateway reads to discover and balance workers: model list, server and
// model info (SGLang/TokenSpeed), version (vLLM), SMG-shaped load reports and Prometheus gauges.
// Field names follow the real engines because the gateway fingerprints runtimes by them; load
// numbers are the engine's own (running window, queue, KV usage), so the gateway's load monitor
// and overload protection see what a real engine would report.
import type { EngineLoad } from './engine.js';
import type { SimRole, SimRuntime } from './options.js';
import { SIM_CONTEXT_LENGTH } from './options.js';

export interface WorkerInfo {
  runtime: SimRuntime;
  model: string;
  role: SimRole;
  maxRunningRequests: number;
  dpSize: number;
  tpSize: number;
  bootstrapPort: number | undefined;
  /** Unix seconds at worker start (the `created` of /v1/models). */
  created: number;
}

/** PD queue lengths beyond the engine's own (prefill: rooms waiting for their decode). */
export interface PdQueues {
  bootstrapping: number;
}

const VERSIONS: Record<SimRuntime, string> = {
  sglang: '0.5.4-sim',
  vllm: '0.11.0-sim',
  tokenspeed: '0.1.0-sim',
};

export function versionBody(info: WorkerInfo): unknown {
  return { version: VERSIONS[info.runtime] };
}

export function modelsBody(info: WorkerInfo): unknown {
  return {
    object: 'list',
    data: [{ id: info.model, object: 'model', created: info.created, owned_by: info.runtime }],
  };
}

/** SGLang's `--disaggregation-mode`: 'null' (its default, as text), 'prefill' or 'decode'. */
export function disaggregationMode(role: SimRole): string {
  return role === 'regular' ? 'null' : role;
}

/**
 * SGLang names its running window `max_running_requests`; TokenSpeed (like vLLM) calls it
 * `max_num_seqs` and uses bare `model`/`tokenizer` names. The gateway tells them apart by that.
 */
export function serverInfoBody(info: WorkerInfo, load: EngineLoad): unknown {
  const windowKey = info.runtime === 'sglang' ? 'max_running_requests' : 'max_num_seqs';
  const body: Record<string, unknown> = {
    model_path: info.model,
    served_model_name: info.model,
    tp_size: info.tpSize,
    dp_size: info.dpSize,
    pp_size: 1,
    disaggregation_mode: disaggregationMode(info.role),
    is_embedding: false,
    [windowKey]: info.maxRunningRequests,
    max_total_num_tokens: load.maxTotalTokens,
    context_length: SIM_CONTEXT_LENGTH,
    version: VERSIONS[info.runtime],
  };
  if (info.runtime === 'tokenspeed') {
    body['model'] = info.model;
    body['tokenizer'] = info.model;
  }
  if (info.bootstrapPort !== undefined) body['disaggregation_bootstrap_port'] = info.bootstrapPort;
  return body;
}

export function modelInfoBody(info: WorkerInfo): unknown {
  return {
    model_path: info.model,
    tokenizer_path: info.model,
    is_generation: true,
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
  };
}

/**
 * SGLang's per-rank PD queues (`DisaggregationMetrics`), the same over HTTP and gRPC; none for a
 * regular worker.
 */
export function disaggregationMetrics(
  role: SimRole,
  load: EngineLoad,
  pd: PdQueues,
): Record<string, unknown> | undefined {
  if (role === 'regular') return undefined;
  const decode = role === 'decode';
  return {
    mode: role,
    prefill_prealloc_queue_reqs: decode ? 0 : pd.bootstrapping,
    prefill_inflight_queue_reqs: 0,
    decode_prealloc_queue_reqs: decode ? load.waiting : 0,
    decode_transfer_queue_reqs: decode ? load.awaitingKv : 0,
    decode_retracted_queue_reqs: 0,
    kv_transfer_speed_gb_s: 0,
    kv_transfer_latency_ms: 0,
  };
}

/** The `/v1/loads` body SMG's load monitor reads (`GetLoadsResponse`), for one DP rank. */
export function loadsBody(info: WorkerInfo, load: EngineLoad, pd: PdQueues): unknown {
  const total = load.running + load.waiting;
  const usage = tokenUsage(load);
  const entry: Record<string, unknown> = {
    dp_rank: 0,
    num_running_reqs: load.running,
    num_waiting_reqs: load.waiting,
    num_total_reqs: total,
    num_used_tokens: load.usedTokens,
    max_total_num_tokens: load.maxTotalTokens,
    token_usage: usage,
    gen_throughput: load.genThroughput,
    cache_hit_rate: load.cacheHitRate,
    utilization: load.running / info.maxRunningRequests,
    max_running_requests: info.maxRunningRequests,
    num_waiting_uncached_tokens: load.waitingUncachedTokens,
    queues: { waiting: load.waiting, grammar: 0, paused: 0, retracted: 0 },
  };
  const disaggregation = disaggregationMetrics(info.role, load, pd);
  if (disaggregation !== undefined) entry['disaggregation'] = disaggregation;
  return {
    timestamp: new Date().toISOString(),
    version: VERSIONS[info.runtime],
    dp_rank_count: 1,
    loads: [entry],
    aggregate: {
      total_running_reqs: load.running,
      total_waiting_reqs: load.waiting,
      total_reqs: total,
      avg_token_usage: usage,
      avg_throughput: load.genThroughput,
      avg_utilization: load.running / info.maxRunningRequests,
    },
  };
}

/**
 * Prometheus text. SGLang and TokenSpeed use `sglang:` gauges, vLLM its v1 `vllm:` names; these
 * are the gauges SMG's load monitor falls back to when /v1/loads is absent.
 */
export function metricsText(info: WorkerInfo, load: EngineLoad, pd: PdQueues): string {
  const label = `{model_name=${JSON.stringify(info.model)}}`;
  const decode = info.role === 'decode';
  const gauges: [string, string, number][] =
    info.runtime === 'vllm'
      ? [
          ['vllm:num_requests_running', 'Requests in the running batch.', load.running],
          ['vllm:num_requests_waiting', 'Requests waiting to be scheduled.', load.waiting],
          ['vllm:kv_cache_usage_perc', 'KV cache usage, 1 means 100 percent.', tokenUsage(load)],
          ['vllm:gpu_prefix_cache_hit_rate', 'Prefix cache hit rate.', load.cacheHitRate],
        ]
      : [
          ['sglang:num_running_reqs', 'Running requests.', load.running],
          ['sglang:num_queue_reqs', 'Queued requests.', load.waiting],
          ['sglang:token_usage', 'KV token usage ratio.', tokenUsage(load)],
          ['sglang:gen_throughput', 'Generation throughput in tokens/s.', load.genThroughput],
          ['sglang:cache_hit_rate', 'Prefix cache hit rate.', load.cacheHitRate],
          [
            'sglang:num_prefill_prealloc_queue_reqs',
            'Prefill rooms waiting for their decode peer.',
            decode ? 0 : pd.bootstrapping,
          ],
          [
            'sglang:num_decode_prealloc_queue_reqs',
            'Decode requests waiting for a slot.',
            decode ? load.waiting : 0,
          ],
          [
            'sglang:num_decode_transfer_queue_reqs',
            'Decode requests waiting for their KV.',
            decode ? load.awaitingKv : 0,
          ],
        ];
  let text = '';
  for (const [name, help, value] of gauges) {
    text += `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name}${label} ${value}\n`;
  }
  return text;
}

function tokenUsage(load: EngineLoad): number {
  return load.usedTokens / load.maxTotalTokens;
}
