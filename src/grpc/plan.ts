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
import { isJsonObject } from '../util/json.js';
import { chatPlan, topLogprobs } from './chat-plan.js';
import { badParam, completionSampling, generateSampling } from './sampling.js';
import { multimodal } from './chat-messages.js';
import { messagesPlan } from './messages/messages-plan.js';
import type { ResponseHead } from './responses/responses-shapes.js';
import { responsesPlan } from './responses/responses-plan.js';
import type { ChatTools } from './tools.js';

export type PromptInput =
  | { kind: 'chat'; input: ChatTemplateInput }
  | { kind: 'text'; text: string }
  | { kind: 'ids'; ids: readonly number[] };

export interface GrpcPlan {
  /**
   * `messages`: an Anthropic Messages request, and `responses` an OpenAI Responses request, each
   * generated as a chat and answered in its own API's shape.
   */
  kind: 'chat' | 'completion' | 'generate' | 'messages' | 'responses';
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
  /** Responses: the response's id, time, model and echoed request fields. */
  responses?: ResponseHead | undefined;
}

/**
 * The OpenAI shape a plan's engine request and frames take: Messages and Responses requests are
 * generated as chats (only their answers have another shape).
 */
export function baseKind(plan: Pick<GrpcPlan, 'kind'>): 'chat' | 'completion' | 'generate' {
  return plan.kind === 'messages' || plan.kind === 'responses' ? 'chat' : plan.kind;
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

export function planFor(ctx: RequestContext): GrpcPlan {
  const body = ctx.body;
  const streamOptions = isJsonObject(body.stream_options) ? body.stream_options : undefined;
  const includeUsage = streamOptions?.include_usage === true;
  switch (ctx.endpoint) {
    case 'chat':
      return chatPlan(body, ctx.stream, includeUsage);
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
    case 'responses':
      return responsesPlan(ctx);
    case 'embeddings':
    case 'rerank':
      throw new GatewayError(
        'not_found',
        `/${ctx.endpointLabel} is not served by gRPC workers yet; register the worker by its http:// URL`,
      );
  }
}
