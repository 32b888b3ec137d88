/**
 * Turns a usable decode head into the answer the client gets. The answer holds the decode leg
 * (its load lease and room claim) until it has been written; its end is recorded on the decode
 * worker's breaker, and tells the prefill (if one runs beside it) that the decode is done. With
 * logprobs requested, the prefill's input logprobs are merged in front: event by event for a
 * stream, into the whole document otherwise.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { bufferAnswer, type Answer, type AnswerLease } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import { readAllText } from '../upstream/body-source.js';
import { midStreamGatewayError } from '../upstream/errors.js';
import { isEventStream } from '../upstream/event-stream.js';
import { relayResponseHeaders } from '../upstream/headers.js';
import { mapSseEvents } from '../upstream/sse-events.js';
import type { UpstreamHead } from '../upstream/upstream-call.js';
import { abortedByGateway, bodyFailure, closeLeg, type LegFailure, type LegHandle } from './leg.js';
import { mergeInto, mergeSseEvent } from './logprobs.js';
import type { PdDeps } from './pd-deps.js';
import type { PrefillDrain } from './prefill-drain.js';

export interface DecodeAnswerInput {
  ctx: RequestContext;
  deps: PdDeps;
  decode: LegHandle;
  head: UpstreamHead;
  /** The prefill running beside the decode (parallel PD); undefined when none does. */
  prefill?: PrefillDrain | undefined;
  /** The prefill's input logprobs to put in front of the decode's; undefined for no merge. */
  logprobPrefix?: readonly unknown[] | undefined;
}

/** A decode whose body failed before the client got any of it: the attempt's to answer. */
export class DecodeFailedEarly extends Error {
  constructor(readonly failure: LegFailure) {
    super(failure.error.message);
  }
}

/** Builds the answer; throws `DecodeFailedEarly` when the decode body fails while being read whole. */
export async function decodeAnswer(input: DecodeAnswerInput): Promise<Answer> {
  const { ctx, decode, head, prefill } = input;
  const headers: Record<string, string> = {
    'x-request-id': ctx.requestId,
    'x-smg-routed-worker-id': decode.worker.key,
  };
  // Not an SMG header: names the prefill side of the pair, for debugging PD placement.
  if (prefill) headers['x-smg-prefill-worker-id'] = prefill.leg.worker.key;
  const abortedByPrefill = (): boolean => abortedByGateway(decode) && !ctx.signal.aborted;
  const midStreamError = (cause: unknown): GatewayError =>
    abortedByPrefill()
      ? new GatewayError(
          'prefill_error',
          `The prefill leg failed after the stream started: ${decode.call?.abortReason?.message ?? String(cause)}`,
          { status: 502 },
        )
      : midStreamGatewayError(cause, decode.worker.url);
  const leases: AnswerLease[] = [decodeLease(input, abortedByPrefill)];
  const eventStream = isEventStream(head.headers);
  const prefix = input.logprobPrefix;
  if (prefix === undefined || eventStream) {
    // Failed before anyone read a byte of it: still a leg failure, which a retry may answer.
    if (head.body.failure) throw new DecodeFailedEarly(bodyFailure(decode, head.body.failure));
    const out = relayResponseHeaders(head.headers, headers);
    if (prefix !== undefined) delete out['content-length'];
    prefill?.relayTo(decode);
    return {
      status: head.status,
      headers: out,
      body:
        prefix === undefined ? head.body : mapSseEvents(head.body, (e) => mergeSseEvent(e, prefix)),
      eventStream,
      routedTo: decode.worker,
      leases,
      midStreamError,
    };
  }
  let text: string;
  try {
    text = await readAllText(head.body);
  } catch (err) {
    throw new DecodeFailedEarly(bodyFailure(decode, err));
  }
  prefill?.relayTo(decode);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (doc !== undefined) mergeInto(doc, prefix);
  const bytes = Buffer.from(doc === undefined ? text : JSON.stringify(doc));
  return bufferAnswer(head.status, { 'content-type': 'application/json', ...headers }, bytes, {
    routedTo: decode.worker,
    midStreamError,
    leases,
  });
}

/** Held by the decode answer: the leg's leases, its breaker outcome, and the prefill's grace. */
function decodeLease(input: DecodeAnswerInput, abortedByPrefill: () => boolean): AnswerLease {
  const { decode, deps, prefill } = input;
  return {
    release: (end, error) => {
      if (end === 'complete') decode.worker.circuit.record('success');
      else if (end === 'upstream_failed') {
        deps.logger.warn({ worker: decode.worker.url, err: String(error) }, 'decode body failed');
        if (!abortedByPrefill()) decode.worker.circuit.record('failure');
      }
      decode.span?.end(end);
      closeLeg(decode, 'decode done');
      prefill?.decodeFinished();
    },
  };
}
