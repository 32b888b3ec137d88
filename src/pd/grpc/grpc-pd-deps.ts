/** What the gRPC PD dispatches need, and one attempt's inputs. */
import type { PrefillSlot } from '../../admission/prefill-admission.js';
import type { DecodeClaim } from '../../admission/decode-admission.js';
import type { AdmittedPair } from '../pair-selector.js';
import type { EngineClient, SamplingInput } from '../../engine/types.js';
import type { ModelParsers } from '../../grpc/chat-parsing.js';
import type { GrpcPlan } from '../../grpc/plan.js';
import type { PreparedPrompt } from '../../grpc/prepare.js';
import type { RequestContext } from '../../routing/request-context.js';
import type { AttemptSpan } from '../../observability/tracing.js';
import type { Worker } from '../../workers/worker.js';
import type { Pair, PdDeps } from '../pd-deps.js';

export interface GrpcPdDeps extends Omit<PdDeps, 'pools'> {
  /** The engine client of a registered gRPC worker. */
  engines: { get(worker: Worker): EngineClient };
  /** Tool-call and reasoning parsers by model (chat answers). */
  parsers?: ModelParsers | undefined;
}

/** One attempt: the admitted pair, the prepared prompt and the sampling the client asked for. */
export interface GrpcPdAttempt {
  ctx: RequestContext;
  plan: GrpcPlan;
  prepared: PreparedPrompt;
  /** The client's sampling with the model's defaults: what the decode runs and the stops enforce. */
  sampling: SamplingInput;
  pair: Pair;
  /**
   * What admission gave the attempt. A leg that takes the slot or the claim (`takeSlot`,
   * `takeClaim`) owns it from then on and releases it when its call is over; the router
   * releases only what no leg took.
   */
  admitted: AdmittedPair;
  /** The attempt's span (`--enable-trace`): the legs' spans go under it. */
  span?: AttemptSpan | undefined;
}

export function takeSlot(a: GrpcPdAttempt): PrefillSlot | undefined {
  const slot = a.admitted.slot;
  a.admitted.slot = undefined;
  return slot;
}

export function takeClaim(a: GrpcPdAttempt): DecodeClaim | undefined {
  const claim = a.admitted.claim;
  a.admitted.claim = undefined;
  return claim;
}
