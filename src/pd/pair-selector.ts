/**
 * PD pair selection, shared by the HTTP and the gRPC PD routers: a prefill and a decode worker
 * of one connection mode, each picked by its own policy on the same request context, through the
 * one decode admission (room claims) and the one prefill admission (per-worker slots, FIFO
 * queue) the gateway has. Either router's requests therefore queue and claim against the same
 * counters.
 */
import type { DecodeAdmission, DecodeClaim, WaitBudget } from '../admission/decode-admission.js';
import type { PrefillAdmission, PrefillSlot } from '../admission/prefill-admission.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { PolicyRegistry } from '../policies/registry.js';
import { checkOverloadShed } from '../routing/overload-shed.js';
import { selectInfoFor, type RequestContext } from '../routing/request-context.js';
import { routerSeriesOf } from '../routing/router-series.js';
import { ofConnection, type ConnectionMode } from '../routing/select-regular.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker, WorkerType } from '../workers/worker.js';
import type { Pair } from './pd-deps.js';

type Leg = Extract<WorkerType, 'prefill' | 'decode'>;

export interface PairSelectorDeps {
  registry: WorkerRegistry;
  prefillPolicies: PolicyRegistry;
  decodePolicies: PolicyRegistry;
  metrics: GatewayMetrics;
  overloadRetryAfterSecs: number;
  /** Per-prefill-worker slots with a FIFO queue (`--prefill-max-inflight-requests-per-worker`). */
  prefillAdmission?: PrefillAdmission | undefined;
  /** Room claims against each decode worker's running window. */
  decodeAdmission?: DecodeAdmission | undefined;
}

/** A selected pair with what admission gave it; the holder releases both on every exit. */
export interface AdmittedPair {
  pair: Pair;
  slot: PrefillSlot | undefined;
  claim: DecodeClaim | undefined;
}

export class PairSelector {
  constructor(
    private readonly deps: PairSelectorDeps,
    private readonly mode: ConnectionMode,
  ) {}

  /**
   * One attempt's pair. Order matters: the decode worker is chosen and its `rooms` claimed first
   * (the decode gate runs before any other scarce resource is taken), then the prefill slot. A
   * failure at any step releases what the earlier steps took.
   */
  async acquire(
    ctx: RequestContext,
    rooms: number,
    budget: WaitBudget | undefined,
  ): Promise<AdmittedPair> {
    const { prefillAdmission, decodeAdmission } = this.deps;
    let claim: DecodeClaim | undefined;
    let slot: PrefillSlot | undefined;
    try {
      const decode = this.#pickOrThrow(ctx, 'decode');
      if (decodeAdmission) {
        claim = await decodeAdmission.claim(decode, rooms, { budget, signal: ctx.signal });
      }
      if (prefillAdmission) slot = await this.#admitPrefill(ctx, prefillAdmission);
      const prefill = slot?.worker ?? this.#pickOrThrow(ctx, 'prefill');
      return { pair: { prefill, decode }, slot, claim };
    } catch (err) {
      slot?.release();
      claim?.release();
      throw err;
    }
  }

  /** The leg's candidates of this mode, or the SMG answer for why there are none. */
  #candidates(ctx: RequestContext, type: Leg): readonly Worker[] {
    const { registry, metrics } = this.deps;
    const candidates = ofConnection(registry.forModel(ctx.model, type), this.mode);
    if (candidates.length === 0)
      throw selectionFailed(`No ${type} workers for model '${ctx.model}'`);
    checkOverloadShed(candidates, ctx.model, this.deps.overloadRetryAfterSecs, metrics);
    return candidates;
  }

  #pick(ctx: RequestContext, type: Leg, candidates: readonly Worker[]): Worker | undefined {
    const policies = type === 'prefill' ? this.deps.prefillPolicies : this.deps.decodePolicies;
    const policy = policies.forModel(ctx.model);
    const worker = policy.select(
      this.deps.registry.candidateSet(candidates),
      selectInfoFor(ctx, type),
    );
    if (worker)
      routerSeriesOf(this.deps.metrics)
        .selection(type, ctx.modelLabel, policy.name, this.mode)
        .inc();
    return worker;
  }

  #pickOrThrow(ctx: RequestContext, type: Leg): Worker {
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
      const candidates = ofConnection(this.deps.registry.forModel(ctx.model, 'prefill'), this.mode);
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
}

/**
 * SMG's PD router answers every pair-selection miss (no worker of a leg for the model, none
 * available, the policy declined) with one retryable 503 `server_selection_failed`
 * (pd_router.rs `handle_server_selection_error`); only the overload shed keeps its own code.
 */
export function selectionFailed(why: string): GatewayError {
  return new GatewayError('server_selection_failed', `No available servers: ${why}`);
}
