/**
 * The one text form tool-call arguments take here: the model's own JSON with the whitespace
 * between tokens dropped (strings kept byte for byte). Streaming and whole-text parsing both
 * produce it, so the streamed fragments of a call concatenate to exactly the whole-text
 * `arguments`; unlike re-serialising a parsed value, it can be produced piece by piece and keeps
 * numbers, escapes and key order as the model wrote them.
 */
import { isJsonWhitespace } from '../partial-json.js';

/** Drops JSON whitespace outside strings from valid JSON text fed in consecutive pieces. */
export class JsonMinifier {
  private inString = false;
  private escaped = false;

  push(chunk: string): string {
    let out = '';
    let kept = 0; // start of the run of characters not yet copied to `out`
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
      } else if (isJsonWhitespace(c)) {
        out += chunk.slice(kept, i);
        kept = i + 1;
      } else if (c === 34) this.inString = true;
    }
    return kept === 0 ? chunk : out + chunk.slice(kept);
  }
}

/** `text` (valid JSON) without the whitespace between its tokens. */
export function minifyJson(text: string): string {
  return new JsonMinifier().push(text);
}
