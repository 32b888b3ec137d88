/**
 * An answer's text as it streams in, read by absolute index. V8 keeps `s += delta` as a rope and
 * copies the whole string flat on the next read, so one growing string costs O(length) per
 * streamed token (seconds for a 200 kB tool call). Here the text is kept in parts of bounded size,
 * so appending and reading what just arrived cost the size of what is read, and the parts before a
 * point no reader will come back to can be dropped.
 */
import { isJsonWhitespace } from '../partial-json.js';

/** Small deltas are merged into the last part up to this size, keeping the part count low. */
const MERGE_LIMIT = 1024;

export class TextBuffer {
  /** Absolute index just past the last character. */
  length = 0;
  private parts: string[] = [];
  private starts: number[] = []; // absolute index of each part's first character

  append(text: string): void {
    if (text === '') return;
    const last = this.parts.length - 1;
    const tail = this.parts[last];
    if (tail !== undefined && tail.length + text.length <= MERGE_LIMIT) {
      this.parts[last] = tail + text;
    } else {
      this.parts.push(text);
      this.starts.push(this.length);
    }
    this.length += text.length;
  }

  charCodeAt(i: number): number {
    const k = this.partAt(i);
    return k === -1 ? NaN : (this.parts[k] ?? '').charCodeAt(i - (this.starts[k] ?? 0));
  }

  /** The text of [from, to), `to` defaulting to the end. */
  slice(from: number, to = this.length): string {
    to = Math.min(to, this.length);
    let k = this.partAt(from);
    if (k === -1 || from >= to) return '';
    let out = '';
    for (; k < this.parts.length; k++) {
      const start = this.starts[k] ?? 0;
      if (start >= to) break;
      const part = this.parts[k] ?? '';
      out += part.slice(Math.max(from - start, 0), to - start);
    }
    return out;
  }

  /** The first index at or after `from` where `needle` occurs, or -1; nothing is copied flat. */
  indexOf(needle: string, from: number): number {
    const keep = needle.length - 1; // a match across parts starts in the last `keep` characters
    let tail = ''; // the last `keep` characters before part k
    for (let k = this.partAt(from); k !== -1 && k < this.parts.length; k++) {
      const part = this.parts[k] ?? '';
      const start = this.starts[k] ?? 0;
      const offset = Math.max(from - start, 0);
      if (tail !== '') {
        const at = (tail + part.slice(offset, offset + keep)).indexOf(needle);
        if (at !== -1) return start - tail.length + at;
      }
      const at = part.indexOf(needle, offset);
      if (at !== -1) return start + at;
      if (keep > 0) tail = (tail + part.slice(Math.max(offset, part.length - keep))).slice(-keep);
    }
    return -1;
  }

  startsWith(token: string, at: number): boolean {
    return this.slice(at, at + token.length) === token;
  }

  /** Forgets the parts that end at or before `index`; reading before it is no longer allowed. */
  dropBefore(index: number): void {
    let k = 0;
    while (k < this.parts.length - 1 && (this.starts[k + 1] ?? Infinity) <= index) k++;
    if (k === 0) return;
    this.parts = this.parts.slice(k);
    this.starts = this.starts.slice(k);
  }

  /** The part holding index `i`, or -1 past the end; most reads are in the last part. */
  private partAt(i: number): number {
    if (i < 0 || i >= this.length) return -1;
    let hi = this.parts.length - 1;
    if ((this.starts[hi] ?? 0) <= i) return hi;
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** The first index at or after `from` that is not JSON whitespace. */
export function skipJsonWhitespace(buf: TextBuffer, from: number): number {
  while (from < buf.length && isJsonWhitespace(buf.charCodeAt(from))) from++;
  return from;
}
