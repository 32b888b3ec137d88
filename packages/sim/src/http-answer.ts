// Which text an HTTP inference request answers, when something fixes it. The order is the gRPC
// engine's (grpc-answer.ts): a constraint first, since a constrained engine can emit nothing
// else; then a call forced by `tool_choice` (a constraint too), unless the prompt's directive
// already writes tool-call markup, which then wins so a test can script the calls; then the
// prompt's `<sim-answer>` directive; else nothing, and each output answers canned words.
import type { ToolRules } from './chat-tools.js';
import type { SimRuntime } from './options.js';
import { lastDirective } from './answer-directive.js';
import { forcedCallText, readToolRules } from './chat-tools.js';
import { readHttpConstraint } from './http-constraint.js';
import { CALL_OPEN } from './tool-markup.js';

/** What in a request body shapes its answer. */
export interface AnswerRules {
  /** The JSON text a structured-output field forces. */
  constraint: string | undefined;
  /** Chat only: tools and tool_choice. */
  tools: ToolRules | undefined;
}

/** Reads (and validates) the fields that shape the answer; throws BadRequest. */
export function readAnswerRules(
  body: Record<string, unknown>,
  kind: 'chat' | 'completion' | 'generate',
  runtime: SimRuntime | undefined,
): AnswerRules {
  return {
    constraint: readHttpConstraint(body, kind === 'generate', runtime),
    tools: kind === 'chat' ? readToolRules(body) : undefined,
  };
}

/**
 * The text a prompt answers. `prompt` is its text as the engine would see it (undefined for a
 * prompt of token ids, which the simulator cannot read back).
 */
export function fixedAnswerText(
  rules: AnswerRules,
  prompt: string | undefined,
): string | undefined {
  if (rules.constraint !== undefined) return rules.constraint;
  const directive = prompt === undefined ? undefined : lastDirective(prompt);
  const forced = rules.tools?.forced;
  if (forced !== undefined && directive?.includes(CALL_OPEN) !== true) {
    return forcedCallText(forced);
  }
  return directive;
}
