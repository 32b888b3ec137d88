/** The client's answer of a gRPC PD pair: the decode leg's call, holding the decode's leases. */
import { answerFromCall } from '../../grpc/call-answer.js';
import { chatParsingFor } from '../../grpc/chat-parsing.js';
import { modelIdFor, responseMeta } from '../../grpc/engine-input.js';
import type { Answer, AnswerLease } from '../../routing/answer.js';
import { routerSeriesOf } from '../../routing/router-series.js';
import type { GrpcLeg } from './grpc-leg.js';
import type { GrpcPdAttempt, GrpcPdDeps } from './grpc-pd-deps.js';

export function answerFromDecode(
  deps: GrpcPdDeps,
  a: GrpcPdAttempt,
  d: GrpcLeg,
  requestId: string,
  /** Whether a prefill leg ran (its worker is named in `x-smg-prefill-worker-id`). */
  prefillRan: boolean,
  /** Held until the answer ends besides the decode's load and claim (the prefill drain). */
  extra: AnswerLease[] = [],
): Promise<Answer> {
  const { ctx, pair } = a;
  routerSeriesOf(deps.metrics).upstreamStatus(200, 'grpc').inc();
  return answerFromCall(deps, {
    ctx,
    plan: a.plan,
    prepared: a.prepared,
    sampling: a.sampling,
    worker: pair.decode,
    call: d.call,
    meta: responseMeta(ctx, requestId, pair.decode, a.prepared),
    parsing: chatParsingFor(a.plan, a.prepared.text, modelIdFor(ctx, pair.decode), deps.parsers),
    headers: prefillRan ? { 'x-smg-prefill-worker-id': pair.prefill.key } : undefined,
    leases: [{ release: (end) => d.span?.end(end) }, ...extra],
    // A decode deferring its abort still holds its seat in the engine's window.
    heldByCall: d.admission === undefined ? [d.load] : [d.load, d.admission],
  });
}
