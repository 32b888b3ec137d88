/**
 * Llama 4's pythonic tool calls (`pythonic`): a Python list of calls anywhere in the answer,
 *
 *   I'll check. [get_weather(city="Paris", unit='c'), ping()]
 *
 * possibly between `<|python_start|>` and `<|python_end|>`, which are dropped wherever they
 * appear (as SMG strips them). The text around a list is content; so is a list that does not
 * read as calls. A list's calls go out together, each whole, once its closing `]` has come.
 */
import { findFirst, safeLength } from '../holdback.js';
import type { ToolParser, ToolStream, ToolStreamStep } from '../types.js';
import { PythonListEnd } from './python-list-end.js';
import { readCallList } from './python-literal.js';
import { parseWhole } from './whole-parse.js';

const PYTHON_MARKERS = ['<|python_start|>', '<|python_end|>'];
/** Where a list of calls can start: `[`, a name, `(` (SMG's pattern; `[1, 2]` is no call). */
const LIST_START = /\[\s*[A-Za-z_]\w*\s*\(/g;
/** A tail that could still grow into a list start. */
const LIST_START_TAIL = /\[\s*(?:[A-Za-z_]\w*\s*)?$/;

class PythonicStream implements ToolStream {
  /** Text received and not yet released: a held tail, or a list still missing its end. */
  private buffer = '';
  /** Set while the buffer opens with an unfinished list: when it may have closed. */
  private listEnd: PythonListEnd | undefined;
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
      LIST_START.lastIndex = 0;
      const list = LIST_START.exec(this.buffer)?.index;
      const marker = findFirst(this.buffer, PYTHON_MARKERS);
      if (marker !== undefined && (list === undefined || marker.at < list)) {
        step.content += this.buffer.slice(0, marker.at);
        this.buffer = this.buffer.slice(marker.at + marker.marker.length);
        continue;
      }
      if (list === undefined) {
        const cut = final ? this.buffer.length : this.releasable();
        step.content += this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut);
        return step;
      }
      step.content += this.buffer.slice(0, list);
      this.buffer = this.buffer.slice(list);
      const read = readCallList(this.buffer);
      this.listEnd = undefined;
      if (read.kind === 'calls') {
        for (const { name, arguments: args } of read.calls) {
          step.calls.push({ index: this.nextIndex++, name, arguments: args });
        }
        this.buffer = this.buffer.slice(read.end);
      } else if (read.kind === 'invalid') {
        // Not calls: the `[` is text, and what follows it is looked at again.
        step.content += '[';
        this.buffer = this.buffer.slice(1);
      } else if (final) {
        step.content += this.buffer;
        this.buffer = '';
        return step;
      } else {
        this.listEnd = new PythonListEnd();
        this.listEnd.closed(this.buffer);
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
