/** What the gRPC PD dispatches need, and one attempt's inputs. */
import type { PrefillSlot } from '../../admission/prefill-admission.js';
import type { DecodeClaim } from '../../admission/decode-admission.js';
import type { EngineClient, SamplingInput } from '../../engine/types.js';
import type { GrpcPlan } from '../../grpc/plan.js';
import type { PreparedPrompt } from '../../grpc/prepare.js';
import type { RequestContext } from '../../routing/request-context.js';
import type { Worker } from '../../workers/worker.js';
import type { Pair, PdDeps } from '../pd-deps.js';

export interface GrpcPdDeps extends Omit<PdDeps, 'pools'> {
  /** The engine client of a registered gRPC worker. */
  engines: { get(worker: Worker): EngineClient };
}

/** One attempt: the admitted pair, the prepared prompt and the sampling the client asked for. */
export interface GrpcPdAttempt {
  ctx: RequestContext;
  plan: GrpcPlan;
  prepared: PreparedPrompt;
  /** The client's sampling with the model's defaults: what the decode runs and the stops enforce. */
  sampling: SamplingInput;
  pair: Pair;
  slot: PrefillSlot | undefined;
  claim: DecodeClaim | undefined;
}
