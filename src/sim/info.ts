// Introspection bodies a gateway reads to discover and balance workers: model list, server and
// model info (SGLang/TokenSpeed), version (vLLM), SMG-shaped load reports and Prometheus gauges.
// Field names follow the real engines because the gateway fingerprints runtimes by them.
import type { EngineLoad } from './engine.js';
import type { SimRuntime } from './options.js';
import { SIM_CONTEXT_LENGTH, SIM_MAX_TOTAL_NUM_TOKENS } from './options.js';

export interface WorkerInfo {
  runtime: SimRuntime;
  model: string;
  maxRunningRequests: number;
  /** Unix seconds at worker start (the `created` of /v1/models). */
  created: number;
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

/**
 * SGLang names its running window `max_running_requests`; TokenSpeed (like vLLM) calls it
 * `max_num_seqs`. The gateway tells TokenSpeed from SGLang by that key.
 */
export function serverInfoBody(info: WorkerInfo): unknown {
  const windowKey = info.runtime === 'sglang' ? 'max_running_requests' : 'max_num_seqs';
  return {
    model_path: info.model,
    served_model_name: info.model,
    tp_size: 1,
    dp_size: 1,
    pp_size: 1,
    disaggregation_mode: 'null',
    is_embedding: false,
    [windowKey]: info.maxRunningRequests,
    max_total_num_tokens: SIM_MAX_TOTAL_NUM_TOKENS,
    context_length: SIM_CONTEXT_LENGTH,
    version: VERSIONS[info.runtime],
  };
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

/** SMG `GetLoadsResponse` (pd-protocols §1.9) for a single data-parallel rank. */
export function loadsBody(info: WorkerInfo, load: EngineLoad): unknown {
  const total = load.running + load.waiting;
  return {
    timestamp: new Date().toISOString(),
    version: VERSIONS[info.runtime],
    dp_rank_count: 1,
    loads: [
      {
        dp_rank: 0,
        num_running_reqs: load.running,
        num_waiting_reqs: load.waiting,
        num_total_reqs: total,
        num_used_tokens: load.usedTokens,
        max_total_num_tokens: SIM_MAX_TOTAL_NUM_TOKENS,
        token_usage: tokenUsage(load),
        gen_throughput: load.genThroughput,
        cache_hit_rate: 0,
        utilization: load.running / info.maxRunningRequests,
        max_running_requests: info.maxRunningRequests,
        num_waiting_uncached_tokens: 0,
      },
    ],
  };
}

/**
 * Prometheus text. SGLang and TokenSpeed use `sglang:` gauges, vLLM its v1 `vllm:` names; these
 * are the gauges SMG's load monitor falls back to when /v1/loads is absent.
 */
export function metricsText(info: WorkerInfo, load: EngineLoad): string {
  const label = `{model_name=${JSON.stringify(info.model)}}`;
  const gauges: [string, string, number][] =
    info.runtime === 'vllm'
      ? [
          ['vllm:num_requests_running', 'Requests in the running batch.', load.running],
          ['vllm:num_requests_waiting', 'Requests waiting to be scheduled.', load.waiting],
          ['vllm:kv_cache_usage_perc', 'KV cache usage, 1 means 100 percent.', tokenUsage(load)],
        ]
      : [
          ['sglang:num_running_reqs', 'Running requests.', load.running],
          ['sglang:num_queue_reqs', 'Queued requests.', load.waiting],
          ['sglang:token_usage', 'KV token usage ratio.', tokenUsage(load)],
          ['sglang:gen_throughput', 'Generation throughput in tokens/s.', load.genThroughput],
        ];
  let text = '';
  for (const [name, help, value] of gauges) {
    text += `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name}${label} ${value}\n`;
  }
  return text;
}

function tokenUsage(load: EngineLoad): number {
  return load.usedTokens / SIM_MAX_TOTAL_NUM_TOKENS;
}
