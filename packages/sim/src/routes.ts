// Route table per runtime. The set of paths *is* the fingerprint a gateway probes: vLLM answers
// /version and has no /server_info or /generate; SGLang and TokenSpeed have /server_info and
// /generate but no /version (detect_backend in SMG relies on exactly this).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimRuntime } from './options.js';

export type Method = 'GET' | 'POST';

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
) => void | Promise<void>;

export type RouteTable = ReadonlyMap<string, Partial<Record<Method, Handler>>>;

/** Every endpoint a worker may serve; the table picks the runtime's subset. */
export interface WorkerEndpoints {
  health: Handler;
  healthGenerate: Handler;
  models: Handler;
  chat: Handler;
  completions: Handler;
  /** Anthropic Messages (`/v1/messages`) and its token counter. */
  messages: Handler;
  countTokens: Handler;
  /** OpenAI Responses (`POST /v1/responses`). */
  responses: Handler;
  generate: Handler;
  loads: Handler;
  metrics: Handler;
  serverInfo: Handler;
  modelInfo: Handler;
  version: Handler;
  flushCache: Handler;
  simStats: Handler;
  simFaultsGet: Handler;
  simFaultsPost: Handler;
  kvPull: Handler;
  mooncakeQuery: Handler;
}

export function buildRouteTable(runtime: SimRuntime, e: WorkerEndpoints): RouteTable {
  const table = new Map<string, Partial<Record<Method, Handler>>>([
    ['/health', { GET: e.health }],
    ['/v1/models', { GET: e.models }],
    ['/v1/chat/completions', { POST: e.chat }],
    ['/v1/completions', { POST: e.completions }],
    // SGLang and vLLM serve Anthropic's Messages API beside the OpenAI one; TokenSpeed is given it
    // too, so a gateway passing Messages through can use any worker.
    ['/v1/messages', { POST: e.messages }],
    ['/v1/messages/count_tokens', { POST: e.countTokens }],
    // vLLM and SGLang serve the Responses API too; TokenSpeed is given it, as it is Messages.
    ['/v1/responses', { POST: e.responses }],
    ['/v1/loads', { GET: e.loads }],
    ['/metrics', { GET: e.metrics }],
    ['/sim/stats', { GET: e.simStats }],
    ['/sim/faults', { GET: e.simFaultsGet, POST: e.simFaultsPost }],
    // KV reads also work on the main port, for gateways that know no separate bootstrap port.
    ['/sim/kv/pull', { POST: e.kvPull }],
  ]);
  switch (runtime) {
    case 'vllm':
      table.set('/version', { GET: e.version });
      table.set('/query', { POST: e.mooncakeQuery });
      break;
    case 'sglang':
    case 'tokenspeed':
      table.set('/generate', { POST: e.generate });
      table.set('/server_info', { GET: e.serverInfo });
      table.set('/get_server_info', { GET: e.serverInfo });
      table.set('/model_info', { GET: e.modelInfo });
      table.set('/get_model_info', { GET: e.modelInfo });
      table.set('/health_generate', { GET: e.healthGenerate });
      table.set('/flush_cache', { GET: e.flushCache, POST: e.flushCache });
      break;
  }
  return table;
}
