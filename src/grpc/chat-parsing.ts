/**
 * Which parsers a chat answer goes through: the model's reasoning parser (unless the request
 * sets `separate_reasoning: false`) and, when the request has tools, the model's tool parser.
 * Reasoning starts at the first token only when the parser's models never print the opening tag,
 * or when the rendered prompt itself ends inside an open block (the template opened it). A
 * template's thinking toggle alone does not make a reply without tags reasoning (SMG marks
 * reasoning as started whenever the template has one, which moves plain replies out of content).
 */
import type { ReasoningParser, ToolParser } from '../parsers/types.js';
import type { ChatParsing } from './chat-output.js';
import { baseKind, type GrpcPlan } from './plan.js';

/** The parsers configured for, or detected from, a model id. */
export interface ModelParsers {
  /** `--tool-call-parser`, else the model's own; `marker` opens its calls (for the metric). */
  tool(model: string): { parser: ToolParser; marker?: string | undefined } | undefined;
  /** `--reasoning-parser`, else the model's own. */
  reasoning(model: string): ReasoningParser | undefined;
  /** An answer whose call markup did not parse, by parser name. */
  onUnparsed?: ((parser: string) => void) | undefined;
}

/**
 * Whether `prompt` ends inside an open block: its last `start` tag is followed by nothing but
 * whitespace (a template that opens the block puts it last). A tag a user merely mentions earlier
 * in the conversation does not count.
 */
export function endsInsideBlock(prompt: string, start: string): boolean {
  const open = prompt.lastIndexOf(start);
  if (open === -1) return false;
  for (let i = open + start.length; i < prompt.length; i++) {
    const c = prompt.charCodeAt(i);
    // space, tab, newline, carriage return
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

export function chatParsingFor(
  plan: GrpcPlan,
  prompt: string,
  model: string,
  parsers: ModelParsers | undefined,
): ChatParsing | undefined {
  if (baseKind(plan) !== 'chat' || parsers === undefined) return undefined;
  const found = plan.separateReasoning === false ? undefined : parsers.reasoning(model);
  // `passthrough` leaves every character content: the plain path does that without a parser.
  const reasoning = found?.name === 'passthrough' ? undefined : found;
  const info = plan.tools;
  const tool = info === undefined ? undefined : parsers.tool(model);
  // `auto` needs the model's parser; `required` and a named function are read as JSON.
  const tools =
    info !== undefined && (info.mode.kind !== 'auto' || tool !== undefined)
      ? { info, parser: tool?.parser, marker: tool?.marker }
      : undefined;
  if (reasoning === undefined && tools === undefined) return undefined;
  return {
    reasoning:
      reasoning === undefined
        ? undefined
        : {
            parser: reasoning,
            start: {
              inReasoning:
                reasoning.alwaysStartsInReasoning ||
                (reasoning.startTag !== '' && endsInsideBlock(prompt, reasoning.startTag)),
            },
          },
    tools,
    model,
    onUnparsed: parsers.onUnparsed,
  };
}
