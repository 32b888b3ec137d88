/**
 * What the client gets when a PD leg fails. The upstream status keeps its class (a prefill 429
 * stays 429 and a 504 stays 504; SMG's parallel path turned both into 500), with a
 * `prefill_*` / `decode_*` code naming the leg and the kind.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { ErrorCode } from '../errors/catalog.js';

export type PdLeg = 'prefill' | 'decode';

const KIND_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  408: 'request_timeout',
  429: 'too_many_requests',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'gateway_timeout',
};

/** A non-2xx answer from a leg, with the upstream message when it sent one. */
export function legStatusError(leg: PdLeg, status: number, upstreamBody: string): GatewayError {
  const kind = KIND_BY_STATUS[status] ?? 'error';
  const code = `${leg}_${kind}` as ErrorCode;
  let message = upstreamBody.slice(0, 500);
  try {
    const parsed = JSON.parse(upstreamBody) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    const m =
      typeof parsed.error === 'object' ? parsed.error.message : (parsed.error ?? parsed.message);
    if (typeof m === 'string') message = m;
  } catch {
    // keep the raw text
  }
  return new GatewayError(code, `${leg} worker answered ${status}: ${message}`, { status });
}

/** A leg that could not be reached or did not answer in time. */
export function legTransportError(
  leg: PdLeg,
  kind: 'timeout' | 'connection',
  detail: string,
): GatewayError {
  return kind === 'timeout'
    ? new GatewayError(`${leg}_gateway_timeout`, `${leg} worker did not answer in time: ${detail}`)
    : new GatewayError(`${leg}_request_failed`, `${leg} worker could not be reached: ${detail}`);
}

/**
 * A leg that sent a 2xx head and then failed before any of its body reached the client: the
 * gateway can still answer (or retry), so this is a leg failure, not a mid-stream one.
 */
export function legBodyError(
  leg: PdLeg,
  kind: 'timeout' | 'connection',
  detail: string,
): GatewayError {
  return kind === 'timeout'
    ? new GatewayError(
        `${leg}_gateway_timeout`,
        `${leg} worker did not finish its answer in time: ${detail}`,
      )
    : new GatewayError(
        `${leg}_read_failed`,
        `${leg} worker failed before its answer reached the client: ${detail}`,
      );
}
