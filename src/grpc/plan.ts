/**
 * What a gRPC-mode request asks for, read once from its body: the prompt (chat messages for the
 * template, a text, or token ids), sampling, streaming options, logprobs and echo. Inputs the
 * pipeline cannot serve yet (images, audio, video; batches of several prompts) are refused here
 * with a 400, before any worker is chosen.
 */
import type { SamplingInput } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../routing/request-context.js';
import type { ChatTemplateInput } from '../tokenizer/types.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { badParam, chatSampling, completionSampling, generateSampling } from './sampling.js';
import { multimodal, templateMessages } from './chat-messages.js';
import { messagesPlan } from './messages/messages-plan.js';
import { chatToolsOf, toolConstraint, type ChatTools } from './tools.js';

export type PromptInput =
  | { kind: 'chat'; input: ChatTemplateInput }
  | { kind: 'text'; text: string }
  | { kind: 'ids'; ids: readonly number[] };

export interface GrpcPlan {
  /** `messages`: an Anthropic Messages request, generated as a chat and answered in its shape. */
  kind: 'chat' | 'completion' | 'generate' | 'messages';
  stream: boolean;
  includeUsage: boolean;
  sampling: SamplingInput;
  /** Output logprobs with this many alternatives per token. */
  logprobs: { topLogprobs?: number | undefined } | undefined;
  /** Completions: put the prompt text in front of the output. */
  echo: boolean;
  prompt: PromptInput;
  /** Chat: the tools the model may call (undefined: none, or `tool_choice: "none"`). */
  tools?: ChatTools | undefined;
  /** Chat: split reasoning from content when the model has a reasoning parser (SMG's default). */
  separateReasoning?: boolean;
}

function kwargs(body: JsonObject): Record<string, unknown> | undefined {
  const k = body.chat_template_kwargs;
  if (k === undefined || k === null) return undefined;
  if (!isJsonObject(k)) throw badParam("'chat_template_kwargs' must be an object");
  return k;
}

/** Completions and /generate take one prompt; a batch of several is refused (not built yet). */
function singlePrompt(value: unknown, field: string): PromptInput {
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'number'))
    return { kind: 'ids', ids: value };
  if (Array.isArray(value) && value.length === 1) return singlePrompt(value[0], field);
  throw new GatewayError(
    'invalid_request_parameters',
    `'${field}' must be one prompt (a string or a token list) in gRPC mode; batches of prompts are not supported yet`,
  );
}

/** The count the client named, capped at 20 (OpenAI's maximum); undefined when it named none. */
function topLogprobs(body: JsonObject, field: string): number | undefined {
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

export function planFor(ctx: RequestContext): GrpcPlan {
  const body = ctx.body;
  const streamOptions = isJsonObject(body.stream_options) ? body.stream_options : undefined;
  const includeUsage = streamOptions?.include_usage === true;
  switch (ctx.endpoint) {
    case 'chat': {
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
        stream: ctx.stream,
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
    case 'completion': {
      if (body.suffix !== undefined && body.suffix !== null)
        throw badParam("'suffix' is not supported in gRPC mode");
      const lp = body.logprobs;
      return {
        kind: 'completion',
        stream: ctx.stream,
        includeUsage,
        sampling: completionSampling(body),
        logprobs:
          typeof lp === 'number' && Number.isInteger(lp) && lp >= 0
            ? { topLogprobs: Math.min(lp, 5) }
            : undefined,
        echo: body.echo === true,
        prompt: singlePrompt(body.prompt, 'prompt'),
      };
    }
    case 'generate': {
      for (const field of ['image_data', 'video_data', 'audio_data'])
        if (body[field] !== undefined && body[field] !== null) throw multimodal(`'${field}'`);
      const prompt =
        body.input_ids !== undefined && body.input_ids !== null
          ? singlePrompt(body.input_ids, 'input_ids')
          : singlePrompt(body.text, 'text');
      return {
        kind: 'generate',
        stream: ctx.stream,
        includeUsage: false,
        sampling: generateSampling(body),
        logprobs:
          body.return_logprob === true
            ? { topLogprobs: topLogprobs(body, 'top_logprobs_num') }
            : undefined,
        echo: false,
        prompt,
      };
    }
    case 'messages':
      return messagesPlan(body, ctx.stream);
    case 'embeddings':
    case 'rerank':
    case 'responses':
      throw new GatewayError(
        'not_found',
        `/${ctx.endpointLabel} is not served by gRPC workers yet; register the worker by its http:// URL`,
      );
  }
}
