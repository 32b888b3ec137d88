/**
 * Llama 4's pythonic tool calls (`pythonic`): a Python list of calls anywhere in the answer,
 *
 *   I'll check. [get_weather(city="Paris", unit='c'), ping()]
 *
 * possibly between `<|python_start|>` and `<|python_end|>`. The text around a list is content;
 * so is a list that does not read as calls. A list's calls go out together, each whole, once its
 * closing `]` has come. The two markers are markup only where they wrap a list of calls (with
 * nothing but whitespace between): there they are dropped, as SMG strips them. Anywhere else they
 * are content as written, as SMG returns an answer whose calls did not parse.
 */
import { findFirst, safeLength } from '../holdback.js';
import type { ToolParser, ToolStream, ToolStreamStep } from '../types.js';
import { PythonListEnd } from './python-list-end.js';
import { readCallList } from './python-literal.js';
import { parseWhole } from './whole-parse.js';

const PYTHON_START = '<|python_start|>';
const PYTHON_END = '<|python_end|>';
const PYTHON_MARKERS = [PYTHON_START, PYTHON_END];
/** Where a list of calls can start: `[`, a name, `(` (SMG's pattern; `[1, 2]` is no call). */
const LIST_START = /\[\s*[A-Za-z_]\w*\s*\(/g;
/** A tail that could still grow into a list start. */
const LIST_START_TAIL = /\[\s*(?:[A-Za-z_]\w*\s*)?$/;
/** What follows `<|python_start|>` when it opens a list: whitespace, then a list start. */
const OPENS_LIST = /^\s*\[\s*[A-Za-z_]\w*\s*\(/;
/** What follows `<|python_start|>` when it could still open a list, once more text comes. */
const MAY_OPEN_LIST = /^\s*(?:\[\s*(?:[A-Za-z_]\w*\s*)?)?$/;
const SPACE = /^\s*/;

function spaceLength(text: string): number {
  return SPACE.exec(text)?.[0].length ?? 0;
}

class PythonicStream implements ToolStream {
  /** Text received and not yet released: a held tail, or a list still missing its end. */
  private buffer = '';
  /** Set while the buffer opens with an unfinished list: when it may have closed. */
  private listEnd: PythonListEnd | undefined;
  /** The last text read was a list of calls: a `<|python_end|>` right after it closes it. */
  private afterList = false;
  private nextIndex = 0;

  push(delta: string): ToolStreamStep {
    this.buffer += delta;
    if (this.listEnd?.closed(delta) === false) return { content: '', calls: [] };
    return this.drain(false);
  }

  finish(): ToolStreamStep {
    return this.drain(true);
  }

  private drain(final: boolean): ToolStreamStep {
    const step: ToolStreamStep = { content: '', calls: [] };
    for (;;) {
      if (this.afterList) {
        const rest = this.buffer.slice(spaceLength(this.buffer));
        if (rest.startsWith(PYTHON_END)) this.buffer = rest.slice(PYTHON_END.length);
        else if (!final && PYTHON_END.startsWith(rest)) return step;
        this.afterList = false;
      }
      LIST_START.lastIndex = 0;
      const list = LIST_START.exec(this.buffer)?.index;
      const marker = findFirst(this.buffer, PYTHON_MARKERS);
      /** Where the list's `[` is in the buffer; before it, the marker opening it, if any. */
      let at = 0;
      if (marker !== undefined && (list === undefined || marker.at < list)) {
        step.content += this.buffer.slice(0, marker.at);
        this.buffer = this.buffer.slice(marker.at);
        const after = this.buffer.slice(marker.marker.length);
        const opening = marker.marker === PYTHON_START;
        if (opening && OPENS_LIST.test(after)) at = marker.marker.length + spaceLength(after);
        else if (opening && !final && MAY_OPEN_LIST.test(after)) return step;
        else {
          step.content += marker.marker;
          this.buffer = after;
          continue;
        }
      } else if (list === undefined) {
        const cut = final ? this.buffer.length : this.releasable();
        step.content += this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut);
        return step;
      } else {
        step.content += this.buffer.slice(0, list);
        this.buffer = this.buffer.slice(list);
      }
      const read = readCallList(this.buffer.slice(at));
      this.listEnd = undefined;
      if (read.kind === 'calls') {
        for (const { name, arguments: args } of read.calls) {
          step.calls.push({ index: this.nextIndex++, name, arguments: args });
        }
        this.buffer = this.buffer.slice(at + read.end);
        this.afterList = true;
      } else if (read.kind === 'invalid') {
        // Not calls: the `[` (and a marker before it) is text, and what follows is looked at again.
        step.content += this.buffer.slice(0, at + 1);
        this.buffer = this.buffer.slice(at + 1);
      } else if (final) {
        step.content += this.buffer;
        this.buffer = '';
        return step;
      } else {
        this.listEnd = new PythonListEnd();
        this.listEnd.closed(this.buffer.slice(at));
        return step;
      }
    }
  }

  /** How much of the buffer (holding no list start) can go out now. */
  private releasable(): number {
    const tail = LIST_START_TAIL.exec(this.buffer)?.index ?? this.buffer.length;
    return Math.min(tail, safeLength(this.buffer, PYTHON_MARKERS));
  }
}

export const pythonicToolParser: ToolParser = {
  name: 'pythonic',
  parse: (text) => parseWhole(new PythonicStream(), text),
  stream: () => new PythonicStream(),
};
