/**
 * vLLM PD: no rendezvous, so the legs run in sequence. A sanitized one-token probe goes to the
 * prefill; its `kv_transfer_params` (NIXL, relayed verbatim) or gateway-minted Mooncake params then
 * ride on the original request to the decode. Fan-out (`n > 1`) cannot share one handoff and goes
 * to the decode alone. Each leg's outcome is recorded against its own worker only; a leg never
 * contacted records nothing.
 */
import type { Lease } from '../util/lease.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import type { JsonObject } from '../util/json.js';
import { readAllText } from '../upstream/body-source.js';
import type { Worker } from '../workers/worker.js';
import { decodeAnswer, DecodeFailedEarly } from './decode-answer.js';
import { routerSeriesOf } from '../routing/router-series.js';
import {
  connectorFor,
  mintTransferId,
  mooncakeDecodeParams,
  mooncakePrefillParams,
  NIXL_PREFILL_PARAMS,
  type ConnectorPlan,
} from './kv-transfer.js';
import { bodyFailure, closeLeg, legFailure, startLeg, type LegHandle } from './leg.js';
import type { Pair, PdDeps } from './pd-deps.js';
import { hasMultimodalInput, samplingN, sanitizePrefill } from './sanitize.js';
import { shouldSkipPrefill } from './skip-prefill.js';

function withRank(body: JsonObject, w: Worker): JsonObject {
  return w.dpRank === undefined ? body : { ...body, data_parallel_rank: w.dpRank };
}

interface Harvest {
  params: Record<string, unknown> | undefined;
  failure: string | undefined;
}

/** Decode params from the prefill's answer, by connector mode. Problems are reported, not hidden. */
function harvestParams(text: string, plan: ConnectorPlan, transferId: string | undefined): Harvest {
  if (plan.mode === 'mooncake') {
    return transferId
      ? { params: mooncakeDecodeParams(transferId, plan), failure: undefined }
      : {
          params: undefined,
          failure: 'mooncake prefill worker has no kv_engine_id: decode recomputes',
        };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { params: undefined, failure: 'prefill answer is not JSON' };
  }
  const params = (doc as { kv_transfer_params?: unknown } | null)?.kv_transfer_params;
  if (params === undefined || params === null)
    return { params: undefined, failure: 'prefill returned no kv_transfer_params' };
  if (typeof params !== 'object' || Array.isArray(params))
    return { params: undefined, failure: 'prefill kv_transfer_params is not an object' };
  return { params: params as Record<string, unknown>, failure: undefined };
}

export async function dispatchSequential(
  ctx: RequestContext,
  pair: Pair,
  deps: PdDeps,
  slot?: Lease,
  claim?: Lease,
  attempt?: AttemptSpan,
): Promise<Answer> {
  const { metrics, logger } = deps;
  const plan = connectorFor(pair.prefill);
  const relayPossible = samplingN(ctx.body) <= 1;
  metrics.pdKvConnectorMode.inc({ mode: plan.mode });
  const series = routerSeriesOf(metrics).pd(ctx.modelLabel, pair.prefill.runtime);
  const started = performance.now();
  let decodeBody: JsonObject = ctx.body;
  let prefillAnsweredAt: number | undefined;

  const skip = shouldSkipPrefill({
    relayPossible,
    hasEncodeLeg: false,
    hasMultimodalInput: hasMultimodalInput(ctx.endpoint, ctx.body),
    mode: plan.mode,
  });
  // Fan-out sends no prefill request, so it holds no prefill slot.
  if (skip) slot?.release();
  if (!skip) {
    const transferId = plan.mode === 'mooncake' && plan.engineId ? mintTransferId() : undefined;
    const probe = sanitizePrefill(ctx.endpoint, ctx.body);
    if (relayPossible && plan.mode === 'nixl')
      probe.kv_transfer_params = { ...NIXL_PREFILL_PARAMS };
    if (relayPossible && transferId) probe.kv_transfer_params = mooncakePrefillParams(transferId);
    const p = startLeg(
      'prefill',
      pair.prefill,
      ctx,
      Buffer.from(JSON.stringify(withRank(probe, pair.prefill))),
      deps,
      slot,
      attempt,
    );
    p.span?.set('switchyard.pd.kv_connector', plan.mode);
    if (transferId) p.span?.set('switchyard.pd.kv_transfer_id', transferId);
    const head = await p.head;
    if (!head.ok) throw failLeg(ctx, p, head);
    let text: string;
    try {
      text = await readAllText(head.response.body);
    } catch (err) {
      // The leg's own classification: a transport failure is retried and charged to the worker,
      // the gateway's buffering limit is neither.
      throw failLeg(ctx, p, bodyFailure(p, err));
    }
    p.worker.circuit.record('success');
    series.prefillDuration.observe((performance.now() - p.sentAt) / 1000);
    closeLeg(p, 'prefill done');
    prefillAnsweredAt = performance.now();
    if (relayPossible) {
      const harvest = harvestParams(text, plan, transferId);
      if (harvest.params) decodeBody = { ...ctx.body, kv_transfer_params: harvest.params };
      else {
        metrics.pdKvTransferFailures.inc();
        logger.warn(
          {
            worker: pair.prefill.url,
            requestId: ctx.requestId,
            mode: plan.mode,
            reason: harvest.failure,
          },
          'no KV handoff: the decode will recompute the prompt',
        );
      }
    }
  }

  // The decode lease is taken only now, after the prefill leg is done with its own.
  const d = startLeg(
    'decode',
    pair.decode,
    ctx,
    Buffer.from(JSON.stringify(withRank(decodeBody, pair.decode))),
    deps,
    claim,
    attempt,
  );
  d.span?.set('switchyard.pd.kv_connector', plan.mode);
  const handoff = decodeBody.kv_transfer_params as { transfer_id?: unknown } | undefined;
  if (typeof handoff?.transfer_id === 'string')
    d.span?.set('switchyard.pd.kv_transfer_id', handoff.transfer_id);
  const head = await d.head;
  if (!head.ok) throw failLeg(ctx, d, head);
  series.ttft.observe((performance.now() - started) / 1000);
  if (prefillAnsweredAt !== undefined && decodeBody !== ctx.body) {
    series.kvTransferDuration.observe((performance.now() - prefillAnsweredAt) / 1000);
  }
  try {
    return await decodeAnswer({ ctx, deps, decode: d, head: head.response });
  } catch (err) {
    if (err instanceof DecodeFailedEarly) throw failLeg(ctx, d, err.failure);
    // Not a leg failure (a bug): still, the decode leg may not keep its lease.
    closeLeg(d, 'internal error');
    throw err;
  }
}

/** A failed leg is closed; the attempt throws the leg's error, or the client's reason when it left. */
function failLeg(
  ctx: RequestContext,
  h: LegHandle,
  failure: Parameters<typeof legFailure>[1],
): unknown {
  if (!ctx.signal.aborted) return legFailure(h, failure);
  closeLeg(h, 'client left');
  return ctx.signal.reason;
}
