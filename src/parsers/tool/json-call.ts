/**
 * One JSON tool call, `{"name": "f", "arguments": {...}}`, read as it arrives: the call opens once
 * its name string has closed, and its arguments stream as their text arrives, in the minified
 * form (`JsonMinifier`) that whole-text parsing gives too.
 */
import { JsonScanner, type JsonMember } from '../partial-json.js';
import type { CallSink } from './call-stream.js';
import { JsonMinifier } from './json-minify.js';
import type { TextBuffer } from './text-buffer.js';

/** The keys a format names a call's function and arguments with; the first present is used. */
export interface CallKeys {
  readonly name: readonly string[];
  readonly args: readonly string[];
}

/** SMG's JSON formats accept `parameters` (Llama's key) wherever `arguments` is expected. */
export const NAME_ARGS_KEYS: CallKeys = { name: ['name'], args: ['arguments', 'parameters'] };

/**
 * - partial: more text is needed.
 * - failed: not a call (invalid JSON, no string name, or cut off) and nothing was reported.
 * - done: a whole call was reported; `end` is just past its object.
 * - broken: the call was opened, then its JSON went wrong at `end` (or the answer ended there).
 */
export type CallVerdict = 'partial' | 'failed' | 'done' | 'broken';

export class JsonCallReader {
  end = -1;
  private readonly scanner: JsonScanner;
  private opened = false;
  private nameChecked = 0; // members already looked at for the name
  private argsChecked = 0; // members already looked at for the arguments
  private argsMember: JsonMember | undefined;
  private argsSent = 0; // index up to which the arguments' text has been reported
  private readonly minifier = new JsonMinifier();

  /** `start` is the index of the call object's `{`. */
  constructor(
    start: number,
    private readonly keys: CallKeys,
  ) {
    this.scanner = new JsonScanner(start);
  }

  /** Where reading stopped: past the object when complete, else at the bad or last character. */
  get stoppedAt(): number {
    return this.scanner.status === 'complete' ? this.scanner.end : this.scanner.pos;
  }

  advance(buf: TextBuffer, final: boolean, sink: CallSink): CallVerdict {
    const scanner = this.scanner;
    // Only the text not yet read is handed over: the scanner keeps its own state.
    if (scanner.status === 'partial') scanner.scan(buf.slice(scanner.pos), scanner.pos);
    if (!this.opened) {
      if (scanner.status === 'invalid' || (final && scanner.status === 'partial')) return 'failed';
      const name = this.findName(buf);
      if (name === undefined) return scanner.status === 'complete' ? 'failed' : 'partial';
      sink.open(name);
      this.opened = true;
    }
    this.sendArgs(buf, sink);
    if (scanner.status === 'complete') {
      // A call without arguments takes none.
      if (this.argsMember === undefined) sink.args('{}');
      this.end = scanner.end;
      return 'done';
    }
    if (scanner.status === 'invalid' || final) {
      this.end = scanner.status === 'invalid' ? scanner.pos : buf.length;
      return 'broken';
    }
    return 'partial';
  }

  /** The first complete, non-empty string value under a name key, once known. */
  private findName(buf: TextBuffer): string | undefined {
    const members = this.scanner.members;
    for (; this.nameChecked < members.length; this.nameChecked++) {
      const m = members[this.nameChecked];
      if (m === undefined || m.end === -1) return undefined;
      if (this.keys.name.includes(m.key) && buf.charCodeAt(m.start) === 34) {
        const name = JSON.parse(buf.slice(m.start, m.end)) as string;
        if (name !== '') return name;
      }
    }
    return undefined;
  }

  private sendArgs(buf: TextBuffer, sink: CallSink): void {
    const members = this.scanner.members;
    for (; this.argsMember === undefined && this.argsChecked < members.length; this.argsChecked++) {
      const m = members[this.argsChecked];
      if (m !== undefined && this.keys.args.includes(m.key)) {
        this.argsMember = m;
        this.argsSent = m.start;
      }
    }
    if (this.argsMember === undefined) return;
    const upto = this.scanner.valueEnd(this.argsMember);
    if (upto <= this.argsSent) return;
    sink.args(this.minifier.push(buf.slice(this.argsSent, upto)));
    this.argsSent = upto;
  }
}
