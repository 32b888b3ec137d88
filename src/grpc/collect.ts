import type { GenerateCall } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseChatAnswer, type ChatParsing } from './chat-output.js';
import type { ChoiceState } from './choice.js';
import { finalBody, type ResponseMeta } from './formats.js';
import { messageBody } from './messages/messages-shapes.js';
import { responseBody } from './responses/responses-shapes.js';
import { baseKind, type GrpcPlan } from './plan.js';
import type { PreparedPrompt } from './prepare.js';

/** A non-streamed answer: every sample's `complete`, decoded and stop-trimmed here. */
export async function collect(
  call: GenerateCall,
  plan: GrpcPlan,
  meta: ResponseMeta,
  newChoice: (index: number) => ChoiceState,
  prepared: PreparedPrompt,
  startTime: number,
  /** Chat with a reasoning or tool parser: each sample's text is split once it is whole. */
  parsing?: ChatParsing,
): Promise<unknown> {
  const choices = new Map<number, ChoiceState>();
  const outputIds = new Map<number, readonly number[]>();
  for await (const out of call) {
    if (out.kind !== 'complete') continue;
    const c = newChoice(out.index);
    c.onComplete(out, false);
    choices.set(out.index, c);
    outputIds.set(out.index, out.outputIds);
  }
  if (choices.size === 0)
    throw new GatewayError('no_responses_from_server', 'The engine sent no complete response');
  const ordered = [...choices.values()].sort((a, b) => a.index - b.index);
  if (parsing !== undefined) for (const c of ordered) c.parsed = parseChatAnswer(c.text, parsing);
  // A Messages request has one sample (the API has no `n`); `ordered` is never empty here.
  if (plan.kind === 'messages') return messageBody(meta, ordered[0] as ChoiceState);
  // A Responses request has one sample too; its head was fixed when the request was planned.
  if (plan.kind === 'responses' && plan.responses !== undefined)
    return responseBody(plan.responses, ordered[0] as ChoiceState, prepared.inputIds.length);
  return finalBody(baseKind(plan), meta, ordered, {
    wantLogprobs: plan.logprobs !== undefined,
    echoText: plan.echo ? prepared.text : undefined,
    latencySecs: (performance.now() - startTime) / 1000,
    outputIds: ordered.map((c) => outputIds.get(c.index) ?? []),
  });
}
