/**
 * One Qwen XML call after its `<tool_call>`:
 * `<function=NAME>` then `<parameter=KEY>VALUE</parameter>` any number of times, `</function>`,
 * and `</tool_call>` (which may be missing at the very end, as in the JSON formats). Whitespace
 * between the tags is layout. The call opens once `<function=NAME>` is whole; each parameter is
 * reported once its closing tag arrives (its JSON form depends on the whole value), as
 * `{"k":v` then `,"k2":v2`, and `}` closes the arguments at `</function>`. A repeated key keeps
 * its first value, since a streamed parameter cannot be taken back.
 */
import { PARTIAL, type CallSection, type CallSink, type SectionVerdict } from './call-stream.js';
import { paramValueJson } from './qwen-xml-value.js';
import { skipJsonWhitespace, type TextBuffer } from './text-buffer.js';

const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';
const CALL_CLOSE = '</tool_call>';

/** Longer than any function or parameter name; past it, the tag is taken as broken markup. */
const MAX_NAME = 256;

type ReadState = 'partial' | 'complete' | 'invalid';

const FUNC = 0; // expecting <function=NAME>
const BODY = 1; // expecting <parameter=KEY> or </function>
const VALUE = 2; // inside a parameter's value
const TAIL = 3; // after </function>

/** Whether `buf` from `p` is a proper beginning of `token` that runs to the end of `buf`. */
function mayBecome(buf: TextBuffer, p: number, token: string): boolean {
  return buf.length - p < token.length && token.startsWith(buf.slice(p));
}

/** `<prefix NAME>` at `p`: the trimmed name and the index after `>`, or why not yet / not. */
function readOpenTag(
  buf: TextBuffer,
  p: number,
  prefix: string,
): { name: string; end: number } | 'partial' | 'invalid' {
  if (!buf.startsWith(prefix, p)) return mayBecome(buf, p, prefix) ? 'partial' : 'invalid';
  const start = p + prefix.length;
  const window = buf.slice(start, start + MAX_NAME + 1);
  const gt = window.indexOf('>');
  const raw = gt === -1 ? window : window.slice(0, gt);
  // A name is one short line without markup in it.
  if (raw.length > MAX_NAME || raw.includes('<') || raw.includes('\n')) return 'invalid';
  if (gt === -1) return 'partial';
  const name = raw.trim();
  return name === '' ? 'invalid' : { name, end: start + gt + 1 };
}

export class QwenXmlSection implements CallSection {
  private phase = FUNC;
  private pos: number; // just past the last whole tag read
  private name: string | undefined;
  private key = '';
  private valueStart = 0;
  private searchFrom = 0; // where to look for </parameter> next: the value is read once
  private functionClosed = false;
  private end = 0;
  private readonly params: string[] = []; // `"key":value` members, in order
  private readonly keys = new Set<string>();
  private opened = false;
  private sent = 0; // members reported
  private argsClosed = false;

  /** `from` is the index just after `<tool_call>`. */
  constructor(private readonly from: number) {
    this.pos = from;
  }

  advance(buf: TextBuffer, final: boolean, sink: CallSink): SectionVerdict {
    const state = this.read(buf, final);
    if (!this.opened) {
      if (state === 'invalid' || (state === 'partial' && final)) {
        return { kind: 'failed', resume: this.from };
      }
      if (this.name === undefined) return PARTIAL;
      sink.open(this.name);
      this.opened = true;
    }
    for (; this.sent < this.params.length; this.sent++) {
      sink.args((this.sent === 0 ? '{' : ',') + this.params[this.sent]);
    }
    if (this.functionClosed) this.closeArgs(sink);
    if (state === 'partial' && !final) return PARTIAL;
    // Whole, broken or cut off: the arguments end here and anything unread is content again.
    this.closeArgs(sink);
    return { kind: 'done', resume: state === 'complete' ? this.end : this.pos };
  }

  private closeArgs(sink: CallSink): void {
    if (this.argsClosed) return;
    sink.args(this.sent === 0 ? '{}' : '}');
    this.argsClosed = true;
  }

  /** Reads whole tags as far as `buf` goes. */
  private read(buf: TextBuffer, final: boolean): ReadState {
    for (;;) {
      switch (this.phase) {
        case FUNC: {
          const tag = readOpenTag(buf, skipJsonWhitespace(buf, this.pos), FUNCTION_OPEN);
          if (typeof tag === 'string') return tag;
          this.name = tag.name;
          this.pos = tag.end;
          this.phase = BODY;
          break;
        }
        case BODY: {
          const p = skipJsonWhitespace(buf, this.pos);
          if (buf.startsWith(FUNCTION_CLOSE, p)) {
            this.pos = p + FUNCTION_CLOSE.length;
            this.functionClosed = true;
            this.phase = TAIL;
            break;
          }
          const tag = readOpenTag(buf, p, PARAM_OPEN);
          if (tag === 'invalid' && mayBecome(buf, p, FUNCTION_CLOSE)) return 'partial';
          if (typeof tag === 'string') return tag;
          this.key = tag.name;
          this.valueStart = this.searchFrom = tag.end;
          this.phase = VALUE;
          break;
        }
        case VALUE: {
          const close = buf.indexOf(PARAM_CLOSE, this.searchFrom);
          if (close === -1) {
            this.searchFrom = Math.max(this.valueStart, buf.length - PARAM_CLOSE.length + 1);
            return 'partial';
          }
          if (!this.keys.has(this.key)) {
            this.keys.add(this.key);
            const value = paramValueJson(buf.slice(this.valueStart, close));
            this.params.push(`${JSON.stringify(this.key)}:${value}`);
          }
          this.pos = close + PARAM_CLOSE.length;
          this.phase = BODY;
          break;
        }
        default: {
          const p = skipJsonWhitespace(buf, this.pos);
          if (buf.startsWith(CALL_CLOSE, p)) {
            this.end = p + CALL_CLOSE.length;
            return 'complete';
          }
          if (!final && mayBecome(buf, p, CALL_CLOSE)) return 'partial';
          this.end = this.pos;
          return 'complete';
        }
      }
    }
  }
}
