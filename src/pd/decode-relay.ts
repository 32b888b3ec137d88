/**
 * The success path of a PD attempt: the decode response goes to the client (streamed as it
 * arrives), while the prefill body is drained on its own schedule. The prefill lease is released
 * when the prefill body is read, not when the decode finishes, so a long decode never holds
 * prefill capacity. With logprobs requested, the prefill's input logprobs are merged in front.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import { endWithError, sendJson } from '../errors/respond.js';
import type { RequestContext } from '../routing/request-context.js';
import { midStreamGatewayError } from '../upstream/errors.js';
import {
  isEventStream,
  readBodyText,
  relayResponse,
  type RelayOutcome,
} from '../upstream/forward.js';
import { relaySseRewritten } from '../upstream/sse-rewrite.js';
import {
  bodyFailure,
  closeLeg,
  watchUnrelayedBody,
  type LegFailure,
  type LegHandle,
} from './leg.js';
import { mergeInto, mergeSseEvent, prefillInputLogprobs, wantsLogprobs } from './logprobs.js';
import type { PdDeps } from './parallel.js';

export interface DecodeRelayInput {
  ctx: RequestContext;
  res: ServerResponse;
  deps: PdDeps;
  /** Undefined when no prefill leg ran (vLLM fan-out) or it already finished (sequential). */
  prefill?: LegHandle | undefined;
  decode: LegHandle;
  prefillResponse?: Dispatcher.ResponseData | undefined;
  decodeResponse: Dispatcher.ResponseData;
  labels: { backend_type: string; model: string; runtime: string };
  /** Set once the decode response is over (or failed): a prefill cut after that is not a failure. */
  decodeFinished?: boolean;
}

/**
 * How the decode relay ended. `failed`: the decode failed before any byte reached the client,
 * so the attempt still owns the answer; the decode leg is left open for the caller to fail.
 */
export type DecodeRelayResult = { kind: 'relayed' } | { kind: 'failed'; failure: LegFailure };

/** How long a prefill body may stay open after its decode finished. */
const PREFILL_GRACE_MS = 1000;

/**
 * Whether a prefill body that came with a 2xx head reports a failure inside it. A streamed
 * prefill sends its head before the rendezvous, so a room that expires shows up only as an
 * error event in the body.
 */
export function prefillBodyFailed(text: string): boolean {
  for (const part of text.split('\n\n')) {
    const line = part.trim();
    const payload = line.startsWith('data:') ? line.slice(5).trim() : line;
    if (!payload.startsWith('{')) continue;
    try {
      const doc = JSON.parse(payload) as {
        error?: unknown;
        meta_info?: { finish_reason?: { type?: unknown } };
      };
      if (doc.error !== undefined && doc.error !== null) return true;
      if (doc.meta_info?.finish_reason?.type === 'abort') return true;
    } catch {
      // not JSON: not an error event
    }
  }
  return false;
}

/**
 * Reads the prefill body (one token: small) to its end, then records the leg and frees its
 * lease. A prefill that fails inside its body fails the pair fast: the decode leg is aborted at
 * once, instead of waiting out its own transfer deadline for KV that will never come.
 */
function drainPrefill(input: DecodeRelayInput): Promise<string | undefined> {
  const { prefill, prefillResponse, deps, labels, decode, ctx } = input;
  if (!prefill || !prefillResponse) return Promise.resolve(undefined);
  const fail = (reason: string): void => {
    // A prefill cut after its decode already finished is not a failure of the pair.
    if (ctx.signal.aborted || input.decodeFinished === true) return;
    prefill.worker.circuit.record('failure');
    deps.metrics.pdBootstrapFailures.inc();
    deps.logger.warn(
      { worker: prefill.worker.url, requestId: ctx.requestId, reason },
      'prefill failed after its head; aborting the decode leg',
    );
    decode.signal.abort(new Error(`prefill failed: ${reason}`));
  };
  return readBodyText(prefillResponse.body).then(
    (text) => {
      if (prefillBodyFailed(text)) fail('error in the prefill body');
      else {
        prefill.worker.circuit.record('success');
        deps.metrics.pdPrefillDuration.observe(labels, (performance.now() - prefill.sentAt) / 1000);
      }
      closeLeg(prefill, 'prefill done');
      return text;
    },
    (err: unknown) => {
      fail(String(err));
      closeLeg(prefill, 'prefill failed');
      return undefined;
    },
  );
}

export async function relayDecode(input: DecodeRelayInput): Promise<DecodeRelayResult> {
  const { ctx, res, decode, decodeResponse, deps } = input;
  const merge = input.prefill !== undefined && wantsLogprobs(ctx.body);
  const prefillText = drainPrefill(input);
  const headers: Record<string, string> = {
    'x-request-id': ctx.requestId,
    'x-smg-routed-worker-id': decode.worker.key,
  };
  // Not an SMG header: names the prefill side of the pair, for debugging PD placement.
  if (input.prefill) headers['x-smg-prefill-worker-id'] = input.prefill.worker.key;
  const abortedByPrefill = (): boolean =>
    decode.signal.signal.aborted && !ctx.signal.aborted && !decode.signal.deadlinePassed;
  const midStreamError = (cause: unknown): GatewayError =>
    abortedByPrefill()
      ? new GatewayError(
          'prefill_error',
          `The prefill leg failed after the stream started: ${String((decode.signal.signal.reason as Error | undefined)?.message ?? cause)}`,
          { status: 502 },
        )
      : midStreamGatewayError(cause, decode.worker.url);
  // Until the relay writes the head, a decode failure is still the attempt's to answer.
  const watch = watchUnrelayedBody(decode, decodeResponse.body);
  let early: LegFailure | undefined;
  let outcome: RelayOutcome = 'upstream_failed';
  try {
    // With logprobs the relay waits for the prefill's; a decode that fails meanwhile fails now.
    if (merge) await Promise.race([prefillText, watch.failed]);
    early = watch.failure;
    watch.stop();
    if (early === undefined && !merge) {
      outcome = (await relayResponse(decodeResponse, res, { headers, midStreamError })).outcome;
    } else if (early === undefined) {
      const prefix = prefillInputLogprobs((await prefillText) ?? '') ?? [];
      if (isEventStream(decodeResponse.headers)) {
        outcome = await relaySseRewritten(
          decodeResponse,
          res,
          headers,
          (e) => mergeSseEvent(e, prefix),
          midStreamError,
        );
      } else {
        const text = await readBodyText(decodeResponse.body);
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch {
          doc = undefined;
        }
        if (doc !== undefined) mergeInto(doc, prefix);
        if (doc === undefined)
          res
            .writeHead(decodeResponse.statusCode, {
              'content-type': 'application/json',
              ...headers,
            })
            .end(text);
        else sendJson(res, decodeResponse.statusCode, doc, headers);
        outcome = 'complete';
      }
    }
  } catch (err) {
    watch.stop();
    outcome = ctx.signal.aborted ? 'client_closed' : 'upstream_failed';
    if (outcome === 'upstream_failed') {
      deps.logger.warn({ worker: decode.worker.url, err: String(err) }, 'decode body failed');
      if (res.headersSent) endWithError(res, midStreamError(err));
      else early = bodyFailure(decode, err);
    }
  }
  if (early !== undefined) {
    if (!ctx.signal.aborted) return failBeforeBytes(input, prefillText, early, abortedByPrefill());
    outcome = 'client_closed';
  }
  if (outcome === 'complete') decode.worker.circuit.record('success');
  else if (outcome === 'upstream_failed' && !abortedByPrefill())
    decode.worker.circuit.record('failure');
  closeLeg(decode, 'decode done');
  // A prefill still draining when the client left is stopped by the shared client signal. One
  // that is still open after its decode finished (the KV is long transferred) gets a short grace
  // and is then cut, so a stalled prefill body cannot hold its slot until the request deadline.
  input.decodeFinished = true;
  const prefill = input.prefill;
  if (prefill && !prefill.load.released) {
    const grace = setTimeout(
      () => prefill.signal.abort(new Error('decode finished; prefill body still open')),
      PREFILL_GRACE_MS,
    );
    await prefillText;
    clearTimeout(grace);
  }
  await prefillText;
  return { kind: 'relayed' };
}

/**
 * The one place that decides: a decode that failed before any byte reached the client is a
 * leg failure, not a mid-stream one. The prefill partner is cut at once (charged nothing, as a
 * retired partner) and drained, so its slot is free before the attempt retries or answers.
 * When the prefill's own failure is what aborted the decode, the failure is the prefill's.
 */
async function failBeforeBytes(
  input: DecodeRelayInput,
  prefillText: Promise<unknown>,
  failure: LegFailure,
  prefillCaused: boolean,
): Promise<DecodeRelayResult> {
  input.decodeFinished = true;
  input.prefill?.signal.abort(new Error(`decode leg failed: ${failure.error.code}`));
  await prefillText;
  if (!prefillCaused) return { kind: 'failed', failure };
  const reason =
    (input.decode.signal.signal.reason as Error | undefined)?.message ?? 'prefill failed';
  const error = new GatewayError(
    'prefill_error',
    `The prefill leg failed before the decode answered: ${reason}`,
    { status: 502 },
  );
  // drainPrefill's `fail` aborted the decode and already counted and logged this pair's failure.
  return {
    kind: 'failed',
    failure: { ok: false, error, outcome: 'neutral', aborted: true, reported: true },
  };
}
