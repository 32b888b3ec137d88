/**
 * The OpenAI (chat, completions) and SGLang-native (`/generate`) request fields the engine's
 * sampler reads, gathered into one `SamplingInput`. A field the client left out stays undefined
 * so each runtime's builder applies that runtime's default (SGLang sends 1.0 for temperature,
 * vLLM leaves it to the engine). Types were already checked at the edge (validate-body.ts); the
 * checks here are the ones only gRPC mode needs, each a 400 `invalid_request_parameters`.
 */
import type { Constraint, SamplingInput } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../util/json.js';
import { I32_MAX, I32_MIN, U32_MAX } from '../util/rust-int-limits.js';

export function badParam(message: string): GatewayError {
  return new GatewayError('invalid_request_parameters', message);
}

function num(o: JsonObject, field: string): number | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badParam(`'${field}' must be a number`);
  return v;
}

function int(o: JsonObject, field: string, min = 0): number | undefined {
  const v = num(o, field);
  if (v !== undefined && (!Number.isInteger(v) || v < min))
    throw badParam(`'${field}' must be an integer of at least ${min}`);
  return v;
}

/** An integer field the engine reads as int32: out of range it would be wrapped on the wire. */
function intIn(o: JsonObject, field: string, min: number, max: number): number | undefined {
  const v = num(o, field);
  if (v !== undefined && (!Number.isInteger(v) || v < min || v > max))
    throw badParam(`'${field}' must be an integer from ${min} to ${max}`);
  return v;
}

function bool(o: JsonObject, field: string): boolean | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badParam(`'${field}' must be a boolean`);
  return v;
}

function stringList(o: JsonObject, field: string): string[] {
  const v = o[field];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v;
  throw badParam(`'${field}' must be a string or a list of strings`);
}

/** Token ids go to the engine as uint32: a larger one would be silently wrapped on the wire. */
function tokenList(o: JsonObject, field: string): number[] {
  const v = o[field];
  if (v === undefined || v === null) return [];
  if (
    Array.isArray(v) &&
    v.every((t) => typeof t === 'number' && Number.isInteger(t) && t >= 0 && t <= U32_MAX)
  )
    return v as number[];
  throw badParam(`'${field}' must be a list of token ids`);
}

function str(o: JsonObject, field: string): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badParam(`'${field}' must be a string`);
  return v;
}

/** `response_format` and the SGLang extensions (`regex`, `ebnf`, `json_schema`): at most one. */
function constraintOf(o: JsonObject): Constraint | undefined {
  const found: Constraint[] = [];
  const format = o.response_format;
  if (format !== undefined && format !== null) {
    if (typeof format !== 'object' || Array.isArray(format))
      throw badParam("'response_format' must be an object");
    const type = (format as JsonObject).type;
    if (type === 'json_object') found.push({ kind: 'json_object' });
    else if (type === 'json_schema') {
      const spec = (format as JsonObject).json_schema;
      const schema =
        typeof spec === 'object' && spec !== null && !Array.isArray(spec)
          ? (spec as JsonObject).schema
          : undefined;
      if (schema === undefined) throw badParam("'response_format.json_schema.schema' is required");
      found.push({ kind: 'json_schema', value: JSON.stringify(schema) });
    } else if (type !== 'text' && type !== undefined) {
      throw badParam(`'response_format.type' ${JSON.stringify(type)} is not supported`);
    }
  }
  const regex = str(o, 'regex');
  if (regex !== undefined) found.push({ kind: 'regex', value: regex });
  const ebnf = str(o, 'ebnf');
  if (ebnf !== undefined) found.push({ kind: 'ebnf', value: ebnf });
  const schema = o.json_schema;
  if (typeof schema === 'string') found.push({ kind: 'json_schema', value: schema });
  const tag = str(o, 'structural_tag');
  if (tag !== undefined) found.push({ kind: 'structural_tag', value: tag });
  if (found.length > 1)
    throw badParam('Only one of response_format, regex, ebnf, json_schema or structural_tag');
  return found[0];
}

function logitBias(o: JsonObject): Record<string, number> | undefined {
  const v = o.logit_bias;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badParam("'logit_bias' must be an object");
  const out: Record<string, number> = {};
  for (const [k, b] of Object.entries(v)) {
    if (!/^\d+$/.test(k) || typeof b !== 'number')
      throw badParam("'logit_bias' maps token ids to numbers");
    out[k] = b;
  }
  return out;
}

/**
 * Stop strings the gateway itself matches are bounded (Switchyard-only; OpenAI allows 4): the
 * matcher's setup is quadratic in a string's length, and a client could otherwise make each
 * request cost the event loop seconds.
 */
export const MAX_STOP_STRINGS = 32;
export const MAX_STOP_LENGTH = 512;

function stopStrings(o: JsonObject, field = 'stop'): string[] {
  const stops = stringList(o, field);
  if (stops.length > MAX_STOP_STRINGS)
    throw badParam(`'${field}' has ${stops.length} strings, over the limit of ${MAX_STOP_STRINGS}`);
  for (const s of stops) {
    if (s.length > MAX_STOP_LENGTH)
      throw badParam(
        `a '${field}' string is ${s.length} characters, over the limit of ${MAX_STOP_LENGTH}`,
      );
  }
  return stops;
}

/** Fields named the same in OpenAI bodies and SGLang's `sampling_params`. */
function common(
  o: JsonObject,
  maxNewTokens: number | undefined,
  minNewTokens: number | undefined,
  stop: string[] = stopStrings(o),
) {
  return {
    temperature: num(o, 'temperature'),
    topP: num(o, 'top_p'),
    topK: intIn(o, 'top_k', I32_MIN, I32_MAX),
    minP: num(o, 'min_p'),
    frequencyPenalty: num(o, 'frequency_penalty'),
    presencePenalty: num(o, 'presence_penalty'),
    repetitionPenalty: num(o, 'repetition_penalty'),
    maxNewTokens,
    minNewTokens,
    stop,
    stopTokenIds: tokenList(o, 'stop_token_ids'),
    ignoreEos: bool(o, 'ignore_eos') ?? false,
    noStopTrim: bool(o, 'no_stop_trim') ?? false,
    n: int(o, 'n', 1) ?? 1,
    skipSpecialTokens: bool(o, 'skip_special_tokens') ?? true,
    spacesBetweenSpecialTokens: bool(o, 'spaces_between_special_tokens') ?? true,
    constraint: constraintOf(o),
    logitBias: logitBias(o),
    seed: int(o, 'seed', -(2 ** 63)),
  } satisfies SamplingInput;
}

/**
 * Chat: `max_completion_tokens` wins over the legacy `max_tokens` (the protocol layer moves
 * one into the other in SMG).
 */
export function chatSampling(body: JsonObject): SamplingInput {
  const max = int(body, 'max_completion_tokens') ?? int(body, 'max_tokens');
  return common(body, max, int(body, 'min_tokens'));
}

export function completionSampling(body: JsonObject): SamplingInput {
  return common(body, int(body, 'max_tokens'), int(body, 'min_tokens'));
}

/**
 * Anthropic Messages: `max_tokens`, `stop_sequences`, `temperature`, `top_p` and `top_k`, the only
 * sampling fields that API has; OpenAI's and SGLang's other fields are not read from its bodies.
 */
export function messagesSampling(body: JsonObject): SamplingInput {
  const own: JsonObject = {
    temperature: body.temperature,
    top_p: body.top_p,
    top_k: body.top_k,
    stop_sequences: body.stop_sequences,
  };
  return common(own, int(body, 'max_tokens', 1), undefined, stopStrings(own, 'stop_sequences'));
}

/** `/generate`: SGLang's own field names inside `sampling_params`. */
export function generateSampling(body: JsonObject): SamplingInput {
  const sp = body.sampling_params;
  if (sp !== undefined && sp !== null && (typeof sp !== 'object' || Array.isArray(sp)))
    throw badParam("'sampling_params' must be an object");
  const o = (sp ?? {}) as JsonObject;
  return common(o, int(o, 'max_new_tokens'), int(o, 'min_new_tokens'));
}

/**
 * The worker's `default_sampling_params_json` label (from GetModelInfo) fills only what the
 * client left out, as SMG's `apply_sampling_defaults_to_generate_request` does.
 */
/**
 * Parsed defaults by label text: the label is the same on every request to a worker, so it is
 * parsed once, not per request. Few distinct labels exist (one per model version).
 */
const defaultsCache = new Map<string, Readonly<Record<string, unknown>> | undefined>();
const DEFAULTS_CACHE_MAX = 64;

function parsedDefaults(json: string): Readonly<Record<string, unknown>> | undefined {
  if (defaultsCache.has(json)) return defaultsCache.get(json);
  let parsed: Readonly<Record<string, unknown>> | undefined;
  try {
    const d: unknown = JSON.parse(json);
    if (typeof d === 'object' && d !== null && !Array.isArray(d))
      parsed = d as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  if (defaultsCache.size >= DEFAULTS_CACHE_MAX) defaultsCache.clear();
  defaultsCache.set(json, parsed);
  return parsed;
}

export function withModelDefaults(
  sampling: SamplingInput,
  defaultsJson: string | undefined,
): SamplingInput {
  if (defaultsJson === undefined || defaultsJson === '') return sampling;
  const o = parsedDefaults(defaultsJson);
  if (o === undefined) return sampling;
  const pick = (v: number | undefined, key: string): number | undefined =>
    v !== undefined ? v : typeof o[key] === 'number' ? o[key] : undefined;
  return {
    ...sampling,
    temperature: pick(sampling.temperature, 'temperature'),
    topP: pick(sampling.topP, 'top_p'),
    topK: pick(sampling.topK, 'top_k'),
    minP: pick(sampling.minP, 'min_p'),
    repetitionPenalty: pick(sampling.repetitionPenalty, 'repetition_penalty'),
    frequencyPenalty: pick(sampling.frequencyPenalty, 'frequency_penalty'),
    presencePenalty: pick(sampling.presencePenalty, 'presence_penalty'),
  };
}
