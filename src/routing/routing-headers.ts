/**
 * Parsing of the routing hint headers, with SMG's rules (header_utils.rs): hints affect placement
 * only, so a malformed or over-cap value is never an error. It is dropped (the request is routed
 * as if the header were absent) and reported through `onIgnored`, which the gateway counts in
 * `smg_routing_hint_ignored_total{header}`. The one exception is `x-smg-target-worker`: SMG
 * treats an index it cannot parse as a pin that matches no worker (`target_worker_miss`), so a
 * pinned client sees the failure instead of landing on some other worker.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { usableRoutingKey } from '../policies/routing-key.js';

export const MAX_ROUTING_TOKENS = 512;
export const MAX_ROUTING_TOKENS_BYTES = 4096;
const MAX_TOKEN_ID = 0xffffffff;

/** The index a malformed `x-smg-target-worker` stands for: no candidate has it, so the pin misses. */
export const UNMATCHED_TARGET_INDEX = -1;

/** Called with the header's name when its value is dropped. */
export type HintIgnored = (header: string) => void;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The routing key from the first configured header (default `x-smg-routing-key`) whose value is
 * usable; an unusable value falls through to the next name, as SMG's `resolve_routing_key`.
 */
export function parseRoutingKey(
  headers: IncomingHttpHeaders,
  names: readonly string[],
  onIgnored: HintIgnored,
): string | undefined {
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = single(headers, lower);
    if (value === undefined) continue;
    const key = usableRoutingKey(value);
    if (key !== undefined) return key;
    onIgnored(lower);
  }
  return undefined;
}

/** The `x-smg-target-worker` index: a decimal `usize` as Rust parses it (an optional `+`). */
export function parseTargetWorker(
  headers: IncomingHttpHeaders,
  onIgnored: HintIgnored,
): number | undefined {
  const value = single(headers, 'x-smg-target-worker');
  if (value === undefined) return undefined;
  // An empty value is no pin at all (SMG filters empty header values before parsing).
  if (value === '') {
    onIgnored('x-smg-target-worker');
    return undefined;
  }
  if (/^\+?\d+$/.test(value)) return Number(value);
  onIgnored('x-smg-target-worker');
  return UNMATCHED_TARGET_INDEX;
}

/** `x-smg-routing-tokens`: comma-separated decimal u32 ids, no spaces, at most 512 ids / 4096 bytes. */
export function parseRoutingTokens(
  headers: IncomingHttpHeaders,
  onIgnored: HintIgnored,
): number[] | undefined {
  const value = single(headers, 'x-smg-routing-tokens');
  if (value === undefined) return undefined;
  const tokens = tokenIds(value);
  if (tokens === undefined) onIgnored('x-smg-routing-tokens');
  return tokens;
}

function tokenIds(value: string): number[] | undefined {
  if (value.length === 0 || value.length > MAX_ROUTING_TOKENS_BYTES) return undefined;
  const parts = value.split(',');
  if (parts.length > MAX_ROUTING_TOKENS) return undefined;
  const ids: number[] = [];
  for (const part of parts) {
    if (!/^\d+$/.test(part)) return undefined;
    const id = Number(part);
    if (id > MAX_TOKEN_ID) return undefined;
    ids.push(id);
  }
  return ids;
}
