/**
 * The prefill leg of a parallel gRPC PD pair, read from the moment it is sent. The prefill runs
 * the prompt and answers one token per sample; reading each sample's terminal response is what
 * frees the prefill admission slot and the prefill's load, so the slot is held exactly as long as
 * the engine works on the prompt and never waits for the decode.
 *
 * What a prefill failure means depends on how far the pair got:
 * - `pair`: the decode has not answered yet; the failure is reported through `failed` and the
 *   attempt fails the pair (and may retry it).
 * - `relay`: the decode's answer is going to the client (its first token came, so its KV did
 *   too); the failure is counted and logged, and the prefill worker's breaker hears it.
 * - `retired`: the decode failed first, or the client left; the prefill was aborted at once and
 *   nothing is recorded for it.
 * - `finished`: the decode's answer is over; a prefill still open gets a short grace and is then
 *   aborted, which is not a failure.
 */
import type { Timer } from '@switchyard/kit';
import { EngineCallError } from '../../engine/types.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import type { AnswerEnd } from '../../routing/answer.js';
import type { RequestContext } from '../../routing/request-context.js';
import { BACKGROUND } from '../../util/every.js';
import type { PdDeps, PdSeries } from '../pd-deps.js';
import { endLeg, legError, type GrpcLeg } from './grpc-leg.js';

/** How long a prefill may stay open after its decode's answer ended. */
const PREFILL_GRACE_MS = 1000;

type Phase = 'pair' | 'relay' | 'retired' | 'finished';

export class GrpcPrefillDrain {
  /** Resolves with the prefill's failure while the pair is being formed; never otherwise. */
  readonly failed: Promise<GatewayError>;
  #notifyFailed: (e: GatewayError) => void = () => undefined;
  #phase: Phase = 'pair';
  #ended = false;
  #grace: Timer | undefined;

  constructor(
    private readonly h: GrpcLeg,
    /** Terminal responses to wait for: one per sample (`n`). */
    private readonly samples: number,
    private readonly ctx: RequestContext,
    private readonly deps: Pick<PdDeps, 'clock' | 'logger' | 'metrics'>,
    private readonly series: PdSeries,
  ) {
    this.failed = new Promise((resolve) => (this.#notifyFailed = resolve));
    void this.#drain();
  }

  get leg(): GrpcLeg {
    return this.h;
  }

  async #drain(): Promise<void> {
    const done = new Set<number>();
    try {
      for await (const out of this.h.call) {
        if (out.kind !== 'complete') continue;
        // The engine gave up on the sample (its rendezvous failed): no KV reached the decode.
        if (out.finishReason === 'abort')
          throw new EngineCallError(13, `prefill sample ${out.index} was aborted`, false);
        done.add(out.index);
        if (done.size >= this.samples) break;
      }
      this.#completed();
    } catch (err) {
      this.#failedWith(err);
    }
  }

  #completed(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.deps.clock.clearTimer(this.#grace);
    this.series.prefillDuration.observe((performance.now() - this.h.sentAt) / 1000);
    this.h.worker.circuit.record('success');
    endLeg(this.h, 'completed');
  }

  #failedWith(err: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.deps.clock.clearTimer(this.#grace);
    // Before the pair formed the prefill has delivered nothing, whether or not its stream had
    // started: the pair failed to start on the prefill's side (SMG's one code for it).
    const started = !(err instanceof EngineCallError) || !err.beforeStart;
    const kind = this.#phase === 'pair' || !started ? 'start' : 'stream';
    const { error, outcome } = legError(this.h, err, kind);
    // Aborted by the gateway (client gone): not the worker's fault.
    if (!this.ctx.signal.aborted) {
      this.h.worker.circuit.record(outcome);
      // Ended first: endLeg's own end would export the failure as an abort.
      this.h.span?.end('failed', error.code);
    }
    endLeg(this.h, 'dispose');
    if (this.#phase === 'pair') {
      this.#notifyFailed(error);
      return;
    }
    if (this.#phase === 'relay') {
      this.deps.metrics.pdBootstrapFailures.inc();
      this.deps.logger.warn(
        {
          leg: 'prefill',
          worker: this.h.worker.url,
          requestId: this.ctx.requestId,
          err: error.message,
        },
        'PD prefill failed after its decode answered',
      );
    }
  }

  /** The decode answered: the pair is formed and its answer goes to the client. */
  relay(): void {
    if (this.#phase === 'pair') this.#phase = 'relay';
  }

  /** The pair failed on the decode's side, or the client left: abort the prefill at once. */
  retire(): void {
    this.#phase = 'retired';
    if (this.#ended) return;
    this.#ended = true;
    this.deps.clock.clearTimer(this.#grace);
    endLeg(this.h, 'now');
  }

  /** The decode's answer ended: an unfinished prefill is cut, after a grace when it ended well. */
  answerEnded(end: AnswerEnd): void {
    if (this.#ended) return;
    if (end !== 'complete') {
      this.retire();
      return;
    }
    this.#phase = 'finished';
    this.#grace = this.deps.clock.setTimer(PREFILL_GRACE_MS, () => this.retire(), BACKGROUND);
  }
}
