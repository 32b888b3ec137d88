/**
 * A section of JSON calls, in the shapes SMG's JSON formats use: one call object, a `[...]` list
 * of them (`json`, `mistral`), calls joined by a separator (Llama's `;`), optionally followed by a
 * closing tag (`</tool_call>`). A separator is taken only together with a call after it, so
 * whatever ends a section early stays content.
 */
import { PARTIAL, type CallSection, type CallSink, type SectionVerdict } from './call-stream.js';
import { JsonCallReader, type CallKeys } from './json-call.js';
import { skipJsonWhitespace, type TextBuffer } from './text-buffer.js';

export interface JsonSectionShape {
  keys: CallKeys;
  /** Whether a `[...]` list of calls may stand where a call may. */
  lists: boolean;
  /** The character joining calls outside a list (Llama's `;`); absent: one call or one list. */
  separator?: string;
  /** A tag consumed after the calls when it follows them (`</tool_call>`). */
  closeTag?: string;
}

const OPEN = 0; // before the first call or list
const NEXT = 1; // a call must follow (after `[`, `,` or the separator)
const CALL = 2;
const AFTER_CALL = 3;
const TAIL = 4; // the calls are over: only the closing tag may follow

export class JsonCallSection implements CallSection {
  private phase = OPEN;
  private pos: number;
  private inList = false;
  private reader: JsonCallReader | undefined;
  private calls = 0;
  private lastEnd = 0; // just past the last call (or the list's `]`)

  /**
   * `at` is where the section's text begins, `from` where its body does (after an opening
   * marker; equal to `at` for a bare JSON call).
   */
  constructor(
    private readonly at: number,
    private readonly from: number,
    private readonly shape: JsonSectionShape,
  ) {
    this.pos = from;
  }

  advance(buf: TextBuffer, final: boolean, sink: CallSink): SectionVerdict {
    for (;;) {
      switch (this.phase) {
        case OPEN:
        case NEXT: {
          const p = skipJsonWhitespace(buf, this.pos);
          if (p === buf.length) return final ? this.stop() : PARTIAL;
          const c = buf.charCodeAt(p);
          if (c === 123) {
            this.reader = new JsonCallReader(p, this.shape.keys);
            this.phase = CALL;
          } else if (c === 91 && this.phase === OPEN && this.shape.lists) {
            this.inList = true;
            this.pos = p + 1;
            this.phase = NEXT;
          } else return this.stop();
          break;
        }
        case CALL: {
          const reader = this.reader;
          if (reader === undefined) return this.stop();
          const verdict = reader.advance(buf, final, sink);
          if (verdict === 'partial') return PARTIAL;
          if (verdict === 'failed') return this.stop(reader);
          if (verdict === 'broken') return { kind: 'done', resume: reader.end };
          this.calls++;
          this.lastEnd = this.pos = reader.end;
          this.phase = this.inList || this.shape.separator !== undefined ? AFTER_CALL : TAIL;
          break;
        }
        case AFTER_CALL: {
          const p = skipJsonWhitespace(buf, this.pos);
          if (p === buf.length) return final ? this.stop() : PARTIAL;
          const c = buf.charCodeAt(p);
          if (this.inList && (c === 44 || c === 93)) {
            this.pos = p + 1;
            if (c === 44) this.phase = NEXT;
            else {
              this.lastEnd = p + 1;
              this.phase = TAIL;
            }
          } else if (!this.inList && c === this.shape.separator?.charCodeAt(0)) {
            this.pos = p + 1;
            this.phase = NEXT;
          } else if (this.inList) return this.stop();
          else this.phase = TAIL;
          break;
        }
        default:
          return this.tail(buf, final);
      }
    }
  }

  /** After the calls: consume the closing tag if it follows, else end after the last call. */
  private tail(buf: TextBuffer, final: boolean): SectionVerdict {
    const tag = this.shape.closeTag;
    if (tag === undefined) return this.stop();
    const p = skipJsonWhitespace(buf, this.lastEnd);
    if (buf.startsWith(tag, p)) return { kind: 'done', resume: p + tag.length };
    const stillPossible = buf.length - p < tag.length && tag.startsWith(buf.slice(p));
    return stillPossible && !final ? PARTIAL : this.stop();
  }

  /**
   * Ends the section where it stands: after the last call, or, when none was read, as content.
   * After a marker, reading resumes just past it, so a marker inside broken markup can still
   * start a call. A bare JSON value resumes where its reading stopped (past a valid non-call
   * value, at a broken one's bad character, at the end of a cut-off one): calls are not looked
   * for inside it, which also keeps a long broken value from being rescanned at every brace.
   */
  private stop(failed?: JsonCallReader): SectionVerdict {
    if (this.calls > 0) return { kind: 'done', resume: this.lastEnd };
    if (this.from > this.at) return { kind: 'failed', resume: this.from };
    return { kind: 'failed', resume: failed?.stoppedAt ?? this.at + 1 };
  }
}
