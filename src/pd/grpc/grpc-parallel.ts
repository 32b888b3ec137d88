/**
 * SGLang/TokenSpeed PD over gRPC: both legs get the same engine request with the same bootstrap
 * rendezvous (the prefill's bootstrap host and port, one fresh room) and their own DP rank, and
 * are sent at once. The decode's output is the client's answer; the prefill is drained in the
 * background and marked completed when every sample has its terminal response.
 *
 * Fail fast: the first leg that fails before the pair forms answers the client at once, and its
 * partner is aborted at once (a retired decode is never deferred: the KV it waits for will not
 * come). Each worker's breaker hears only its own leg. A client that leaves before the decode's
 * first token aborts the prefill at once and the decode only after its first item (at most 30 s),
 * so the engine is never torn down mid-handoff.
 */
import type { Clock, Timer } from '@switchyard/kit';
import type { GenerateInput } from '../../engine/types.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Outcome } from '../../workers/circuit-breaker.js';
import type { Worker } from '../../workers/worker.js';
import { engineInput, freshRequestId } from '../../grpc/engine-input.js';
import type { Answer } from '../../routing/answer.js';
import { routerSeriesOf } from '../../routing/router-series.js';
import { bootstrapHost } from '../bootstrap.js';
import { DEFAULT_BOOTSTRAP_PORT } from '../kv-transfer.js';
import { answerFromDecode } from './decode-answer.js';
import { endLeg, legError, recordRetiredOutcome, startGrpcLeg, type GrpcLeg } from './grpc-leg.js';
import { takeClaim, takeSlot, type GrpcPdAttempt, type GrpcPdDeps } from './grpc-pd-deps.js';
import { GrpcPrefillDrain } from './grpc-prefill-drain.js';
import { mintGrpcRoom } from './rooms.js';

type Race =
  | { kind: 'both' }
  | {
      kind: 'failed';
      leg: GrpcLeg;
      error: GatewayError;
      /** The failed worker's breaker outcome; undefined when the prefill's drain recorded it. */
      outcome: Outcome | undefined;
    };

export async function dispatchGrpcParallel(deps: GrpcPdDeps, a: GrpcPdAttempt): Promise<Answer> {
  const { ctx, plan, prepared, pair, sampling } = a;
  // One dispatch per sample, each with its own room and request id: samples cannot share a room.
  const host = bootstrapHost(pair.prefill.url);
  const port = pair.prefill.bootstrapPort ?? DEFAULT_BOOTSTRAP_PORT;
  const samples = plan.sampling.n;
  const one = samples > 1 ? { ...sampling, n: 1 } : sampling;
  const dispatches = Array.from({ length: samples }, () => ({
    requestId: freshRequestId(ctx),
    room: mintGrpcRoom(pair.prefill.runtime),
  }));
  const inputs = (worker: Worker): GenerateInput[] =>
    dispatches.map(({ requestId, room }) => ({
      ...engineInput(plan, prepared, worker, one, requestId),
      bootstrap: { host, port, room },
    }));
  // The answer's id: the first dispatch's (the only one unless the request fans out).
  const requestId = dispatches[0]?.requestId ?? freshRequestId(ctx);
  const series = routerSeriesOf(deps.metrics).pd(ctx.modelLabel, pair.prefill.runtime);
  const p = startGrpcLeg(
    'prefill',
    pair.prefill,
    deps.engines.get(pair.prefill),
    inputs(pair.prefill),
    takeSlot(a),
    ctx,
    a.span,
  );
  let d: GrpcLeg;
  try {
    d = startGrpcLeg(
      'decode',
      pair.decode,
      deps.engines.get(pair.decode),
      inputs(pair.decode),
      takeClaim(a),
      ctx,
      a.span,
    );
  } catch (err) {
    endLeg(p, 'now');
    throw err;
  }
  if (p.span !== undefined || d.span !== undefined) {
    // Traced only: an untraced request builds no list of rooms (nor of legs) here.
    const rooms = dispatches.map(({ room }) => String(room));
    for (const span of [p.span, d.span]) {
      span?.set('switchyard.pd.bootstrap_host', host);
      span?.set('switchyard.pd.bootstrap_port', port);
      span?.set('switchyard.pd.bootstrap_room', rooms);
    }
  }
  // Deferred from the start: a client may leave while the KV handoff is under way.
  d.call.deferAbortUntilFirstItem();
  // Both legs end within --request-timeout-secs of their dispatch, as an HTTP attempt does.
  p.call.expireAfter(deps.requestTimeoutMs);
  d.call.expireAfter(deps.requestTimeoutMs);
  const prefill = new GrpcPrefillDrain(p, plan.sampling.n, ctx, deps, series);

  let race: Race;
  try {
    race = await formPair(prefill, d, ctx.signal, deps.clock, deps.requestTimeoutMs);
  } catch (err) {
    // The client left: the prefill is aborted now, the decode after its first item.
    prefill.retire();
    endLeg(d, 'dispose');
    throw err;
  }
  if (race.kind === 'failed') {
    // The partner is retired at once; its breaker hears only what it did itself.
    race.leg.span?.end('failed', race.error.code);
    (race.leg === d ? p : d).span?.end('retired');
    recordRetiredOutcome(race.leg === d ? p : d);
    prefill.retire();
    endLeg(d, 'now');
    if (race.outcome !== undefined) race.leg.worker.circuit.record(race.outcome);
    deps.metrics.pdBootstrapFailures.inc();
    deps.logger.warn(
      {
        leg: race.leg.leg,
        worker: race.leg.worker.url,
        requestId: ctx.requestId,
        err: race.error.message,
      },
      'PD leg failed',
    );
    throw race.error;
  }

  series.ttft.observe((performance.now() - p.sentAt) / 1000);
  return answerFromDecode(deps, a, d, requestId, true, [
    { release: (end) => prefill.answerEnded(end) },
  ]);
}

/**
 * Resolves when both legs have started (the decode's first answer means its KV arrived), or at
 * the first failure of either leg; rejects with the client's reason when it leaves first. A leg
 * that has not started within `--request-timeout-secs` has failed to start (504).
 */
function formPair(
  prefill: GrpcPrefillDrain,
  d: GrpcLeg,
  signal: AbortSignal,
  clock: Clock,
  timeoutMs: number,
): Promise<Race> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<Race>((resolve, reject) => {
    let done = false;
    let prefillStarted = false;
    let decodeStarted = false;
    const settle = (fn: () => void): void => {
      if (done) return;
      done = true;
      clock.clearTimer(timer);
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const fail = (leg: GrpcLeg, error: GatewayError, outcome: Outcome | undefined): void =>
      settle(() => resolve({ kind: 'failed', leg, error, outcome }));
    const both = (): void => {
      if (!prefillStarted || !decodeStarted) return;
      settle(() => {
        // In the same step: a prefill failure from now on no longer fails the pair.
        prefill.relay();
        resolve({ kind: 'both' });
      });
    };
    const timer: Timer = clock.setTimer(timeoutMs, () => {
      const leg = prefillStarted ? d : prefill.leg;
      fail(
        leg,
        new GatewayError(
          leg.leg === 'prefill'
            ? 'prefill_worker_failed_to_start'
            : 'decode_worker_failed_to_start',
          `The ${leg.leg} worker ${leg.worker.url} did not start within ${timeoutMs / 1000} s`,
          { status: 504 },
        ),
        'failure',
      );
    });
    const onAbort = (): void => settle(() => reject(signal.reason as Error));
    signal.addEventListener('abort', onAbort, { once: true });
    void prefill.failed.then((error) => fail(prefill.leg, error, undefined));
    prefill.leg.call.started.then(
      () => {
        prefillStarted = true;
        both();
      },
      // A prefill that fails to start is reported through `failed`, with its drain's verdict.
      () => undefined,
    );
    d.call.started.then(
      () => {
        decodeStarted = true;
        both();
      },
      (err: unknown) => {
        const { error, outcome } = legError(d, err, 'start');
        fail(d, error, outcome);
      },
    );
  });
}
