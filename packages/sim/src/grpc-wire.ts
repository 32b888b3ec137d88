// The three engine protos as the simulator reads and writes them. The services share their RPC
// names but not their messages (grpc-mode.md §1.5): SGLang and TokenSpeed echo request_id and
// report running totals; vLLM sends no request_id and delta counts; the field holding the output
// cap is max_new_tokens or max_tokens; Abort carries one id and a reason or a list of ids.
import { ENGINE_PROTOS } from '@switchyard/protos';
import type { SimRuntime } from './options.js';
import type { ChoicePlan } from './grpc-answer.js';
import type { GrpcConstraint } from './grpc-constraint.js';
import type { SimTokenizer } from './sim-tokenizer.js';
import { readConstraint } from './grpc-constraint.js';

type Msg = Record<string, unknown>;

/** A GenerateRequest, normalised. */
export interface GrpcGenerate {
  requestId: string;
  inputIds: number[];
  stream: boolean;
  n: number;
  maxNewTokens: number | undefined;
  stopTokenIds: number[];
  ignoreEos: boolean;
  /** The structured-output constraint of the sampling params (grpc-constraint.ts). */
  constraint: GrpcConstraint | undefined;
  /** SGLang/TokenSpeed PD: the prefill's bootstrap server and the room, as exact decimal text. */
  bootstrap: { host: string; port: number | undefined; room: string } | undefined;
  /** vLLM PD: `kv_transfer_params_json`, parsed (the HTTP surface's `kv_transfer_params`). */
  kvTransferParams: Record<string, unknown> | undefined;
  /** The DP rank the router chose (SGLang, vLLM); recorded, not acted on. */
  dataParallelRank: number | undefined;
}

/** An RPC's full method path, the key under which stats count it. */
export function rpcPath(runtime: SimRuntime, rpc: string): string {
  return `/${ENGINE_PROTOS[runtime].service}/${rpc}`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Reads a decoded GenerateRequest; a message means INVALID_ARGUMENT. */
export function parseGenerate(
  runtime: SimRuntime,
  req: Msg,
  tokenizer: SimTokenizer,
): Parsed<GrpcGenerate> {
  const sp = obj(req['sampling_params']);
  let inputIds = nums(obj(req['tokenized'])['input_ids']);
  // vLLM also takes raw text (its servicer tokenizes); SMG always sends token ids.
  if (runtime === 'vllm' && req['input'] === 'text' && typeof req['text'] === 'string') {
    inputIds = tokenizer.encode(req['text']);
  }
  if (inputIds.length === 0) return { ok: false, message: 'no input_ids in tokenized input' };
  const stop = Array.isArray(sp['stop']) ? (sp['stop'] as unknown[]) : [];
  if (runtime === 'sglang' && stop.length > 0) {
    // SGLang runs with skip_tokenizer_init: it cannot match strings and refuses them.
    return { ok: false, message: 'stop strings are not supported with skip_tokenizer_init' };
  }
  const cap = sp[runtime === 'vllm' ? 'max_tokens' : 'max_new_tokens'];
  const n = typeof sp['n'] === 'number' && sp['n'] > 0 ? sp['n'] : 1;
  const kv = kvTransferParams(req['kv_transfer_params_json']);
  if (typeof kv === 'string') return { ok: false, message: kv };
  const constraint = readConstraint(sp);
  if (typeof constraint === 'string') return { ok: false, message: constraint };
  const rank = req['data_parallel_rank'];
  return {
    ok: true,
    value: {
      requestId: typeof req['request_id'] === 'string' ? req['request_id'] : '',
      inputIds,
      stream: req['stream'] === true,
      n,
      maxNewTokens: typeof cap === 'number' ? cap : undefined,
      stopTokenIds: nums(sp['stop_token_ids']),
      ignoreEos: sp['ignore_eos'] === true,
      constraint,
      bootstrap: bootstrapInfo(
        req[runtime === 'sglang' ? 'disaggregated_params' : 'kv_bootstrap_info'],
      ),
      kvTransferParams: kv,
      dataParallelRank: typeof rank === 'number' ? rank : undefined,
    },
  };
}

/**
 * SGLang's DisaggregatedParams (int32 room, a number) or TokenSpeed's KvBootstrapInfo (int64 room,
 * a decimal string under longs: String), so a room above 2^53 keeps every digit. Fields the
 * gateway left at zero are absent on the wire: room 0, and port 0 = SGLang's default port.
 */
function bootstrapInfo(v: unknown): GrpcGenerate['bootstrap'] {
  if (typeof v !== 'object' || v === null) return undefined;
  const b = v as Msg;
  const room = b['bootstrap_room'];
  const port = b['bootstrap_port'];
  return {
    host: typeof b['bootstrap_host'] === 'string' ? b['bootstrap_host'] : '',
    port: typeof port === 'number' && port !== 0 ? port : undefined,
    room: typeof room === 'number' || typeof room === 'string' ? String(room) : '0',
  };
}

/** The parsed object, undefined when absent or JSON null, or an INVALID_ARGUMENT message. */
function kvTransferParams(v: unknown): Record<string, unknown> | undefined | string {
  if (typeof v !== 'string' || v === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (err) {
    return `kv_transfer_params_json is not valid JSON: ${(err as Error).message}`;
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    return 'kv_transfer_params_json must be a JSON object';
  }
  return parsed as Record<string, unknown>;
}

/** Request ids and reason of an AbortRequest. */
export function parseAbort(
  runtime: SimRuntime,
  req: Msg,
): { requestIds: string[]; reason: string | undefined } {
  if (runtime === 'vllm') {
    const ids = Array.isArray(req['request_ids']) ? (req['request_ids'] as unknown[]) : [];
    return { requestIds: ids.filter((x): x is string => typeof x === 'string'), reason: undefined };
  }
  const id = typeof req['request_id'] === 'string' ? req['request_id'] : '';
  return { requestIds: [id], reason: typeof req['reason'] === 'string' ? req['reason'] : '' };
}

/** Token counts of one message. */
export interface Counts {
  prompt: number;
  completion: number;
  cached: number;
}

/**
 * Counts as the runtime reports them: vLLM sends each message's own tokens (`delta`), the
 * others the running total (`total`).
 */
export function wireCounts(runtime: SimRuntime, c: Counts, delta: number): Msg {
  return {
    prompt_tokens: c.prompt,
    completion_tokens: runtime === 'vllm' ? delta : c.completion,
    cached_tokens: c.cached,
  };
}

export function chunkMessage(
  runtime: SimRuntime,
  requestId: string,
  index: number,
  tokenIds: number[],
  counts: Counts,
): Msg {
  const chunk = { token_ids: tokenIds, ...wireCounts(runtime, counts, tokenIds.length), index };
  return withId(runtime, requestId, { chunk });
}

export function completeMessage(
  runtime: SimRuntime,
  requestId: string,
  index: number,
  outputIds: number[],
  finish: string,
  plan: ChoicePlan | undefined,
  counts: Counts,
  kvTransferParamsJson?: string,
): Msg {
  const complete: Msg = {
    output_ids: outputIds,
    finish_reason: finish,
    ...wireCounts(runtime, counts, outputIds.length),
    index,
  };
  if (finish === 'stop' && plan?.matched !== undefined) {
    complete['matched_token_id'] = plan.matched;
  }
  if (kvTransferParamsJson !== undefined)
    complete['kv_transfer_params_json'] = kvTransferParamsJson;
  return withId(runtime, requestId, { complete });
}

function withId(runtime: SimRuntime, requestId: string, body: Msg): Msg {
  return runtime === 'vllm' ? body : { request_id: requestId, ...body };
}

function obj(v: unknown): Msg {
  return typeof v === 'object' && v !== null ? (v as Msg) : {};
}

function nums(v: unknown): number[] {
  return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
}
