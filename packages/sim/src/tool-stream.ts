// What an engine's tool parser makes of a fixed answer that holds `<tool_call>` markup, whole and
// token by token. The whole answer is the text outside the markup (trimmed; null when nothing is
// left) and the calls. A stream releases, at each token: the text outside the markup, holding
// whitespace back until text follows it (so the newlines around a block open nothing and the
// streamed text adds up to the trimmed whole); a call's header (id and name) at the token that
// closes the name's string; and the arguments, re-serialized, as far as the raw JSON has arrived,
// whatever is left coming when the block closes. The answer is known up front, so the parse is
// done once per output, not per token.
import type { MarkupCall } from './tool-markup.js';
import { hashString } from './prng.js';
import { findToolCalls } from './tool-markup.js';

/** One call as a response carries it. */
export interface ToolCallOut {
  id: string;
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
  input: Record<string, unknown>;
}

/** What one token adds to call `index`: its header the first time, then argument text. */
export interface CallDelta {
  index: number;
  /** Set in the call's first delta only. */
  header: { id: string; name: string } | undefined;
  arguments: string;
}

export interface StepOutput {
  content: string;
  calls: CallDelta[];
}

export interface ToolAnswer {
  content: string | null;
  calls: ToolCallOut[];
  /** `steps[i]`: what token i releases. */
  steps: StepOutput[];
}

/**
 * The parse of an output whose tokens are `tokens`; undefined when it holds no valid markup (the
 * output is then plain text, as the engines return it). `idOf(k)` names call k.
 */
export function toolAnswer(
  tokens: readonly string[],
  idOf: (index: number) => string,
): ToolAnswer | undefined {
  const text = tokens.join('');
  const found = findToolCalls(text);
  if (found === undefined) return undefined;
  const calls = found.map((c, k) => ({
    id: idOf(k),
    name: c.name,
    arguments: c.arguments,
    input: c.input,
  }));
  const content = outside(text, found, 0, text.length).trim();
  const held = new HeldSpace();
  const sent = found.map(() => ({ header: false, args: 0 }));
  const steps: StepOutput[] = [];
  let at = 0;
  for (const token of tokens) {
    const from = at;
    at += token.length;
    const step: StepOutput = { content: held.push(outside(text, found, from, at)), calls: [] };
    found.forEach((c, k) => {
      const s = sent[k];
      const call = calls[k];
      if (s === undefined || call === undefined || c.start >= at) return;
      let header: CallDelta['header'];
      if (!s.header && at >= c.nameEnd) {
        s.header = true;
        header = { id: call.id, name: call.name };
      }
      const upTo = s.header ? settled(c, at) : 0;
      const piece = c.arguments.slice(s.args, upTo);
      s.args = Math.max(s.args, upTo);
      if (header !== undefined || piece !== '')
        step.calls.push({ index: k, header, arguments: piece });
    });
    steps.push(step);
  }
  return { content: content === '' ? null : content, calls, steps };
}

/** Characters of the call's arguments known once the text up to `at` has arrived. */
function settled(c: MarkupCall, at: number): number {
  if (at >= c.end) return c.arguments.length;
  if (c.settled === undefined || at <= c.argsStart) return 0;
  return c.settled[Math.min(at, c.argsEnd) - c.argsStart] ?? 0;
}

/** The part of `text[from, to)` outside every call's markup. */
function outside(text: string, calls: readonly MarkupCall[], from: number, to: number): string {
  let out = '';
  let at = from;
  for (const c of calls) {
    if (c.end <= at) continue;
    if (c.start >= to) break;
    if (c.start > at) out += text.slice(at, c.start);
    at = c.end;
    if (at >= to) return out;
  }
  return at < to ? out + text.slice(at, to) : out;
}

/** Streams text with leading and trailing whitespace held back, internal whitespace kept. */
class HeldSpace {
  private pending = '';
  private started = false;

  push(piece: string): string {
    this.pending += piece;
    if (this.pending.trim() === '') return '';
    const tail = this.pending.trimEnd().length;
    let out = this.pending.slice(0, tail);
    if (!this.started) out = out.trimStart();
    this.started = true;
    this.pending = this.pending.slice(tail);
    return out;
  }
}

/**
 * 24 hex digits naming call `index` of output `output`, stable for a request id (the engines
 * draw a random uuid; the simulator stays reproducible): `call_…` on OpenAI routes, `toolu_…` on
 * Anthropic's.
 */
export function toolCallHex(output: string, index: number): string {
  let hex = '';
  for (let part = 0; part < 3; part++) {
    hex += hashString(`${output}#${index}`, part).toString(16).padStart(8, '0');
  }
  return hex;
}
