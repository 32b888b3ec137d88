/**
 * The plan of an OpenAI chat request: the messages for the template, the tools and their
 * constraint, sampling, logprobs. Also what Anthropic Messages and OpenAI Responses requests are
 * planned as once they are turned into the chat they mean.
 */
import type { SamplingInput } from '../engine/types.js';
import type { ChatTemplateInput } from '../tokenizer/types.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { templateMessages } from './chat-messages.js';
import type { GrpcPlan } from './plan.js';
import { badParam, chatSampling } from './sampling.js';
import { chatToolsOf, toolConstraint, type ChatTools } from './tools.js';

function kwargs(body: JsonObject): Record<string, unknown> | undefined {
  const k = body.chat_template_kwargs;
  if (k === undefined || k === null) return undefined;
  if (!isJsonObject(k)) throw badParam("'chat_template_kwargs' must be an object");
  return k;
}

/** The count the client named, capped at 20 (OpenAI's maximum); undefined when it named none. */
export function topLogprobs(body: JsonObject, field: string): number | undefined {
  const v = body[field];
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? Math.min(v, 20) : undefined;
}

/** `required` and named tool choices are enforced by a constraint: it cannot join another. */
function withToolConstraint(sampling: SamplingInput, tools: ChatTools | undefined): SamplingInput {
  const constraint = tools === undefined ? undefined : toolConstraint(tools);
  if (constraint === undefined) return sampling;
  if (sampling.constraint !== undefined)
    throw badParam(
      'A \'tool_choice\' of "required" or a named function cannot be combined with response_format, regex, ebnf, json_schema or structural_tag',
    );
  return { ...sampling, constraint };
}

/** A chat request's plan (OpenAI chat fields); also what a Responses request is turned into. */
export function chatPlan(body: JsonObject, stream: boolean, includeUsage: boolean): GrpcPlan {
  const tools = chatToolsOf(body);
  const input: ChatTemplateInput = {
    messages: templateMessages(body),
    addGenerationPrompt: true,
    continueFinalMessage: body.continue_final_message === true,
    chatTemplateKwargs: kwargs(body),
    tools: tools?.templateTools,
  };
  return {
    kind: 'chat',
    stream,
    includeUsage,
    sampling: withToolConstraint(chatSampling(body), tools),
    tools,
    separateReasoning: body.separate_reasoning !== false,
    logprobs:
      body.logprobs === true ? { topLogprobs: topLogprobs(body, 'top_logprobs') } : undefined,
    echo: false,
    prompt: { kind: 'chat', input },
  };
}
