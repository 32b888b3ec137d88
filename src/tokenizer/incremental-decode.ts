/**
 * Token ids to text one id at a time, never emitting half a character: the "double decode" of
 * SMG's `Sequence::decode_step` (grpc-mode.md §3.4). Decode a window of recent ids, compare it
 * with the cached decode of the same window without the new ids, and emit the difference once
 * it no longer ends in U+FFFD. Starts empty, without prompt context, as SMG's stop decoder does.
 */

/** Decodes ids (possibly none) with the sample's skip_special_tokens setting. */
export type DecodeIds = (ids: readonly number[]) => string;

/** Token ids in, text out, one id at a time, never half a character. */
export interface TextStepper {
  /** Adds one id; returns the text it completes ('' while a character is incomplete). */
  step(id: number): string;
  /** Releases what is still held at the end, decoded leniently. */
  flush(): string;
}

const REPLACEMENT = '\uFFFD';

/**
 * The window is cut back to its last KEEP ids once it holds more than WINDOW. Context matters
 * only at the seam (a Metaspace decoder drops the leading space of a window's first word, a
 * byte-level token may end mid-character), so two ids are enough; cutting every few tokens
 * keeps each decode short and costs one extra decode per cut, not one per token.
 */
const WINDOW = 6;
const KEEP = 2;

/**
 * A character is at most 4 UTF-8 bytes and each token adds at least one, so text still ending
 * in U+FFFD after this many undecided ids holds a real U+FFFD (the model produced invalid
 * bytes), not an incomplete character; it is emitted rather than held forever.
 */
const MAX_PENDING = 8;

export class IncrementalDecoder implements TextStepper {
  /** [0, #read) is context already emitted; [#read, length) is not emitted yet. */
  #ids: number[] = [];
  #read = 0;
  /** decode(#ids[0, #read)), kept so a step costs one decode, not two. */
  #prefixText = '';

  constructor(private readonly decode: DecodeIds) {}

  /** Adds one id; returns the text it completes, or '' while a character is incomplete. */
  step(id: number): string {
    this.#ids.push(id);
    const text = this.decode(this.#ids);
    if (text.endsWith(REPLACEMENT) && this.#ids.length - this.#read < MAX_PENDING) return '';
    return this.#advance(text);
  }

  /** Releases ids still held (an incomplete character at the end), decoded leniently. */
  flush(): string {
    if (this.#read === this.#ids.length) return '';
    return this.#advance(this.decode(this.#ids));
  }

  #advance(text: string): string {
    let start = this.#prefixText.length;
    // The prefix ends on a character of its own decode; if that lands between the two halves
    // of a surrogate pair in the longer decode, emit the whole pair.
    if (start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start))) start--;
    const out = text.length > start ? text.slice(start) : '';
    this.#prefixText = text;
    this.#read = this.#ids.length;
    if (this.#ids.length > WINDOW) {
      // Drain: memory stays bounded and every later decode stays short.
      this.#ids = this.#ids.slice(-KEEP);
      this.#read = this.#ids.length;
      this.#prefixText = this.decode(this.#ids);
    }
    return out;
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
