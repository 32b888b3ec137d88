// Turns an inference request body into a `GenerationPlan`: what the engine schedules and what the
// response writer needs. Validation is deliberately shallow (types and ranges of the fields the
// simulator uses); unknown fields are ignored, as the real engines mostly do.
import type { ToolRules } from './chat-tools.js';
import type { AnswerRules } from './http-answer.js';
import type { SimRuntime } from './options.js';
import type { AnswerToken } from './text.js';
import { BadRequest } from './bad-request.js';
import { renderChat } from './chat-prompt.js';
import { fixedAnswerText, readAnswerRules } from './http-answer.js';
import { blockKeys } from './prefix-cache.js';
import { hashInts, hashString } from './prng.js';
import { answerTokens, countTokens, tokenIds } from './text.js';

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
  /** The fixed answer of this prompt's outputs (directive, constraint, forced call), if any. */
  answer: readonly AnswerToken[] | undefined;
  /** Tokens each of this prompt's outputs produces, and how it ends. */
  length: number;
  finish: FinishReason;
}

/** A prompt item before its answer is known, with the text a directive is read from. */
type DraftItem = Omit<PromptItem, 'answer' | 'length' | 'finish'> & { text: string | undefined };

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
  /** Engine steps: the longest output (items with different answers end at their own lengths). */
  maxTokens: number;
  /** How the longest output ends: 'length' on the request's cap, 'stop' on its natural end. */
  finishReason: FinishReason;
  /** Chat: the request's tools and tool_choice, when it has any. */
  tools: ToolRules | undefined;
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

/** A refusal is a 400 unless it says otherwise (a Responses `previous_response_id` is a 404). */
export type ParseResult =
  { ok: true; plan: GenerationPlan } | { ok: false; message: string; status?: number };

/** Defaults from the worker that a plan needs. */
export interface PlanDefaults {
  model: string;
  outputTokens: number;
  /** Natural EOS position; undefined = a capped request runs to its cap. */
  eosLength?: number | undefined;
  /** When set, items carry prefix-cache block keys of this block size. */
  blockSize?: number | undefined;
  /** The worker's runtime: vLLM reads its own structured-output fields. */
  runtime?: SimRuntime | undefined;
}

type Body = Record<string, unknown>;

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
  let drafts: DraftItem[];
  let batch = false;
  if (kind === 'chat') {
    drafts = [textItem(renderChat(body['messages']), want)];
  } else if (kind === 'completion') {
    const prompt = body['prompt'];
    batch = Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] !== 'number';
    drafts = batch
      ? (prompt as unknown[]).map((p) => promptItem(p, want))
      : [promptItem(prompt, want)];
  } else {
    const input = body['input_ids'] ?? body['text'];
    batch = Array.isArray(input) && input.some((p) => typeof p !== 'number');
    drafts = batch
      ? (input as unknown[]).map((p) => promptItem(p, want))
      : [promptItem(input, want)];
  }
  if (drafts.length === 0) throw new BadRequest('prompt batch must not be empty');

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
  const rules = readAnswerRules(body, kind, d.runtime);
  const items = drafts.map((draft) => withAnswer(draft, rules, cap, ignoreEos, d));
  const kvParams = body['kv_transfer_params'];
  return {
    kind,
    stream: boolField(body, 'stream'),
    includeUsage: boolField(streamOptions, 'include_usage'),
    items,
    n,
    batch: batch || (kind === 'generate' && n > 1),
    ...requestEnd(items),
    tools: rules.tools,
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

/**
 * A prompt's answer and length. A fixed answer is the model's whole reply: it ends by itself
 * (`stop`, whatever `--eos-length` says) when the cap leaves room for the EOS after its last
 * token, as on an engine, where a cap of exactly its length cuts it before the EOS (`length`). So
 * a vLLM PD prefill (max_tokens 1) of a one-token answer still stops on its cap and hands its KV
 * over. With ignore_eos it runs on, over again, to the cap (or `outputTokens`).
 */
function withAnswer(
  { text, ...item }: DraftItem,
  rules: AnswerRules,
  cap: number | undefined,
  ignoreEos: boolean,
  d: PlanDefaults,
): PromptItem {
  const fixed = fixedAnswerText(rules, text);
  if (fixed === undefined) {
    const { maxTokens, finishReason } = outputLength(cap, ignoreEos, d);
    return { ...item, answer: undefined, length: maxTokens, finish: finishReason };
  }
  const answer = answerTokens(fixed);
  if (ignoreEos) return { ...item, answer, length: cap ?? d.outputTokens, finish: 'length' };
  if (cap === undefined || cap > answer.length) {
    return { ...item, answer, length: answer.length, finish: 'stop' };
  }
  return { ...item, answer, length: cap, finish: 'length' };
}

/** The engine's steps and the request's finish: those of its longest output. */
function requestEnd(items: readonly PromptItem[]): {
  maxTokens: number;
  finishReason: FinishReason;
} {
  let longest = items[0];
  for (const it of items) if (longest === undefined || it.length > longest.length) longest = it;
  return { maxTokens: longest?.length ?? 0, finishReason: longest?.finish ?? 'stop' };
}

/**
 * The plan with every output cut to `cap` tokens (an SGLang/TokenSpeed PD prefill answers the one
 * token its forward pass sampled).
 */
export function capOutput(plan: GenerationPlan, cap: number): GenerationPlan {
  // A fixed answer as long as the cap never reached its EOS either (see withAnswer).
  const cut = (it: PromptItem): boolean =>
    it.length > cap || (it.answer !== undefined && it.length === cap && it.finish === 'stop');
  const items = plan.items.map((it): PromptItem =>
    cut(it) ? { ...it, length: cap, finish: 'length' } : it,
  );
  return { ...plan, items, ...requestEnd(items) };
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

interface ItemWants {
  ids: boolean;
  blockSize: number | undefined;
}

function promptItem(prompt: unknown, want: ItemWants): DraftItem {
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
      text: undefined,
    };
  }
  throw new BadRequest('prompt must be a string, an array of token ids, or a batch of those');
}

function textItem(text: string, want: ItemWants): DraftItem {
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
    text,
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
