/**
 * The HTTP PD router: picks a prefill and a decode worker with their own policies (run
 * independently on the same request context), then dispatches by the prefill's runtime: vLLM
 * in sequence, SGLang/TokenSpeed in parallel. Each retry re-selects the whole pair and mints
 * fresh rooms; every attempt releases its leases before the executor backs off.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { PolicyRegistry } from '../policies/registry.js';
import { checkOverloadShed } from '../routing/overload-shed.js';
import { selectInfoFor, type RequestContext } from '../routing/request-context.js';
import { withRetry, type RetryConfig } from '../routing/retry.js';
import type { Answer } from '../routing/answer.js';
import type { PrefillAdmission, PrefillSlot } from '../admission/prefill-admission.js';
import type { DecodeAdmission, DecodeClaim, WaitBudget } from '../admission/decode-admission.js';
import { batchSize } from './bootstrap.js';
import { samplingN } from './sanitize.js';
import type { Router } from '../routing/router.js';
import { retryMetricHooks, routerSeries, withRouterMetrics } from '../routing/router-metrics.js';
import { routerSeriesOf } from '../routing/router-series.js';
import type { Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker, WorkerType } from '../workers/worker.js';
import { dispatchParallel } from './parallel.js';
import type { Pair, PdDeps } from './pd-deps.js';
import { dispatchSequential } from './sequential.js';
import { dispatchPaced } from './paced.js';

export interface PdRouterDeps extends PdDeps {
  registry: WorkerRegistry;
  prefillPolicies: PolicyRegistry;
  decodePolicies: PolicyRegistry;
  random: Random;
  retry: RetryConfig;
  overloadRetryAfterSecs: number;
  /** Per-prefill-worker slots with a FIFO queue (`--prefill-max-inflight-requests-per-worker`). */
  prefillAdmission?: PrefillAdmission | undefined;
  /** Room claims against each decode worker's running window. */
  decodeAdmission?: DecodeAdmission | undefined;
}

export class PdRouter implements Router {
  readonly type = 'http-pd' as const;

  constructor(private readonly deps: PdRouterDeps) {}

  /** The leg's candidates, or the SMG answer for why there are none (selection failure / overload shed). */
  #candidates(
    ctx: RequestContext,
    type: Extract<WorkerType, 'prefill' | 'decode'>,
  ): readonly Worker[] {
    const { registry, metrics } = this.deps;
    const candidates = registry.forModel(ctx.model, type);
    if (candidates.length === 0)
      throw selectionFailed(`No ${type} workers for model '${ctx.model}'`);
    checkOverloadShed(candidates, ctx.model, this.deps.overloadRetryAfterSecs, metrics);
    return candidates;
  }

  #pick(
    ctx: RequestContext,
    type: Extract<WorkerType, 'prefill' | 'decode'>,
    candidates: readonly Worker[],
  ): Worker | undefined {
    const policies = type === 'prefill' ? this.deps.prefillPolicies : this.deps.decodePolicies;
    const policy = policies.forModel(ctx.model);
    const worker = policy.select(
      this.deps.registry.candidateSet(candidates),
      selectInfoFor(ctx, type),
    );
    if (worker)
      routerSeriesOf(this.deps.metrics).selection(type, ctx.modelLabel, policy.name).inc();
    return worker;
  }

  #pickOrThrow(ctx: RequestContext, type: Extract<WorkerType, 'prefill' | 'decode'>): Worker {
    const worker = this.#pick(ctx, type, this.#candidates(ctx, type));
    if (!worker) throw selectionFailed(`No available ${type} workers for model '${ctx.model}'`);
    return worker;
  }

  /**
   * The prefill worker through admission: placed now or after a FIFO wait. Placement re-reads
   * the candidates and runs the policy over the workers with room, all in one synchronous step.
   * Under `consistent_hashing` a strict `x-smg-target-worker` waits only while its worker is
   * eligible and merely full; other policies ignore the header (only SMG's consistent_hashing
   * reads it).
   */
  async #admitPrefill(ctx: RequestContext, admission: PrefillAdmission): Promise<PrefillSlot> {
    const first = this.#candidates(ctx, 'prefill');
    // No healthy prefill worker at all keeps the old answer and is not queued.
    if (!first.some((w) => w.isHealthy))
      throw selectionFailed(`No available prefill workers for model '${ctx.model}'`);
    // A pin that can never place is answered now: queued, it would hold the FIFO head (and every
    // request behind it) until the queue timeout, though other workers have free slots.
    this.#strictPrefillTarget(ctx, first);
    return admission.acquire((hasRoom) => {
      const candidates = this.deps.registry.forModel(ctx.model, 'prefill');
      const target = this.#strictPrefillTarget(ctx, candidates);
      if (target !== undefined)
        return hasRoom(target) ? this.#pick(ctx, 'prefill', candidates) : undefined;
      return this.#pick(ctx, 'prefill', candidates.filter(hasRoom));
    }, ctx.signal);
  }

  /**
   * The prefill worker a strict `x-smg-target-worker` pin names, undefined when the request is
   * not pinned. Throws SMG's target-worker miss (`server_selection_failed`) when the pin names
   * no eligible worker, with consistent_hashing's own test (ready, not overloaded), so a miss
   * here is a miss in the policy too.
   */
  #strictPrefillTarget(ctx: RequestContext, candidates: readonly Worker[]): Worker | undefined {
    if (
      ctx.targetWorker === undefined ||
      this.deps.prefillPolicies.forModel(ctx.model).name !== 'consistent_hashing'
    )
      return undefined;
    const target = candidates[ctx.targetWorker];
    if (target?.isHealthyAndEligible() !== true)
      throw selectionFailed(
        `x-smg-target-worker names no available prefill worker for model '${ctx.model}'`,
      );
    return target;
  }

  /**
   * One attempt. Order matters: the decode worker is chosen and its rooms claimed first (the
   * decode gate runs before any other scarce resource is taken), then the prefill slot, then
   * the legs' load leases. A failure at any step releases what the earlier steps took; on
   * success the legs hold the slot and the claim until their answer ends.
   */
  async #attempt(ctx: RequestContext, budget: WaitBudget | undefined): Promise<Answer> {
    const { prefillAdmission, decodeAdmission } = this.deps;
    let claim: DecodeClaim | undefined;
    let slot: PrefillSlot | undefined;
    try {
      const decode = this.#pickOrThrow(ctx, 'decode');
      if (decodeAdmission) {
        claim = await decodeAdmission.claim(decode, roomsFor(ctx), { budget, signal: ctx.signal });
      }
      if (prefillAdmission) slot = await this.#admitPrefill(ctx, prefillAdmission);
      const pair: Pair = { prefill: slot?.worker ?? this.#pickOrThrow(ctx, 'prefill'), decode };
      return await this.#dispatch(ctx, pair, slot, claim);
    } catch (err) {
      // Normally released when their legs end; this covers every other exit.
      slot?.release();
      claim?.release();
      // The client left: nobody to answer, and nothing to retry.
      throw ctx.signal.aborted ? ctx.signal.reason : err;
    }
  }

  #dispatch(
    ctx: RequestContext,
    pair: Pair,
    slot: PrefillSlot | undefined,
    claim: DecodeClaim | undefined,
  ): Promise<Answer> {
    if (claim && claim.granted < claim.requested) {
      // Wider than the window: paced chunks inside this one claim and one prefill slot.
      if (pair.prefill.runtime === 'vllm')
        throw new GatewayError(
          'invalid_body',
          `This request needs ${claim.requested} decode sequences but the decode running window is ${claim.granted}; send at most ${claim.granted} samples per request`,
          { retryable: false },
        );
      return this.#paced(ctx, pair, slot, claim);
    }
    return pair.prefill.runtime === 'vllm'
      ? dispatchSequential(ctx, pair, this.deps, slot, claim)
      : dispatchParallel(ctx, pair, this.deps, slot, claim);
  }

  /** Paced chunks hold the request's one slot and claim until the merged answer is written. */
  async #paced(
    ctx: RequestContext,
    pair: Pair,
    slot: PrefillSlot | undefined,
    claim: DecodeClaim,
  ): Promise<Answer> {
    const answer = await dispatchPaced(
      ctx,
      claim.granted,
      (chunk) => dispatchParallel(chunk, pair, this.deps),
      pair.decode,
    );
    if (slot) answer.leases.push(slot);
    answer.leases.push(claim);
    return answer;
  }

  async route(ctx: RequestContext): Promise<Answer> {
    const { metrics } = this.deps;
    const series = routerSeries(metrics, 'pd', ctx);
    // One wait budget per client request, shared by every attempt: retries never multiply it.
    const budget = this.deps.decodeAdmission?.newBudget();
    return withRouterMetrics(metrics, series, ctx, () =>
      withRetry(() => this.#attempt(ctx, budget), this.deps.retry, {
        random: this.deps.random,
        signal: ctx.signal,
        hooks: retryMetricHooks(metrics, ['prefill', 'decode'], ctx),
        clock: this.deps.clock,
      }),
    );
  }
}

/** Decode sequences a request will run: one per batch item, or one per sample (`n`). */
function roomsFor(ctx: RequestContext): number {
  return batchSize(ctx.endpoint, ctx.body) ?? samplingN(ctx.body);
}

/**
 * SMG's PD router answers every pair-selection miss (no worker of a leg for the model, none
 * available, the policy declined) with one retryable 503 `server_selection_failed`
 * (pd_router.rs `handle_server_selection_error`); only the overload shed keeps its own code.
 */
function selectionFailed(why: string): GatewayError {
  return new GatewayError('server_selection_failed', `No available servers: ${why}`);
}
