/**
 * Hard limits on what one inference request may ask for, checked at the edge before anything is
 * allocated in proportion to the value. Each bound sits far above what a real client sends (it
 * follows OpenAI's and SMG's documented bounds) and far below what would let one request stall
 * the event loop: PD mints a room and writes an array entry per batch item, and a deep body
 * makes the recursive `JSON.stringify` overflow the stack.
 */
import { GatewayError } from '../errors/gateway-error.js';

/** JSON nesting levels a body may use: SMG's serde_json recursion limit. */
export const MAX_JSON_DEPTH = 128;

/** `n` (chat, completions) and `sampling_params.n` (/generate): OpenAI's and SMG's completions bound. */
export const MAX_N = 128;

/**
 * Items of one batch: a completions `prompt` array, a /generate `text` list or `input_ids`
 * list of lists (the batches a PD plan fans out over). OpenAI's embeddings bound.
 */
export const MAX_BATCH_ITEMS = 2048;

/** Sequences one request may start: batch items × `n`. */
export const MAX_SEQUENCES = 8192;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses a body nested deeper than `MAX_JSON_DEPTH`, in one pass over the bytes. Brackets
 * inside strings do not count. Byte-wise scanning is safe on UTF-8: every byte of a multi-byte
 * sequence is ≥ 0x80, so none can be mistaken for a quote, backslash or bracket. Malformed JSON
 * is left for the parser to report.
 */
export function assertJsonDepth(raw: Uint8Array): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new GatewayError(
          'invalid_body',
          `Request body nests deeper than the limit of ${MAX_JSON_DEPTH} levels`,
        );
      }
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
}
