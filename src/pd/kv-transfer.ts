/**
 * vLLM KV-connector handling: the connector mode comes from the selected prefill worker's
 * registration (`kv_connector`, `kv_engine_id`); NIXL params are returned by the prefill and
 * relayed verbatim; Mooncake params are minted by the gateway.
 */
import { uuidv7 } from '../util/uuid7.js';
import type { Worker } from '../workers/worker.js';
import type { KvConnectorMode } from './skip-prefill.js';

/** SGLang's default bootstrap port, used for Mooncake when the worker names none. */
export const DEFAULT_BOOTSTRAP_PORT = 8998;

export interface ConnectorPlan {
  mode: KvConnectorMode;
  /** Mooncake only: `http://host:port` of the prefill's bootstrap server. */
  bootstrapAddr?: string;
  /** Mooncake only: the prefill engine id; undefined = unknown (no minting, decode recomputes). */
  engineId?: string;
}

export function connectorFor(prefill: Worker): ConnectorPlan {
  const connector = prefill.kvConnector ?? prefill.labels.kv_connector;
  if (connector === 'NixlConnector') return { mode: 'nixl' };
  if (connector === 'MooncakeConnector') {
    const host = new URL(prefill.url).hostname;
    const port = prefill.bootstrapPort ?? DEFAULT_BOOTSTRAP_PORT;
    const engineId = effectiveEngineId(prefill);
    return {
      mode: 'mooncake',
      bootstrapAddr: `http://${host}:${port}`,
      ...(engineId ? { engineId } : {}),
    };
  }
  return { mode: 'passthrough' };
}

/**
 * Under DP each engine core suffixes its id as `{base}_dp{rank}`, so an id is only known for a
 * pinned rank; an unparseable `dp_size` fails closed (no id: decode recomputes), as SMG.
 */
function effectiveEngineId(w: Worker): string | undefined {
  const base = w.kvEngineId ?? w.labels.kv_engine_id;
  if (!base) return undefined;
  const dpLabel = w.labels.dp_size;
  const dpSize = w.dpSize ?? (dpLabel === undefined ? 1 : Number(dpLabel));
  if (!Number.isInteger(dpSize) || dpSize < 1) return undefined;
  if (dpSize === 1) return base;
  return w.dpRank === undefined ? undefined : `${base}_dp${w.dpRank}`;
}

export const NIXL_PREFILL_PARAMS = { do_remote_decode: true, do_remote_prefill: false } as const;

export function mintTransferId(): string {
  return `xfer-${uuidv7()}`;
}

export function mooncakePrefillParams(transferId: string): Record<string, unknown> {
  return { do_remote_decode: true, do_remote_prefill: false, transfer_id: transferId };
}

export function mooncakeDecodeParams(
  transferId: string,
  plan: ConnectorPlan,
): Record<string, unknown> {
  return {
    do_remote_decode: false,
    do_remote_prefill: true,
    transfer_id: transferId,
    remote_engine_id: plan.engineId,
    // The decode appends `/query` to this address, so the scheme is required.
    remote_bootstrap_addr: plan.bootstrapAddr,
  };
}
