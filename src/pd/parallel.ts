/**
 * SGLang/TokenSpeed PD: both legs carry the same bootstrap triple and are sent at once; the
 * decode's response is what the client gets. Fail fast: the first leg that fails answers the
 * client immediately and its partner is aborted at once (its connection closes, so the engine
 * frees the room instead of holding it until its own deadline). The partner is then "retired"
 * off the request path: its outcome, bounded in time, still reaches its own breaker and the log.
 */
import type { Lease } from '../util/lease.js';
import type { AttemptSpan, CallSpan } from '../observability/tracing.js';
import type { Timer } from '@switchyard/kit';
import { BACKGROUND } from '../util/every.js';
import type { Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import {
  planBootstrap,
  serializeWithBootstrap,
  type BootstrapPlan,
  type LegFields,
} from './bootstrap.js';
import { decodeAnswer, DecodeFailedEarly } from './decode-answer.js';
import {
  closeLeg,
  legFailure,
  startLeg,
  watchUnrelayedBody,
  type LegFailure,
  type LegHandle,
  type LegHead,
} from './leg.js';
import { prefillInputLogprobs, wantsLogprobs } from './logprobs.js';
import type { Pair, PdDeps } from './pd-deps.js';
import { routerSeriesOf } from '../routing/router-series.js';
import { PrefillDrain } from './prefill-drain.js';

export type { Pair, PdDeps } from './pd-deps.js';

/** How long a retired partner leg may take to settle before it is let go. */
const RETIRE_TIMEOUT_MS = 5_000;

function rankFields(pair: Pair): { prefill: LegFields; decode: LegFields } {
  const prefill: LegFields = {};
  const decode: LegFields = {};
  if (pair.prefill.dpRank !== undefined) {
    prefill.routed_dp_rank = pair.prefill.dpRank;
    decode.disagg_prefill_dp_rank = pair.prefill.dpRank;
  }
  if (pair.decode.dpRank !== undefined) decode.routed_dp_rank = pair.decode.dpRank;
  return { prefill, decode };
}

type Race =
  | { kind: 'both'; decode: LegHead & { ok: true }; prefillText: string | undefined }
  | { kind: 'failed'; failed: 'prefill' | 'decode'; failure: LegFailure };

/**
 * Resolves when the pair is formed: both heads usable (and, when logprobs are merged, the
 * prefill read whole), or at the first failure of either leg. A decode whose head came first
 * and whose body then fails while the prefill is still answering has failed too: none of it
 * reached the client, so it fails the pair now instead of when the prefill answers.
 */
function formPair(prefill: PrefillDrain, d: LegHandle, needText: boolean): Promise<Race> {
  return new Promise((resolve) => {
    let done = false;
    let stopWatch: (() => void) | undefined;
    const finish = (race: Race): void => {
      if (done) return;
      done = true;
      stopWatch?.();
      resolve(race);
    };
    let decodeHead: (LegHead & { ok: true }) | undefined;
    let prefillReady = false;
    let text: string | undefined;
    const maybeBoth = (): void => {
      if (decodeHead && prefillReady)
        finish({ kind: 'both', decode: decodeHead, prefillText: text });
    };
    void prefill.failed.then((failure) => finish({ kind: 'failed', failed: 'prefill', failure }));
    const ready = needText
      ? prefill.text.then((t) => {
          // A failed prefill resolves `text` undefined and is reported through `failed`.
          if (t !== undefined) text = t;
          return t !== undefined;
        })
      : prefill.headOk.then(() => true);
    void ready.then((ok) => {
      if (!ok) return;
      prefillReady = true;
      maybeBoth();
    });
    void d.head.then((head) => {
      if (!head.ok) {
        finish({ kind: 'failed', failed: 'decode', failure: head });
        return;
      }
      decodeHead = head;
      const watch = watchUnrelayedBody(d, head.response.body);
      stopWatch = () => watch.stop();
      void watch.failed.then((failure) => finish({ kind: 'failed', failed: 'decode', failure }));
      maybeBoth();
    });
  });
}

/** Aborts a decode partner and, off the request path, records how it ended. */
function retireDecode(partner: LegHandle, cause: string, deps: PdDeps): void {
  const { clock, logger } = deps;
  partner.call?.abort(new Error(`partner leg failed: ${cause}`));
  let timer: Timer | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = clock.setTimer(RETIRE_TIMEOUT_MS, () => resolve(undefined), BACKGROUND);
  });
  void Promise.race([partner.head, timeout]).then((head) => {
    clock.clearTimer(timer);
    if (head?.ok) {
      head.response.body.cancel(new Error('retired'));
      partner.worker.circuit.record('success');
    } else if (head) {
      partner.worker.circuit.record(head.outcome);
      if (!head.aborted)
        logger.warn(
          { leg: partner.leg, worker: partner.worker.url, err: head.error.message },
          'retired PD leg had failed too',
        );
    }
    closeLeg(partner, 'retired');
  });
}

/** The rendezvous on a leg's span: what pairs this prefill with this decode in the engines. */
function traceBootstrap(span: CallSpan, plan: BootstrapPlan): void {
  span.set('switchyard.pd.bootstrap_host', plan.host);
  if (plan.port !== null) span.set('switchyard.pd.bootstrap_port', plan.port);
  span.set(
    'switchyard.pd.bootstrap_room',
    plan.batched ? plan.rooms.map(String) : String(plan.rooms[0] ?? 0n),
  );
}

export async function dispatchParallel(
  ctx: RequestContext,
  pair: Pair,
  deps: PdDeps,
  slot?: Lease,
  claim?: Lease,
  attempt?: AttemptSpan,
): Promise<Answer> {
  const plan = planBootstrap(ctx.endpoint, ctx.body, pair.prefill.url, pair.prefill.bootstrapPort);
  const ranks = rankFields(pair);
  const prefillBody = serializeWithBootstrap(ctx.body, plan, ranks.prefill);
  const decodeBody = serializeWithBootstrap(ctx.body, plan, ranks.decode);
  const series = routerSeriesOf(deps.metrics).pd(ctx.modelLabel, pair.prefill.runtime);
  // Both leases are taken in this synchronous step, right after selection.
  const p = startLeg('prefill', pair.prefill, ctx, prefillBody, deps, slot, attempt);
  const d = startLeg('decode', pair.decode, ctx, decodeBody, deps, claim, attempt);
  if (p.span) traceBootstrap(p.span, plan);
  if (d.span) traceBootstrap(d.span, plan);
  const prefill = new PrefillDrain(p, ctx, deps, series);
  const merge = wantsLogprobs(ctx.body);
  const race = await formPair(prefill, d, merge);

  if (race.kind === 'failed') {
    if (race.failed === 'prefill') {
      retireDecode(d, race.failure.error.code, deps);
      throw failPair(ctx, p, prefill.takeFailure() ?? race.failure, deps);
    }
    prefill.retire(race.failure.error.code);
    throw failPair(ctx, d, race.failure, deps);
  }

  series.ttft.observe((performance.now() - p.sentAt) / 1000);
  try {
    return await decodeAnswer({
      ctx,
      deps,
      decode: d,
      head: race.decode.response,
      prefill,
      logprobPrefix: merge ? (prefillInputLogprobs(race.prefillText ?? '') ?? []) : undefined,
    });
  } catch (err) {
    if (err instanceof DecodeFailedEarly) {
      prefill.retire(err.failure.error.code);
      throw failPair(ctx, d, err.failure, deps);
    }
    // Not a leg failure (a bug): still, neither leg may keep its lease.
    prefill.retire('internal error');
    closeLeg(d, 'internal error');
    throw err;
  }
}

/**
 * A pair whose leg failed before the client got a byte: the failed leg is charged and closed,
 * and the error is returned for the attempt to throw (the retry decorator retries it on a new
 * pair when it is retryable). When the client is gone, its own reason is returned instead.
 */
export function failPair(
  ctx: RequestContext,
  failed: LegHandle,
  failure: LegFailure,
  deps: PdDeps,
): unknown {
  const error = legFailure(failed, failure);
  if (ctx.signal.aborted) return ctx.signal.reason;
  // One failed pair is one count and one warning, wherever it was first seen.
  if (failure.reported === true) return error;
  deps.metrics.pdBootstrapFailures.inc();
  deps.logger.warn(
    {
      leg: failed.leg,
      worker: failed.worker.url,
      requestId: ctx.requestId,
      err: failure.error.message,
    },
    'PD leg failed',
  );
  return error;
}
