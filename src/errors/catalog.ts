/**
 * The one catalog of gateway-minted error codes. Each code maps to an HTTP status; the OpenAI
 * `type` field is the status's canonical reason phrase, as SMG writes it. Codes are stable API:
 * clients, dashboards and alerts key on them, so never rename one.
 */
import { STATUS_CODES } from 'node:http';

export const ERROR_CATALOG = {
  // 4xx: bad input, never reaches a worker
  invalid_json: 400,
  invalid_body: 400,
  invalid_routing_header: 400,
  missing_model: 400,
  unauthorized: 401,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  // 5xx: the gateway could not get an answer
  internal_error: 500,
  not_implemented: 501,
  upstream_connection_failed: 502,
  upstream_stream_failed: 502,
  no_workers: 503,
  no_available_workers: 503,
  service_unavailable: 503,
  shutting_down: 503,
  upstream_timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code];
}

/** The OpenAI `type` field: SMG uses the HTTP reason phrase, e.g. "Service Unavailable". */
export function typeOf(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}
