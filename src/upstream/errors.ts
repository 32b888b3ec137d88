/** Maps upstream transport failures to gateway errors with SMG's stable codes. */
import { GatewayError } from '../errors/gateway-error.js';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Raised through the abort signal when the gateway's own request deadline passes. */
export class UpstreamDeadlineError extends Error {
  override name = 'UpstreamDeadlineError';
}

/**
 * A worker's answer outgrew what the gateway itself will buffer (`readAll`'s limit, in
 * body-source.ts). The worker did nothing wrong and a retry would only regenerate the same
 * answer, so this is never classified as a transport failure.
 */
export class UpstreamBodyTooLargeError extends Error {
  override name = 'UpstreamBodyTooLargeError';

  constructor(readonly limit: number) {
    super(`upstream body larger than ${limit} bytes`);
  }
}

export type TransportFailure = 'timeout' | 'connection';

export function classifyTransportError(err: unknown): TransportFailure {
  if (err instanceof UpstreamDeadlineError) return 'timeout';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'timeout';
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (cause instanceof UpstreamDeadlineError) return 'timeout';
  return 'connection';
}

export function transportGatewayError(err: unknown, workerUrl: string): GatewayError {
  const detail = err instanceof Error ? err.message : String(err);
  return classifyTransportError(err) === 'timeout'
    ? new GatewayError(
        'call_upstream_timeout',
        `Worker ${workerUrl} did not answer in time: ${detail}`,
      )
    : new GatewayError(
        'call_upstream_connection_failed',
        `Request to worker ${workerUrl} failed: ${detail}`,
      );
}

/** The error a client sees when the worker fails after the response head was relayed. */
export function midStreamGatewayError(err: unknown, workerUrl: string): GatewayError {
  const detail = err instanceof Error ? err.message : String(err);
  return classifyTransportError(err) === 'timeout'
    ? new GatewayError(
        'call_upstream_timeout',
        `Worker ${workerUrl} timed out mid-response: ${detail}`,
      )
    : new GatewayError(
        'upstream_stream_failed',
        `Worker ${workerUrl} failed mid-response: ${detail}`,
      );
}
