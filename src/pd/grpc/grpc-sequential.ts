/**
 * vLLM PD over gRPC: no rendezvous, so the legs run in sequence with the same engine request id.
 * A sanitized one-token probe (not streamed, `n` 1, no stops, EOS ignored, so it stops on its
 * length cap, the only finish for which vLLM's connector hands KV over) goes to the prefill,
 * tagged with `kv_transfer_params_json`; the JSON it returns (NIXL) or the gateway's minted
 * Mooncake params then ride on the original request to the decode. Fan-out (`n > 1`) cannot
 * share one handoff and, when nothing else needs the prefill, goes to the decode alone with no
 * deferred abort (there is no handoff to protect). Each leg's outcome is recorded against its
 * own worker only; a leg never contacted records nothing.
 */
import { EngineCallError, type GenerateInput, type SamplingInput } from '../../engine/types.js';
import { engineInput, freshRequestId } from '../../grpc/engine-input.js';
import { startedInTime } from '../../grpc/start-wait.js';
import type { Answer } from '../../routing/answer.js';
import type { RequestContext } from '../../routing/request-context.js';
import { routerSeriesOf } from '../../routing/router-series.js';
import {
  connectorFor,
  mintTransferId,
  mooncakeDecodeParams,
  mooncakePrefillParams,
  NIXL_PREFILL_PARAMS,
  type ConnectorPlan,
} from '../kv-transfer.js';
import { shouldSkipPrefill, type KvConnectorMode, type SkipInputs } from '../skip-prefill.js';
import { answerFromDecode } from './decode-answer.js';
import { endLeg, legError, startGrpcLeg, type GrpcLeg } from './grpc-leg.js';
import { takeClaim, takeSlot, type GrpcPdAttempt, type GrpcPdDeps } from './grpc-pd-deps.js';

/**
 * The skip predicate's inputs on the gRPC path: there is no encode leg (EPD is not built) and
 * multimodal input is refused in gRPC mode before a pair is chosen.
 */
export function grpcSkipInputs(n: number, mode: KvConnectorMode): SkipInputs {
  return { relayPossible: n <= 1, hasEncodeLeg: false, hasMultimodalInput: false, mode };
}

/** The prefill probe's sampling: one token that ends on the length cap. */
function probeSampling(s: SamplingInput): SamplingInput {
  return {
    ...s,
    maxNewTokens: 1,
    minNewTokens: 0,
    n: 1,
    stop: [],
    stopTokenIds: [],
    ignoreEos: true,
  };
}

/** What the decode gets from the probe's answer, by connector mode; problems are reported. */
function decodeParams(
  returned: string | undefined,
  plan: ConnectorPlan,
  transferId: string | undefined,
): { json: string | undefined; failure: string | undefined } {
  if (plan.mode === 'mooncake') {
    return transferId
      ? { json: JSON.stringify(mooncakeDecodeParams(transferId, plan)), failure: undefined }
      : {
          json: undefined,
          failure: 'mooncake prefill worker has no kv_engine_id: decode recomputes',
        };
  }
  if (returned === undefined || returned === '')
    return { json: undefined, failure: 'prefill returned no kv_transfer_params_json' };
  let doc: unknown;
  try {
    doc = JSON.parse(returned);
  } catch {
    return { json: undefined, failure: 'prefill kv_transfer_params_json is not JSON' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { json: undefined, failure: 'prefill kv_transfer_params_json is not an object' };
  // Relayed verbatim: the engine's own text, not a re-serialization of it.
  return { json: returned, failure: undefined };
}

export async function dispatchGrpcSequential(deps: GrpcPdDeps, a: GrpcPdAttempt): Promise<Answer> {
  const { ctx, plan, prepared, pair, sampling } = a;
  const { metrics, logger } = deps;
  const connector = connectorFor(pair.prefill);
  const relayPossible = plan.sampling.n <= 1;
  metrics.pdKvConnectorMode.inc({ mode: connector.mode });
  const series = routerSeriesOf(metrics).pd(ctx.modelLabel, pair.prefill.runtime);
  // The same id on both legs: NIXL on vLLM before 0.13 pairs the legs by it.
  const requestId = freshRequestId(ctx);
  const started = performance.now();
  let kvJson: string | undefined;
  let prefillEndedAt = 0;

  const skip = shouldSkipPrefill(grpcSkipInputs(plan.sampling.n, connector.mode));
  // Fan-out sends no prefill request, so it holds no prefill slot.
  if (skip) takeSlot(a)?.release();
  else {
    const transferId =
      connector.mode === 'mooncake' && connector.engineId ? mintTransferId() : undefined;
    let tag: string | undefined;
    if (relayPossible && connector.mode === 'nixl') tag = JSON.stringify(NIXL_PREFILL_PARAMS);
    if (relayPossible && transferId) tag = JSON.stringify(mooncakePrefillParams(transferId));
    const probe: GenerateInput = {
      ...engineInput(plan, prepared, pair.prefill, probeSampling(sampling), requestId),
      stream: false,
      logprobs: undefined,
      kvTransferParamsJson: tag,
    };
    const p = startGrpcLeg(
      'prefill',
      pair.prefill,
      deps.engines.get(pair.prefill),
      [probe],
      takeSlot(a),
      ctx,
      a.span,
    );
    p.span?.set('switchyard.pd.kv_connector', connector.mode);
    if (transferId) p.span?.set('switchyard.pd.kv_transfer_id', transferId);
    const returned = await drainProbe(p, ctx, deps);
    series.prefillDuration.observe((performance.now() - p.sentAt) / 1000);
    prefillEndedAt = performance.now();
    if (relayPossible) {
      const relay = decodeParams(returned, connector, transferId);
      kvJson = relay.json;
      if (relay.failure !== undefined) {
        metrics.pdKvTransferFailures.inc();
        logger.warn(
          {
            worker: pair.prefill.url,
            requestId: ctx.requestId,
            mode: connector.mode,
            reason: relay.failure,
          },
          'no KV handoff: the decode will recompute the prompt',
        );
      }
    }
  }

  const decodeInput: GenerateInput = {
    ...engineInput(plan, prepared, pair.decode, sampling, requestId),
    kvTransferParamsJson: kvJson,
  };
  const d = startGrpcLeg(
    'decode',
    pair.decode,
    deps.engines.get(pair.decode),
    [decodeInput],
    takeClaim(a),
    ctx,
    a.span,
  );
  d.span?.set('switchyard.pd.kv_connector', connector.mode);
  // Only a decode with a handoff may be mid-transfer when the client leaves.
  if (kvJson !== undefined) d.call.deferAbortUntilFirstItem();
  try {
    await startedInTime(d.call, ctx.signal, deps.clock, deps.requestTimeoutMs);
  } catch (err) {
    throw failLeg(ctx, d, err);
  }
  series.ttft.observe((performance.now() - started) / 1000);
  if (kvJson !== undefined)
    series.kvTransferDuration.observe((performance.now() - prefillEndedAt) / 1000);
  return answerFromDecode(deps, a, d, requestId, !skip);
}

/**
 * Runs the probe to its end and returns the `kv_transfer_params_json` of its terminal response.
 * The prefill's slot and load are released when it ends, before the decode is sent.
 */
async function drainProbe(
  p: GrpcLeg,
  ctx: RequestContext,
  deps: GrpcPdDeps,
): Promise<string | undefined> {
  const onGone = (): void => p.call.dispose();
  ctx.signal.addEventListener('abort', onGone, { once: true });
  try {
    await startedInTime(p.call, ctx.signal, deps.clock, deps.requestTimeoutMs);
    let returned: string | undefined;
    for await (const out of p.call) {
      if (out.kind === 'complete') returned = out.kvTransferParamsJson ?? returned;
    }
    if (ctx.signal.aborted) throw ctx.signal.reason;
    p.worker.circuit.record('success');
    endLeg(p, 'completed');
    return returned;
  } catch (err) {
    throw failLeg(ctx, p, err);
  } finally {
    ctx.signal.removeEventListener('abort', onGone);
  }
}

/** A failed leg is charged and closed; the attempt throws its error, or the client's reason. */
function failLeg(ctx: RequestContext, h: GrpcLeg, err: unknown): unknown {
  if (ctx.signal.aborted) {
    // A decode with a handoff keeps its deferral: the client leaving does not stop the KV write.
    endLeg(h, 'dispose');
    return ctx.signal.reason;
  }
  const started = !(err instanceof EngineCallError && err.beforeStart);
  const { error, outcome } = legError(h, err, started ? 'stream' : 'start');
  h.span?.end('failed', error.code);
  endLeg(h, 'now');
  h.worker.circuit.record(outcome);
  return error;
}
