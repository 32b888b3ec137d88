/**
 * Parsing of the routing hint headers (SMG header_utils, smg-core.md §3.5). A malformed hint is
 * a 400 with a clear code, never silently ignored and never forwarded to a worker as-is.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

export const MAX_ROUTING_KEY_BYTES = 128;
export const MAX_ROUTING_TOKENS = 512;
export const MAX_ROUTING_TOKENS_BYTES = 4096;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function bad(message: string): GatewayError {
  return new GatewayError('invalid_routing_header', message);
}

/** The routing key from the first configured header that is present (default `x-smg-routing-key`). */
export function parseRoutingKey(headers: IncomingHttpHeaders, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = single(headers, name.toLowerCase());
    if (value === undefined) continue;
    if (value.length === 0) throw bad(`Header ${name} must not be empty`);
    if (Buffer.byteLength(value) > MAX_ROUTING_KEY_BYTES) {
      throw bad(`Header ${name} is longer than ${MAX_ROUTING_KEY_BYTES} bytes`);
    }
    return value;
  }
  return undefined;
}

export function parseTargetWorker(headers: IncomingHttpHeaders): number | undefined {
  const value = single(headers, 'x-smg-target-worker');
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) {
    throw bad(`Header x-smg-target-worker must be a worker index (a non-negative integer), got '${value}'`);
  }
  return Number(value.trim());
}

export function parseRoutingTokens(headers: IncomingHttpHeaders): number[] | undefined {
  const value = single(headers, 'x-smg-routing-tokens');
  if (value === undefined) return undefined;
  if (Buffer.byteLength(value) > MAX_ROUTING_TOKENS_BYTES) throw bad(`Header x-smg-routing-tokens is longer than ${MAX_ROUTING_TOKENS_BYTES} bytes`);
  const parts = value.split(',');
  if (parts.length > MAX_ROUTING_TOKENS) throw bad(`Header x-smg-routing-tokens has more than ${MAX_ROUTING_TOKENS} ids`);
  return parts.map((p) => {
    const t = p.trim();
    if (!/^\d{1,10}$/.test(t) || Number(t) > 0xffffffff) throw bad(`Header x-smg-routing-tokens has an invalid token id '${p}'`);
    return Number(t);
  });
}
