/**
 * SGLang/TokenSpeed rendezvous fields: `bootstrap_host`, `bootstrap_port` (JSON null when unknown)
 * and `bootstrap_room`, identical on both legs, with per-item arrays and a fresh room per item for
 * batches. Rooms are uniform in [0, 2^63-1] and must reach the engine as exact JSON integers; a JS
 * number keeps only 53 bits, so rooms live as BigInt and are written into the serialized body as
 * digits.
 */
import { randomFillSync } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.js';
import type { Endpoint } from '../routing/endpoint.js';
import type { JsonObject } from '../util/json.js';
import { MAX_BATCH_ITEMS } from '../routing/request-limits.js';

const ROOM_MASK = (1n << 63n) - 1n;

/**
 * Random bytes for rooms, drawn 512 rooms at a time: a `randomBytes(8)` per room cost about
 * 12 µs of the gateway's CPU per PD request in bench/overhead's profile (`pd-small`).
 */
const roomPool = Buffer.alloc(8 * 512);
let roomOffset = roomPool.length;

/** A uniform 63-bit room id. */
export function mintRoom(): bigint {
  if (roomOffset === roomPool.length) {
    randomFillSync(roomPool);
    roomOffset = 0;
  }
  const room = roomPool.readBigUInt64BE(roomOffset) & ROOM_MASK;
  roomOffset += 8;
  return room;
}

/**
 * How many rendezvous a request needs: one per batch item. `/generate`: a `text` list, or
 * `input_ids` as a list of lists; chat: `n > 1`; completions: a prompt array of strings or of token
 * lists (a flat token list is one prompt). Undefined = scalar fields.
 */
export function batchSize(endpoint: Endpoint, body: JsonObject): number | undefined {
  switch (endpoint) {
    case 'generate': {
      if (Array.isArray(body.text)) return body.text.length;
      const ids = body.input_ids;
      if (Array.isArray(ids) && Array.isArray(ids[0])) return ids.length;
      return undefined;
    }
    case 'chat': {
      const n = body.n;
      return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : undefined;
    }
    case 'completion': {
      const p = body.prompt;
      if (!Array.isArray(p) || p.length === 0) return undefined;
      return typeof p[0] === 'number' ? undefined : p.length;
    }
    case 'embeddings':
    case 'rerank':
    case 'responses':
    case 'messages':
      return undefined;
  }
}

export interface BootstrapPlan {
  host: string;
  port: number | null;
  /** One room per item; a single room for scalar requests. */
  rooms: bigint[];
  /** True when the fields are arrays (batched request). */
  batched: boolean;
}

/** The prefill's bootstrap host as mini_lb sends it: IPv6 literals keep their brackets. */
export function bootstrapHost(prefillUrl: string): string {
  return new URL(prefillUrl).hostname;
}

export function planBootstrap(
  endpoint: Endpoint,
  body: JsonObject,
  prefillUrl: string,
  port: number | null | undefined,
): BootstrapPlan {
  const size = batchSize(endpoint, body);
  const count = size ?? 1;
  // The body was validated at the edge; this keeps a plan from ever being sized by an
  // unchecked value (one room and one array entry per item).
  if (count < 1 || count > MAX_BATCH_ITEMS) {
    throw new GatewayError(
      'invalid_body',
      `This request needs ${count} rendezvous rooms; it must need from 1 to ${MAX_BATCH_ITEMS}`,
    );
  }
  const rooms = Array.from({ length: count }, mintRoom);
  return {
    host: bootstrapHost(prefillUrl),
    port: port ?? null,
    rooms,
    batched: size !== undefined,
  };
}

/** Extra top-level fields for one leg (DP ranks), serialized alongside the bootstrap triple. */
export type LegFields = Record<string, number | string>;

const BOOTSTRAP_FIELDS = ['bootstrap_host', 'bootstrap_port', 'bootstrap_room'] as const;

/** `count` copies of one JSON value, comma separated, built in one pass. */
function repeated(json: string, count: number): string {
  return new Array<string>(count).fill(json).join(',');
}

/**
 * Serializes `body` plus `extra` and the bootstrap fields, in time linear in the body and the
 * batch: the body is serialized once without the triple, and the triple is appended as text,
 * rooms as their exact decimal digits (BigInt, never through a 53-bit number). A client's own
 * `bootstrap_*` fields are dropped so the engine sees only the gateway's. `body` is not mutated.
 */
export function serializeWithBootstrap(
  body: JsonObject,
  plan: BootstrapPlan,
  extra: LegFields = {},
): Buffer {
  const rest: JsonObject = { ...body, ...extra };
  for (const field of BOOTSTRAP_FIELDS) delete rest[field];
  const head = JSON.stringify(rest);
  const host = JSON.stringify(plan.host);
  const port = plan.port === null ? 'null' : String(plan.port);
  const count = plan.rooms.length;
  const triple = plan.batched
    ? `"bootstrap_host":[${repeated(host, count)}],"bootstrap_port":[${repeated(port, count)}],"bootstrap_room":[${plan.rooms.join(',')}]`
    : `"bootstrap_host":${host},"bootstrap_port":${port},"bootstrap_room":${String(plan.rooms[0] ?? 0n)}`;
  // `head` is "{...}": reopen it, add the triple, close it again.
  const separator = head === '{}' ? '' : ',';
  return Buffer.from(`${head.slice(0, -1)}${separator}${triple}}`);
}
