/**
 * Typed validation of an inference body, per endpoint: the fields the gateway itself reads
 * (model, stream, the batch and `n` that size a PD plan) and the ones SMG's typed requests
 * refuse (its `protocols` crate: chat `messages`, `n`, `max_tokens`...). A wrong type is a 400
 * here rather than a 500 deeper in, or a request forwarded that SMG would have refused. Only
 * types and bounds are checked; unknown fields pass through untouched.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { MAX_BATCH_ITEMS, MAX_N, MAX_SEQUENCES } from './request-limits.js';
import { U32_MAX } from '../util/rust-int-limits.js';
import type { Endpoint } from './endpoint.js';
import { validateMessages } from './validate-messages.js';
import { validateResponses } from './validate-responses.js';

function invalid(message: string): GatewayError {
  return new GatewayError('invalid_body', message);
}

/** An optional integer in [min, max]; JSON null counts as absent, as serde reads `Option`. */
function optionalInt(
  body: JsonObject,
  field: string,
  min: number,
  max: number,
  where = '',
): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`Field '${where}${field}' must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A token id list: integers only (SMG reads them as `i32`/`u32`). */
function isTokenList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'number' && Number.isInteger(t));
}

function checkBatchItems(field: string, items: number): void {
  if (items === 0) throw invalid(`Field '${field}' must not be an empty list`);
  if (items > MAX_BATCH_ITEMS)
    throw invalid(
      `Field '${field}' has ${items} items, over the limit of ${MAX_BATCH_ITEMS} per request`,
    );
}

/**
 * A prompt as completions and /generate accept it: one prompt (a string or a token list) or a
 * batch (a list of strings or of token lists). Returns the number of prompts.
 */
function promptCount(field: string, value: unknown, allowTokens: boolean): number {
  if (typeof value === 'string') return 1;
  const shape = allowTokens
    ? 'a string, a list of strings, a token list or a list of token lists'
    : 'a string or a list of strings';
  if (!Array.isArray(value)) throw invalid(`Field '${field}' must be ${shape}`);
  if (value.length === 0) throw invalid(`Field '${field}' must not be an empty list`);
  if (allowTokens && typeof value[0] === 'number') {
    if (!isTokenList(value)) throw invalid(`Field '${field}' must be ${shape}`);
    return 1;
  }
  // Checked before the items are walked, so a huge batch costs no more than its length read.
  checkBatchItems(field, value.length);
  const uniform =
    typeof value[0] === 'string'
      ? value.every((p) => typeof p === 'string')
      : allowTokens && value.every(isTokenList);
  if (!uniform) throw invalid(`Field '${field}' must be ${shape}`);
  return value.length;
}

function checkSequences(prompts: number, n: number): void {
  if (prompts * n > MAX_SEQUENCES) {
    throw invalid(
      `Request asks for ${prompts} prompts × n ${n} = ${prompts * n} sequences, over the limit of ${MAX_SEQUENCES} per request`,
    );
  }
}

function validateChat(body: JsonObject): void {
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0)
    throw invalid("Field 'messages' must be a non-empty list");
  for (const message of messages) {
    if (!isJsonObject(message) || typeof message.role !== 'string') {
      throw invalid("Each item of 'messages' must be an object with a string 'role'");
    }
  }
  optionalInt(body, 'n', 1, MAX_N);
  optionalInt(body, 'max_tokens', 1, U32_MAX);
  optionalInt(body, 'max_completion_tokens', 1, U32_MAX);
}

function validateCompletion(body: JsonObject): void {
  const prompts = body.prompt === undefined ? 1 : promptCount('prompt', body.prompt, true);
  const n = optionalInt(body, 'n', 1, MAX_N) ?? 1;
  optionalInt(body, 'max_tokens', 0, U32_MAX);
  checkSequences(prompts, n);
}

function validateGenerate(body: JsonObject): void {
  const hasText = body.text !== undefined && body.text !== null;
  const hasIds = body.input_ids !== undefined && body.input_ids !== null;
  if (hasText && hasIds) throw invalid("Either 'text' or 'input_ids' should be provided, not both");
  let prompts = 1;
  if (hasText) prompts = promptCount('text', body.text, false);
  if (hasIds) {
    const ids = body.input_ids;
    if (!Array.isArray(ids) || typeof ids[0] === 'string')
      throw invalid("Field 'input_ids' must be a token list or a list of token lists");
    prompts = promptCount('input_ids', ids, true);
  }
  const params = body.sampling_params;
  let n = 1;
  if (params !== undefined && params !== null) {
    if (!isJsonObject(params)) throw invalid("Field 'sampling_params' must be an object");
    n = optionalInt(params, 'n', 1, MAX_N, 'sampling_params.') ?? 1;
    optionalInt(params, 'max_new_tokens', 0, U32_MAX, 'sampling_params.');
  }
  checkSequences(prompts, n);
}

/**
 * Throws `invalid_body` when a field has the wrong type or is out of bounds. Runs before the
 * request is routed, so nothing downstream allocates in proportion to an unchecked value.
 */
export function validateBody(endpoint: Endpoint, body: JsonObject): void {
  if (body.model !== undefined && typeof body.model !== 'string')
    throw invalid("Field 'model' must be a string");
  // SMG reads a null `stream` as false.
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw invalid("Field 'stream' must be a boolean");
  }
  switch (endpoint) {
    case 'chat':
      return validateChat(body);
    case 'completion':
      return validateCompletion(body);
    case 'generate':
      return validateGenerate(body);
    case 'messages':
      return validateMessages(body);
    case 'responses':
      return validateResponses(body);
    case 'embeddings':
    case 'rerank':
      return;
  }
}
