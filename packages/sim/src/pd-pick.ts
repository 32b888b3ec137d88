// Which PD leg a request plays on this worker. The rules are the engines', not the transport's, so
// the HTTP routes (inference.ts) and the gRPC Generate (grpc-server.ts) both decide here from what
// the request carries: vLLM's kv_transfer_params, or SGLang/TokenSpeed's bootstrap fields.
import type { PdLeg } from './pd-leg.js';
import type { BootstrapFields, FinishReason } from './request-parse.js';
import type { WorkerContext } from './worker-context.js';
import { roomTargets, SglangDecodeLeg, SglangPrefillLeg } from './sglang-pd.js';
import { VllmDecodeLeg, VllmPrefillLeg } from './vllm-pd.js';

/** The PD part of a request, read from an HTTP body or a GenerateRequest. */
export interface LegRequest {
  /** Unique on this worker: a vLLM prefill pins its KV under it for the decode's NIXL read. */
  id: string;
  promptTokens: number;
  /** How the output ends: a vLLM prefill hands its KV over only when it stopped on its cap. */
  finishReason: FinishReason;
  /** vLLM `kv_transfer_params`. */
  kvTransferParams: Record<string, unknown> | undefined;
  /** SGLang/TokenSpeed `bootstrap_room`s as exact decimal text. */
  rooms: readonly string[] | undefined;
  /** SGLang/TokenSpeed `bootstrap_host` / `bootstrap_port` (scalars or one per room). */
  bootstrap: BootstrapFields | undefined;
}

/** The PD leg this request plays here, undefined for none, or an invalid-request message. */
export function pickLeg(w: WorkerContext, r: LegRequest): PdLeg | undefined | string {
  const { opts, stats, clock } = w;
  if (opts.runtime === 'vllm') {
    const params = r.kvTransferParams;
    const connector = opts.kvConnector;
    // Without a connector vLLM ignores kv_transfer_params, and so does the simulator.
    if (params === undefined || connector === undefined) return undefined;
    if (params['do_remote_decode'] === true) {
      return new VllmPrefillLeg(
        w.pins,
        connector,
        params,
        r.id,
        r.promptTokens,
        r.finishReason,
        w.side,
      );
    }
    if (params['do_remote_prefill'] === true) {
      return new VllmDecodeLeg(connector, params, w.kv, stats);
    }
    return undefined;
  }
  // SGLang and TokenSpeed outside a PD role ignore the bootstrap fields.
  const rooms = r.rooms;
  if (rooms === undefined || rooms.length === 0 || opts.role === 'regular') return undefined;
  if (opts.role === 'prefill') {
    return new SglangPrefillLeg(w.rooms, rooms, clock, opts.bootstrapTimeoutSecs, stats);
  }
  const targets = roomTargets(rooms, r.bootstrap?.host, r.bootstrap?.port);
  if (typeof targets === 'string') return targets;
  return new SglangDecodeLeg(targets, w.kv, clock, opts.waitingTimeoutSecs, stats);
}

/**
 * An SGLang/TokenSpeed prefill only runs the prompt: it answers the one token its forward pass
 * sampled.
 */
export function answersOneToken(leg: PdLeg | undefined): boolean {
  return leg instanceof SglangPrefillLeg;
}
