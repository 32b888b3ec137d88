/**
 * The streaming skeleton every marker-driven tool parser shares. An answer is plain text with
 * call sections in it (`<tool_call>…</tool_call>`, `[TOOL_CALLS] […]`, a bare JSON call); the
 * format supplies where a section starts (`FindStart`) and how one reads (`CallSection`), and this
 * file does the rest: holding back text until it is known not to be markup, giving each call its
 * index, and deciding which whitespace is content.
 *
 * Whole-text parsing runs the same machine over the whole text in one step, marked final. Every
 * decision waits until more text could no longer change it, so for well-formed output the deltas
 * of any split concatenate to the whole-text result. Each step reads the buffer as far as it goes
 * before emitting anything, so a whole text is judged as a whole: a call that is malformed
 * anywhere is left as content. A stream cannot take back a call once it has named it, so a call
 * that breaks after its name was streamed ends there and the rest of its text becomes content.
 */
import type {
  ToolCall,
  ToolCallDelta,
  ToolParseResult,
  ToolStream,
  ToolStreamStep,
} from '../types.js';
import { TextBuffer } from './text-buffer.js';

/** Where a section's calls go; the stream numbers them. */
export interface CallSink {
  /** Starts the next call: its first fragment carries the name. */
  open(name: string): void;
  /** Appends to the current call's arguments text ('' is ignored). */
  args(fragment: string): void;
}

export type SectionVerdict =
  /** More text is needed to go on. */
  | { kind: 'partial' }
  /** Not a call after all and nothing was opened: text up to `resume` is content. */
  | { kind: 'failed'; resume: number }
  /** The calls are read (at least one was opened); text from `resume` on is content again. */
  | { kind: 'done'; resume: number };

export const PARTIAL: SectionVerdict = { kind: 'partial' };

/** One call section being read, positions being absolute indices into the answer's text. */
export interface CallSection {
  /**
   * Reads `buf` as far as it goes and reports calls to `sink`. When `final`, no more text will
   * come and the verdict must not be partial. Text from where the section began stays readable.
   */
  advance(buf: TextBuffer, final: boolean, sink: CallSink): SectionVerdict;
}

export interface SectionStart {
  /** Where the section's text (its opening marker included) begins. */
  at: number;
  section: CallSection;
}

/**
 * The next section start in `buf` at or after `from`, or, when there is none, the index up to
 * which `buf` is surely content (a tail that could still grow into a start is held back).
 * `atStart` is true while the answer so far is only whitespace.
 */
export type FindStart = (buf: TextBuffer, from: number, atStart: boolean) => SectionStart | number;

function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** One answer's incremental parse over a format's `FindStart`. */
export class CallStream implements ToolStream {
  private readonly buf = new TextBuffer();
  private pos = 0; // everything before it has been released or consumed
  private current: SectionStart | undefined;
  private atStart = true;
  private calls = 0;
  // Whitespace-only content touching a call (before, between, after calls) is layout, not
  // content: it is held while `holding` and dropped when a call opens or the answer ends.
  private holding = true;
  private held = '';
  private step: ToolStreamStep = { content: '', calls: [] };

  private readonly sink: CallSink = {
    open: (name) => {
      this.held = '';
      this.holding = true;
      this.step.calls.push({ index: this.calls++, name });
    },
    args: (fragment) => {
      if (fragment === '') return;
      const index = this.calls - 1;
      const last: ToolCallDelta | undefined = this.step.calls[this.step.calls.length - 1];
      if (last?.index === index) last.arguments = (last.arguments ?? '') + fragment;
      else this.step.calls.push({ index, arguments: fragment });
    },
  };

  constructor(private readonly find: FindStart) {}

  push(delta: string): ToolStreamStep {
    return this.feed(delta, false);
  }

  finish(): ToolStreamStep {
    return this.feed('', true);
  }

  /** Adds `delta`; with `final`, it is the end of the answer and nothing stays held. */
  feed(delta: string, final: boolean): ToolStreamStep {
    this.buf.append(delta);
    this.step = { content: '', calls: [] };
    for (;;) {
      if (this.current !== undefined) {
        const verdict = this.current.section.advance(this.buf, final, this.sink);
        if (verdict.kind === 'partial') break;
        if (verdict.kind === 'failed')
          this.release(this.buf.slice(this.current.at, verdict.resume));
        this.pos = verdict.resume;
        this.current = undefined;
        this.atStart = false;
        continue;
      }
      const found = this.find(this.buf, this.pos, this.atStart);
      if (typeof found === 'number') {
        const upto = final ? this.buf.length : found;
        this.release(this.buf.slice(this.pos, upto));
        this.pos = upto;
        break;
      }
      this.release(this.buf.slice(this.pos, found.at));
      this.pos = found.at;
      this.current = found;
    }
    // A section may still hand its text back as content, so that text is kept.
    this.buf.dropBefore(this.current?.at ?? this.pos);
    if (final) {
      if (this.calls === 0) this.step.content += this.held;
      this.held = '';
    }
    return this.step;
  }

  private release(text: string): void {
    if (text === '') return;
    if (!this.holding) {
      this.step.content += text;
      return;
    }
    if (isBlank(text)) {
      this.held += text;
      return;
    }
    this.step.content += this.held + text;
    this.held = '';
    this.holding = false;
    this.atStart = false;
  }
}

/** A whole answer's parse: the stream machine run once over all of it. */
export function parseWhole(find: FindStart, text: string): ToolParseResult {
  const step = new CallStream(find).feed(text, true);
  const calls: ToolCall[] = [];
  for (const delta of step.calls) {
    if (delta.name !== undefined) calls.push({ name: delta.name, arguments: '' });
    const call = calls[delta.index];
    if (call !== undefined && delta.arguments !== undefined) call.arguments += delta.arguments;
  }
  return { content: step.content, calls };
}
