/**
 * A chat sample's text, split the way the model meant it: reasoning (`reasoning_content`), what
 * the user reads (`content`), and tool calls (`tool_calls`). The reasoning parser runs first, and
 * the tool parser sees only the content, so a call the model merely thinks about is not made.
 * Under `tool_choice: "required"` or a named function the engine was constrained to pure JSON,
 * which is read whole at the end instead of by the model's own parser. Output that looks like a
 * call but does not parse stays content and is counted; it never fails the request.
 */
import type {
  ReasoningParser,
  ReasoningStart,
  ReasoningStream,
  ToolCall,
  ToolCallDelta,
  ToolParser,
  ToolStream,
  ToolStreamStep,
} from '../parsers/types.js';
import { toolCallId } from './tool-call-id.js';
import type { ChatTools } from './tools.js';

/** One `delta.tool_calls[]` entry as OpenAI streams it. */
export interface WireToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/** What one piece of a sample's text adds to its answer. */
export interface ChatDelta {
  reasoning: string;
  content: string;
  toolCalls: WireToolCallDelta[];
}

/** One whole tool call as a chat message carries it. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatParsing {
  reasoning?: { parser: ReasoningParser; start: ReasoningStart } | undefined;
  /**
   * The request's tools; `parser` is the model's tool parser (needed for `auto`), `marker` the
   * text that opens its calls, by which output that failed to parse is recognised.
   */
  tools?:
    { info: ChatTools; parser: ToolParser | undefined; marker?: string | undefined } | undefined;
  /** The model id, for tool call ids. */
  model: string;
  /** Called once per answer whose call markup did not parse (a metric). */
  onUnparsed?: ((parser: string) => void) | undefined;
}

const EMPTY: ChatDelta = { reasoning: '', content: '', toolCalls: [] };
const NO_CALLS: WireToolCallDelta[] = [];
const NO_STEP: ToolStreamStep = { content: '', calls: [] };

/** True when a parse must happen on the whole text (a constrained JSON answer). */
function forcedJson(p: ChatParsing): boolean {
  return p.tools !== undefined && p.tools.info.mode.kind !== 'auto';
}

/**
 * Calls from a constrained JSON answer, or undefined when it is not the JSON it was forced to be.
 * A named function's arguments are the engine's own text (no re-serialization: big integers and
 * `1.0` keep their digits); anything that cannot be read back, however deep or odd, is undefined
 * and so returned as content, never thrown.
 */
function callsFromJson(text: string, info: ChatTools): ToolCall[] | undefined {
  try {
    const doc: unknown = JSON.parse(text);
    if (info.mode.kind === 'named') {
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
      return [{ name: info.mode.name, arguments: text }];
    }
    if (!Array.isArray(doc)) return undefined;
    const calls: ToolCall[] = [];
    for (const item of doc) {
      const o = item as { name?: unknown; parameters?: unknown } | null;
      if (typeof o?.name !== 'string' || o.parameters === undefined) continue;
      calls.push({ name: o.name, arguments: JSON.stringify(o.parameters) });
    }
    return calls.length > 0 ? calls : undefined;
  } catch {
    // Not JSON, or JSON too deep to serialize again.
    return undefined;
  }
}

/** The streaming split of one sample. */
export class ChatOutput {
  readonly #p: ChatParsing;
  readonly #reasoning: ReasoningStream | undefined;
  readonly #tools: ToolStream | undefined;
  /** Constrained JSON, held whole until the end. */
  #held = '';
  #ids: string[] = [];
  #sawMarkup = false;

  constructor(parsing: ChatParsing) {
    this.#p = parsing;
    this.#reasoning = parsing.reasoning?.parser.stream(parsing.reasoning.start);
    const tools = parsing.tools;
    this.#tools = tools !== undefined && !forcedJson(parsing) ? tools.parser?.stream() : undefined;
  }

  /** Tool calls made so far: any makes the finish reason `tool_calls`. */
  get calls(): number {
    return this.#ids.length;
  }

  push(text: string): ChatDelta {
    if (text === '') return EMPTY;
    const split = this.#reasoning?.push(text) ?? { reasoning: '', content: text };
    return { reasoning: split.reasoning, ...this.#content(split.content, false) };
  }

  /** The sample's last text and its end, as one delta. */
  pushLast(text: string): ChatDelta {
    const last = this.push(text);
    const rest = this.finish();
    return {
      reasoning: last.reasoning + rest.reasoning,
      content: last.content + rest.content,
      toolCalls: [...last.toolCalls, ...rest.toolCalls],
    };
  }

  finish(): ChatDelta {
    const split = this.#reasoning?.finish() ?? { reasoning: '', content: '' };
    return { reasoning: split.reasoning, ...this.#content(split.content, true) };
  }

  #content(text: string, end: boolean): Omit<ChatDelta, 'reasoning'> {
    if (forcedJson(this.#p)) {
      this.#held += text;
      if (!end) return { content: '', toolCalls: [] };
      const info = this.#p.tools?.info;
      const calls = info === undefined ? undefined : callsFromJson(this.#held.trim(), info);
      if (calls === undefined) {
        this.#p.onUnparsed?.('json');
        return { content: this.#held, toolCalls: [] };
      }
      return {
        content: '',
        toolCalls: calls
          .filter((_, i) => this.#allowed(i))
          .map((c, i) => this.#first(i, c.name, c.arguments)),
      };
    }
    if (this.#tools === undefined) return { content: text, toolCalls: [] };
    const step = text === '' ? NO_STEP : this.#tools.push(text);
    const last = end ? this.#tools.finish() : NO_STEP;
    const calls = last.calls.length === 0 ? step.calls : [...step.calls, ...last.calls];
    // Most pieces carry no call fragment: they cost no array work.
    const deltas =
      calls.length === 0
        ? NO_CALLS
        : calls.filter((d) => this.#allowed(d.index)).map((d) => this.#wire(d));
    const content = step.content + last.content;
    const marker = this.#p.tools?.marker;
    if (marker !== undefined && content.includes(marker)) this.#sawMarkup = true;
    if (end && this.#ids.length === 0 && this.#sawMarkup) this.#p.onUnparsed?.(this.#name());
    return { content, toolCalls: deltas };
  }

  /** `parallel_tool_calls: false` keeps the first call only; the model's later calls are dropped. */
  #allowed(index: number): boolean {
    return index === 0 || this.#p.tools?.info.parallel !== false;
  }

  #name(): string {
    return this.#p.tools?.parser?.name ?? 'none';
  }

  #wire(d: ToolCallDelta): WireToolCallDelta {
    if (d.name !== undefined) return this.#first(d.index, d.name, d.arguments ?? '');
    return { index: d.index, function: { arguments: d.arguments ?? '' } };
  }

  #first(index: number, name: string, args: string): WireToolCallDelta {
    const id = toolCallId(this.#p.model, name, index, this.#p.tools?.info.historyCalls ?? 0);
    this.#ids[index] = id;
    return { index, id, type: 'function', function: { name, arguments: args } };
  }
}

/** A whole answer's split, for a non-streamed response. */
export function parseChatAnswer(
  text: string,
  p: ChatParsing,
): { reasoning: string; content: string; toolCalls: WireToolCall[] } {
  const split = p.reasoning?.parser.parse(text, p.reasoning.start) ?? {
    reasoning: '',
    content: text,
  };
  const info = p.tools?.info;
  let calls: ToolCall[] = [];
  let content = split.content;
  if (info !== undefined && info.mode.kind !== 'auto') {
    const forced = callsFromJson(content.trim(), info);
    if (forced === undefined) p.onUnparsed?.('json');
    else {
      calls = forced;
      content = '';
    }
  } else if (info !== undefined && p.tools?.parser !== undefined) {
    const parsed = p.tools.parser.parse(content);
    calls = parsed.calls;
    content = parsed.content;
    const marker = p.tools.marker;
    if (calls.length === 0 && marker !== undefined && content.includes(marker))
      p.onUnparsed?.(p.tools.parser.name);
  }
  if (info?.parallel === false) calls = calls.slice(0, 1);
  const toolCalls = calls.map((c, i) => ({
    id: toolCallId(p.model, c.name, i, info?.historyCalls ?? 0),
    type: 'function' as const,
    function: { name: c.name, arguments: c.arguments },
  }));
  return { reasoning: split.reasoning, content, toolCalls };
}
