// Turns an inference request body into a `GenerationPlan`: what the engine schedules and what the
// response writer needs. Validation is deliberately shallow (types and ranges of the fields the
// simulator uses); unknown fields are ignored, as the real engines mostly do.
import { blockKeys } from './prefix-cache.js';
import { hashInts, hashString } from './prng.js';
import { countTokens, tokenIds } from './text.js';

export type InferenceKind = 'chat' | 'completion' | 'generate';
export type FinishReason = 'length' | 'stop';

/** One prompt of the request (completions and /generate accept batches). */
export interface PromptItem {
  /** Hash of the prompt content; with the seed it fixes the output text. */
  key: number;
  tokens: number;
  /** Prompt token ids, computed only when prompt logprobs are requested. */
  ids: number[] | undefined;
  /** Prefix-cache block keys, computed only for the realistic engine. */
  keys: number[] | undefined;
}

/** SGLang PD fields, identical on both legs; rooms are read from raw text. */
export interface BootstrapFields {
  host: unknown;
  port: unknown;
}

export interface GenerationPlan {
  kind: InferenceKind;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`: append a usage-only chunk. */
  includeUsage: boolean;
  items: PromptItem[];
  /** Choices per item; the response has items.length × n outputs. */
  n: number;
  /** Whether the request used batch syntax (/generate answers an array then). */
  batch: boolean;
  maxTokens: number;
  /** 'length' when the request capped the output, 'stop' when the default length applied. */
  finishReason: FinishReason;
  returnLogprob: boolean;
  /** OpenAI logprobs: undefined = not requested, else the number of top_logprobs per token. */
  topLogprobs: number | undefined;
  /** ignore_eos: run to the cap even past the natural EOS. */
  ignoreEos: boolean;
  /** vLLM PD handoff parameters, verbatim. */
  kvTransferParams: Record<string, unknown> | undefined;
  bootstrap: BootstrapFields | undefined;
  model: string;
  rid: string | undefined;
  promptTokens: number;
}

export type ParseResult = { ok: true; plan: GenerationPlan } | { ok: false; message: string };

/** Defaults from the worker that a plan needs. */
export interface PlanDefaults {
  model: string;
  outputTokens: number;
  /** Natural EOS position; undefined = a capped request runs to its cap. */
  eosLength?: number | undefined;
  /** When set, items carry prefix-cache block keys of this block size. */
  blockSize?: number | undefined;
}

type Body = Record<string, unknown>;

class BadRequest extends Error {}

export function parseInference(kind: InferenceKind, body: unknown, d: PlanDefaults): ParseResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: 'request body must be a JSON object' };
  }
  try {
    return { ok: true, plan: buildPlan(kind, body as Body, d) };
  } catch (err) {
    if (err instanceof BadRequest) return { ok: false, message: err.message };
    throw err;
  }
}

function buildPlan(kind: InferenceKind, body: Body, d: PlanDefaults): GenerationPlan {
  const params = kind === 'generate' ? objectField(body, 'sampling_params') : body;
  const returnLogprob = kind === 'generate' && boolField(body, 'return_logprob');
  const want: ItemWants = { ids: returnLogprob, blockSize: d.blockSize };
  let items: PromptItem[];
  let batch = false;
  if (kind === 'chat') {
    items = [textItem(renderChat(body['messages']), want)];
  } else if (kind === 'completion') {
    const prompt = body['prompt'];
    batch = Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] !== 'number';
    items = batch
      ? (prompt as unknown[]).map((p) => promptItem(p, want))
      : [promptItem(prompt, want)];
  } else {
    const input = body['input_ids'] ?? body['text'];
    batch = Array.isArray(input) && input.some((p) => typeof p !== 'number');
    items = batch
      ? (input as unknown[]).map((p) => promptItem(p, want))
      : [promptItem(input, want)];
  }
  if (items.length === 0) throw new BadRequest('prompt batch must not be empty');

  const n = intField(params, 'n', 1, 128) ?? 1;
  const cap =
    kind === 'generate'
      ? intField(params, 'max_new_tokens', 0, 1_000_000)
      : (intField(params, 'max_completion_tokens', 1, 1_000_000) ??
        intField(params, 'max_tokens', 1, 1_000_000));
  const streamOptions = kind === 'generate' ? {} : objectField(body, 'stream_options');
  const rid = body['rid'];
  const model = body['model'];
  const ignoreEos = boolField(params, 'ignore_eos');
  const { maxTokens, finishReason } = outputLength(cap, ignoreEos, d);
  const kvParams = body['kv_transfer_params'];
  return {
    kind,
    stream: boolField(body, 'stream'),
    includeUsage: boolField(streamOptions, 'include_usage'),
    items,
    n,
    batch: batch || (kind === 'generate' && n > 1),
    maxTokens,
    finishReason,
    returnLogprob,
    topLogprobs: openAiLogprobs(kind, body),
    ignoreEos,
    kvTransferParams:
      typeof kvParams === 'object' && kvParams !== null && !Array.isArray(kvParams)
        ? (kvParams as Record<string, unknown>)
        : undefined,
    bootstrap:
      body['bootstrap_host'] === undefined && body['bootstrap_room'] === undefined
        ? undefined
        : { host: body['bootstrap_host'], port: body['bootstrap_port'] },
    model: typeof model === 'string' && model !== '' ? model : d.model,
    rid: typeof rid === 'string' ? rid : undefined,
    promptTokens: items.reduce((sum, it) => sum + it.tokens, 0),
  };
}

/**
 * Output length. A stream's natural EOS comes after `eosLength` tokens (or after `outputTokens`
 * when the request sets no cap); the request's cap cuts it short with 'length', and ignore_eos
 * runs to the cap (or `outputTokens`) with 'length', as engines report it.
 */
function outputLength(
  cap: number | undefined,
  ignoreEos: boolean,
  d: PlanDefaults,
): { maxTokens: number; finishReason: FinishReason } {
  if (ignoreEos) return { maxTokens: cap ?? d.outputTokens, finishReason: 'length' };
  const natural = d.eosLength ?? (cap === undefined ? d.outputTokens : Number.POSITIVE_INFINITY);
  if (cap === undefined || natural <= cap) return { maxTokens: natural, finishReason: 'stop' };
  return { maxTokens: cap, finishReason: 'length' };
}

/** Chat: `logprobs: true` (+ `top_logprobs`); completions: `logprobs: <top count>`. */
function openAiLogprobs(kind: InferenceKind, body: Body): number | undefined {
  if (kind === 'chat') {
    if (!boolField(body, 'logprobs')) return undefined;
    return intField(body, 'top_logprobs', 0, 20) ?? 0;
  }
  if (kind === 'completion') return intField(body, 'logprobs', 0, 20);
  return undefined;
}

/**
 * Chat prompt rendering: each message becomes `<role>: <text>\n`, where text joins the text parts
 * of array content. Token counts and the output seed come from this rendering.
 */
function renderChat(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new BadRequest("'messages' must be a non-empty array");
  }
  let out = '';
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) throw new BadRequest('each message must be an object');
    const { role, content } = m as Body;
    if (typeof role !== 'string') throw new BadRequest("each message needs a string 'role'");
    out += `${role}: ${contentText(content)}\n`;
  }
  return out;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw new BadRequest("message 'content' must be a string or array");
  let text = '';
  for (const part of content) {
    if (typeof part === 'object' && part !== null && typeof (part as Body)['text'] === 'string') {
      text += (text === '' ? '' : ' ') + String((part as Body)['text']);
    }
  }
  return text;
}

interface ItemWants {
  ids: boolean;
  blockSize: number | undefined;
}

function promptItem(prompt: unknown, want: ItemWants): PromptItem {
  if (typeof prompt === 'string') return textItem(prompt, want);
  if (Array.isArray(prompt) && prompt.length === 0)
    throw new BadRequest('prompt must not be empty');
  if (Array.isArray(prompt) && prompt.every((t) => Number.isInteger(t))) {
    const ids = prompt as number[];
    return {
      key: hashInts(ids),
      tokens: ids.length,
      ids: want.ids ? ids : undefined,
      keys: want.blockSize === undefined ? undefined : blockKeys(ids, want.blockSize),
    };
  }
  throw new BadRequest('prompt must be a string, an array of token ids, or a batch of those');
}

function textItem(text: string, want: ItemWants): PromptItem {
  const needIds = want.ids || want.blockSize !== undefined;
  const ids = needIds ? tokenIds(text) : undefined;
  return {
    key: hashString(text),
    tokens: ids?.length ?? countTokens(text),
    ids: want.ids ? ids : undefined,
    keys:
      ids === undefined || want.blockSize === undefined
        ? undefined
        : blockKeys(ids, want.blockSize),
  };
}

function objectField(body: Body, name: string): Body {
  const v = body[name];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw new BadRequest(`'${name}' must be an object`);
  return v as Body;
}

function boolField(body: Body, name: string): boolean {
  const v = body[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new BadRequest(`'${name}' must be a boolean`);
  return v;
}

function intField(body: Body, name: string, min: number, max: number): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new BadRequest(`'${name}' must be an integer in [${min}, ${max}]`);
  }
  return v;
}
