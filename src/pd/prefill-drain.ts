/**
 * The prefill leg of a parallel PD pair, read from the moment its own head arrives: its body is
 * one token and small, and reading it to the end is what frees the prefill admission slot, so
 * it never waits for the decode (a non-streamed decode sends its head only when it is done).
 *
 * What a prefill failure means depends on how far the pair got:
 * - `pair`: the answer is not chosen yet; the failure is reported through `failed` and the
 *   attempt fails the pair (and may retry it).
 * - `relay`: the decode's answer is going to the client; a prefill that fails now (an error
 *   event in its body: the rendezvous expired) aborts the decode at once, instead of letting it
 *   wait out its own transfer deadline for KV that will never come.
 * - `retired`: the decode failed first; the prefill is cut and only its own outcome is recorded.
 * - `finished`: the decode is done; a prefill still open gets a short grace and is then cut, and
 *   a cut then is not a failure (the KV was transferred long ago).
 */
import type { Timer } from '@switchyard/kit';
import { GatewayError } from '../errors/gateway-error.js';
import { BACKGROUND } from '../util/every.js';
import type { RequestContext } from '../routing/request-context.js';
import { readAllText } from '../upstream/body-source.js';
import { bodyFailure, closeLeg, type LegFailure, type LegHandle } from './leg.js';
import type { PdDeps, PdSeries } from './pd-deps.js';

/** How long a prefill body may stay open after its decode finished. */
const PREFILL_GRACE_MS = 1000;

type Phase = 'pair' | 'relay' | 'retired' | 'finished';

/**
 * Whether a prefill body that came with a 2xx head reports a failure inside it. A streamed
 * prefill sends its head before the rendezvous, so a room that expires shows up only as an
 * error event in the body.
 */
export function prefillBodyFailed(text: string): boolean {
  // Most prefill bodies are sound: only parse one that could carry an error or an abort.
  if (!text.includes('"error"') && !text.includes('abort')) return false;
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

export class PrefillDrain {
  /** Resolves once the prefill's head is a usable 2xx; never resolves if it is not. */
  readonly headOk: Promise<void>;
  /** Resolves with the prefill's failure while the pair is being formed; never otherwise. */
  readonly failed: Promise<LegFailure>;
  /** The prefill's body text once read whole and sound; undefined when it failed or was cut. */
  readonly text: Promise<string | undefined>;
  #phase: Phase = 'pair';
  #decode: LegHandle | undefined;
  #headWasOk = false;
  #settled = false;
  #grace: Timer | undefined;
  /** A failure seen while the pair was being formed, until the dispatcher takes it or retires. */
  #pending: LegFailure | undefined;
  #notifyHead!: () => void;
  #notifyFailed!: (f: LegFailure) => void;

  constructor(
    readonly leg: LegHandle,
    private readonly ctx: RequestContext,
    private readonly deps: PdDeps,
    private readonly series: PdSeries,
  ) {
    this.headOk = new Promise((resolve) => (this.#notifyHead = resolve));
    this.failed = new Promise((resolve) => (this.#notifyFailed = resolve));
    this.text = this.#drain();
  }

  /** The pair is formed and the decode's answer goes to the client. */
  relayTo(decode: LegHandle): void {
    this.#decode = decode;
    if (this.#phase !== 'pair') return;
    this.#phase = 'relay';
    // Failed between the pair being formed and now: it fails the relay instead.
    const failure = this.takeFailure();
    if (failure) this.#fail(failure, failure.error.message);
  }

  /**
   * The prefill failed while the pair was being formed: the dispatcher takes the failure to
   * charge the leg and fail the pair. Undefined when there is none to take.
   */
  takeFailure(): LegFailure | undefined {
    const failure = this.#pending;
    this.#pending = undefined;
    return failure;
  }

  /**
   * The decode failed first: the prefill is cut, off the request path. A prefill that had
   * failed too (the client left, and both legs saw it) is recorded as a retired partner now.
   */
  retire(cause: string): void {
    this.#phase = 'retired';
    const failure = this.takeFailure();
    if (failure) this.#retired(failure);
    else this.leg.call?.abort(new Error(`partner leg failed: ${cause}`));
  }

  /** The decode's answer is over; a prefill still open is cut after a short grace. */
  decodeFinished(): void {
    if (this.#phase === 'retired') return;
    this.#phase = 'finished';
    if (this.#settled) return;
    this.#grace = this.deps.clock.setTimer(
      PREFILL_GRACE_MS,
      () => this.leg.call?.abort(new Error('decode finished; prefill body still open')),
      BACKGROUND,
    );
  }

  async #drain(): Promise<string | undefined> {
    const p = this.leg;
    const head = await p.head;
    if (!head.ok) {
      this.#fail(head, head.error.message);
      return undefined;
    }
    this.#headWasOk = true;
    this.#notifyHead();
    let text: string;
    try {
      text = await readAllText(head.response.body);
    } catch (err) {
      this.#fail(bodyFailure(p, err), String(err));
      return undefined;
    }
    if (prefillBodyFailed(text)) {
      const reason = 'error in the prefill body';
      const error = new GatewayError(
        'prefill_error',
        `The prefill leg failed before the decode answered: prefill failed: ${reason}`,
        { status: 502 },
      );
      this.#fail({ ok: false, error, outcome: 'failure', aborted: false }, reason);
      return undefined;
    }
    this.#end();
    p.worker.circuit.record('success');
    if (this.#phase !== 'retired')
      this.series.prefillDuration.observe((performance.now() - p.sentAt) / 1000);
    closeLeg(p, 'prefill done');
    return text;
  }

  #end(): void {
    this.#settled = true;
    this.deps.clock.clearTimer(this.#grace);
  }

  #fail(failure: LegFailure, reason: string): void {
    this.#end();
    const p = this.leg;
    switch (this.#phase) {
      case 'pair':
        // The attempt still owns the answer: it takes the failure (or retires the prefill when
        // the decode failed first) and fails or retries the pair.
        this.#pending = failure;
        this.#notifyFailed(failure);
        return;
      case 'relay':
        if (!this.ctx.signal.aborted) {
          p.worker.circuit.record('failure');
          this.deps.metrics.pdBootstrapFailures.inc();
          this.deps.logger.warn(
            { worker: p.worker.url, requestId: this.ctx.requestId, reason },
            'prefill failed after its head; aborting the decode leg',
          );
          this.#decode?.call?.abort(new Error(`prefill failed: ${reason}`));
          // Ended here, or closeLeg below would export the failed leg as a normal drain.
          p.span?.end('failed', failure.error.code);
        }
        break;
      case 'retired':
        this.#retired(failure);
        return;
      case 'finished':
        break;
    }
    closeLeg(p, 'prefill ended');
  }

  /** A retired partner that answered was fine; one that failed on its own is logged. */
  #retired(failure: LegFailure): void {
    const p = this.leg;
    p.worker.circuit.record(this.#headWasOk ? 'success' : failure.outcome);
    if (!this.#headWasOk && !failure.aborted)
      this.deps.logger.warn(
        { leg: 'prefill', worker: p.worker.url, err: failure.error.message },
        'retired PD leg had failed too',
      );
    closeLeg(p, 'retired');
  }
}
