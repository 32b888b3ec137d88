/**
 * The contracts of the model-output parsers the gRPC pipeline runs on a chat answer's text: tool
 * calls (the model's own markup turned into OpenAI `tool_calls`) and reasoning (a `<think>`
 * block or the like turned into `reasoning_content`). Parsers are pure: text in, values out, no
 * I/O, no gateway types; each is one file behind these interfaces.
 */

/** One complete tool call: the function's name and its arguments as JSON text. */
export interface ToolCall {
  name: string;
  /** A JSON object's text, as the model wrote it (normalised whitespace is allowed). */
  arguments: string;
}

/** A whole answer split into what the user reads and the calls the model made. */
export interface ToolParseResult {
  /** The text outside the calls (before, between, after), with the call markup removed. */
  content: string;
  calls: ToolCall[];
}

/**
 * A streamed piece of tool calls, as OpenAI's `delta.tool_calls[]` entries carry them: the first
 * fragment of call `index` names the function (`name`), and `arguments` fragments follow.
 * Concatenating every `arguments` fragment of one index gives that call's whole arguments text,
 * exactly the non-streaming `ToolCall.arguments`. Ids are minted by the pipeline, not here.
 */
export interface ToolCallDelta {
  /** The call's position among this answer's calls, from 0. */
  index: number;
  /** Present on the call's first fragment only. */
  name?: string;
  /** A fragment of the arguments' JSON text ('' allowed). */
  arguments?: string;
}

/** What one pushed text delta (or the end of the answer) adds. */
export interface ToolStreamStep {
  /** Plain text the user can be shown now (never a piece of call markup). */
  content: string;
  calls: ToolCallDelta[];
}

/** One answer's incremental parse; feed it deltas in order, then `finish()` once. */
export interface ToolStream {
  push(delta: string): ToolStreamStep;
  /** The end of the answer: flushes held text (an unfinished call is returned as content). */
  finish(): ToolStreamStep;
}

export interface ToolParser {
  /** SMG's parser name (`json`, `qwen`, `qwen_xml`, `llama`, `pythonic`, `mistral`, ...). */
  readonly name: string;
  /**
   * Splits a whole answer. Output that looks like a call but does not parse is left in `content`
   * (never thrown away, never thrown).
   */
  parse(text: string): ToolParseResult;
  /** A fresh streaming parse of one answer. */
  stream(): ToolStream;
}

/** Where an answer's text starts, for a reasoning parser. */
export interface ReasoningStart {
  /**
   * True when the answer begins inside the reasoning block: the rendered prompt ends inside an
   * open `<think>` (the template opened it), or the parser's models never print the opening tag.
   */
  inReasoning: boolean;
}

export interface ReasoningResult {
  reasoning: string;
  content: string;
}

/** One answer's incremental split into reasoning and content. */
export interface ReasoningStream {
  push(delta: string): ReasoningResult;
  /** The end of the answer: flushes a held partial marker. */
  finish(): ReasoningResult;
}

export interface ReasoningParser {
  /** SMG's parser name (`deepseek_r1`, `qwen3`, `kimi`, `glm45`, `step3`, `passthrough`, ...). */
  readonly name: string;
  /** The markers, so the pipeline can tell whether a rendered prompt ends inside a block. */
  readonly startTag: string;
  readonly endTag: string;
  /** Whether the models of this parser always begin inside the block (no opening tag printed). */
  readonly alwaysStartsInReasoning: boolean;
  parse(text: string, start: ReasoningStart): ReasoningResult;
  stream(start: ReasoningStart): ReasoningStream;
}
