/**
 * SMG's `POST /v1/tokenize` and `POST /v1/detokenize` (`routers/tokenize/handlers.rs`), served
 * from the gateway's own tokenizers (the catalog: gRPC models', the startup path's, and those
 * added by `POST /v1/tokenizers`). Tokenize encodes without special tokens; a list is a batch and
 * every field of the answer is then a list. Encoding runs on the event loop, so a request is
 * bounded (batch items, total text) and a batch yields between its items.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError, sendJson } from '../../errors/respond.js';
import { MAX_BATCH_ITEMS } from '../../routing/request-limits.js';
import type { CatalogEntry, TokenizerCatalog } from '../../tokenizer/catalog.js';
import type { ModelTokenizer } from '../../tokenizer/types.js';
import type { AppContext } from '../app-context.js';
import {
  FieldReader,
  readJsonObject,
  refuseLoneSurrogates,
  sendTypedError,
  sendUnprocessable,
} from './token-routes-io.js';

/** UTF-16 units one tokenize request may hold in all: about 2 s of encoding, ~500k tokens. */
export const MAX_TOKENIZE_CHARS = 2 * 1024 * 1024;
/** Token ids one detokenize request may hold in all: about 2 s of decoding. */
export const MAX_DETOKENIZE_TOKENS = 2 * 1024 * 1024;
const MAX_TOKEN_ID = 0xffff_ffff;

/** SMG's model id for a request that names none. */
const UNKNOWN_MODEL = 'unknown';

/**
 * SMG's `get_tokenizer`: the name, else the id; `""` or `"unknown"` falls back to the first
 * tokenizer by name. Otherwise the message of the 400, listing the names there are.
 */
export function resolveTokenizer(
  catalog: TokenizerCatalog,
  model: string,
): CatalogEntry | { error: string } {
  const hit = catalog.byNameOrId(model);
  if (hit !== undefined) return hit;
  const entries = catalog.list();
  const first = entries[0];
  if ((model === '' || model === UNKNOWN_MODEL) && first !== undefined) return first;
  if (first === undefined)
    return { error: 'No tokenizers available. Use POST /v1/tokenizers to add one.' };
  const names = entries.map((e) => e.name).join(', ');
  return { error: `Tokenizer for model '${model}' not found. Available: ${names}` };
}

/** The tokenizer, or undefined once the 400 `tokenizer_not_found` was sent. */
function tokenizerFor(
  res: ServerResponse,
  app: AppContext,
  model: string,
): ModelTokenizer | undefined {
  const found = resolveTokenizer(app.tokenizerCatalog, model);
  if ('error' in found) {
    sendTypedError(res, 400, 'tokenizer_not_found', found.error);
    return undefined;
  }
  return found.tokenizer;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `work` on each item, one event-loop turn apart so a large batch does not hold up other
 * requests. Undefined when the client has gone, or once a throw was answered with SMG's 500
 * (`tokenization_error`, `detokenization_error`).
 */
async function eachInTurn<T, R>(
  res: ServerResponse,
  app: AppContext,
  items: readonly T[],
  what: 'Tokenization' | 'Detokenization',
  work: (item: T) => R,
): Promise<R[] | undefined> {
  const out: R[] = [];
  try {
    for (let i = 0; i < items.length; i++) {
      if (i > 0) await nextTurn();
      if (res.destroyed) return undefined;
      out.push(work(items[i] as T));
    }
  } catch (err) {
    const message = (err as Error).message;
    app.logger.error({ err: message }, `${what.toLowerCase()} failed`);
    sendTypedError(res, 500, `${what.toLowerCase()}_error`, `${what} failed: ${message}`);
    return undefined;
  }
  return out;
}

function overLimit(res: ServerResponse, message: string): void {
  sendError(res, new GatewayError('invalid_body', message));
}

/** Unicode scalar values, as Rust's `chars().count()`; not UTF-16 units. */
function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export async function tokenize(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  const fields = new FieldReader(body);
  const model = fields.string('model');
  const prompt = body.prompt;
  const batch = Array.isArray(prompt);
  const texts: unknown[] = batch ? prompt : [prompt];
  if (!texts.every((t) => typeof t === 'string'))
    fields.fail('prompt', 'a string or a list of strings');
  if (fields.problem !== undefined || model === undefined) {
    sendUnprocessable(res, fields.problem ?? 'missing field `model`');
    return;
  }
  const strings = texts as string[];
  if (strings.length > MAX_BATCH_ITEMS) {
    overLimit(res, `'prompt' has ${strings.length} items; the limit is ${MAX_BATCH_ITEMS}`);
    return;
  }
  const chars = strings.reduce((n, t) => n + t.length, 0);
  if (chars > MAX_TOKENIZE_CHARS) {
    overLimit(res, `'prompt' holds ${chars} characters; the limit is ${MAX_TOKENIZE_CHARS}`);
    return;
  }
  if (refuseLoneSurrogates(res, 'prompt', strings)) return;
  const tokenizer = tokenizerFor(res, app, model);
  if (tokenizer === undefined) return;
  // SMG's tokenize leaves special tokens out (as SGLang's Python endpoint).
  const tokens = await eachInTurn(res, app, strings, 'Tokenization', (t) =>
    tokenizer.encode(t, false),
  );
  if (tokens === undefined) return;
  const counts = tokens.map((t) => t.length);
  const charCounts = strings.map(charCount);
  sendJson(
    res,
    200,
    batch
      ? { tokens, count: counts, char_count: charCounts }
      : { tokens: tokens[0], count: counts[0], char_count: charCounts[0] },
  );
}

const isTokenId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKEN_ID;

const isSequence = (v: unknown): v is number[] => Array.isArray(v) && v.every(isTokenId);

/**
 * `tokens` as SMG's untagged `TokensInput`: a list of ids (an empty list too) is one sequence, a
 * list of lists of ids a batch; anything else undefined.
 */
function sequencesOf(tokens: unknown): { batch: boolean; seqs: number[][] } | undefined {
  if (!Array.isArray(tokens)) return undefined;
  if (tokens.every(isTokenId)) return { batch: false, seqs: [tokens] };
  if (tokens.every(isSequence)) return { batch: true, seqs: tokens };
  return undefined;
}

export async function detokenize(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  const fields = new FieldReader(body);
  const model = fields.string('model');
  const input = sequencesOf(body.tokens);
  if (input === undefined)
    fields.fail('tokens', 'a list of token ids (integers 0..4294967295) or a list of such lists');
  // serde's `#[serde(default)] bool`: absent is true, null is not a boolean.
  const skip = body.skip_special_tokens === undefined ? true : body.skip_special_tokens;
  if (typeof skip !== 'boolean') fields.fail('skip_special_tokens', 'a boolean');
  if (fields.problem !== undefined || model === undefined || input === undefined) {
    sendUnprocessable(res, fields.problem ?? 'missing field `model`');
    return;
  }
  const { batch, seqs } = input;
  if (seqs.length > MAX_BATCH_ITEMS) {
    overLimit(res, `'tokens' has ${seqs.length} sequences; the limit is ${MAX_BATCH_ITEMS}`);
    return;
  }
  const total = seqs.reduce((n, s) => n + s.length, 0);
  if (total > MAX_DETOKENIZE_TOKENS) {
    overLimit(res, `'tokens' holds ${total} token ids; the limit is ${MAX_DETOKENIZE_TOKENS}`);
    return;
  }
  const tokenizer = tokenizerFor(res, app, model);
  if (tokenizer === undefined) return;
  // SMG's decode silently drops ids the tokenizer lacks; Switchyard refuses them, as it refuses
  // such ids in a gRPC prompt: an id outside the vocabulary is another model's, or a bug.
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i] as number[];
    const bad = seq.findIndex((id) => tokenizer.idToToken(id) === undefined);
    if (bad === -1) continue;
    const where = batch ? `sequence ${i}, position ${bad}` : `position ${bad}`;
    sendError(
      res,
      new GatewayError(
        'invalid_request_parameters',
        `Token id ${seq[bad]} (${where}) is not in the tokenizer's vocabulary of ${tokenizer.vocabSize} tokens`,
      ),
    );
    return;
  }
  const texts = await eachInTurn(res, app, seqs, 'Detokenization', (seq) =>
    tokenizer.decode(seq, skip as boolean),
  );
  if (texts === undefined) return;
  sendJson(res, 200, { text: batch ? texts : texts[0] });
}
