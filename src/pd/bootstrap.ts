/**
 * SGLang/TokenSpeed rendezvous fields (pd-protocols.md §1.1-1.4): `bootstrap_host`,
 * `bootstrap_port` (JSON null when unknown) and `bootstrap_room`, identical on both legs, with
 * per-item arrays and a fresh room per item for batches. Rooms are uniform in [0, 2^63-1] and
 * must reach the engine as exact JSON integers; a JS number keeps only 53 bits, so rooms live as
 * BigInt and are spliced into the serialized body as digits.
 */
import { randomBytes } from 'node:crypto';
import type { Endpoint } from '../routing/request-context.js';
import type { JsonObject } from '../server/body.js';

const ROOM_MASK = (1n << 63n) - 1n;

/** A uniform 63-bit room id. */
export function mintRoom(): bigint {
  return randomBytes(8).readBigUInt64BE() & ROOM_MASK;
}

/**
 * How many rendezvous a request needs: one per batch item (pd-protocols §1.3). `/generate`:
 * a `text` list, or `input_ids` as a list of lists; chat: `n > 1`; completions: a prompt array
 * of strings or of token lists (a flat token list is one prompt). Undefined = scalar fields.
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

export function planBootstrap(endpoint: Endpoint, body: JsonObject, prefillUrl: string, port: number | null | undefined): BootstrapPlan {
  const size = batchSize(endpoint, body);
  const count = size ?? 1;
  const rooms = Array.from({ length: count }, mintRoom);
  return { host: bootstrapHost(prefillUrl), port: port ?? null, rooms, batched: size !== undefined };
}

/** Extra top-level fields for one leg (DP ranks), serialized alongside the bootstrap triple. */
export type LegFields = Record<string, number | string>;

const MARKER = `__switchyard_room_${randomBytes(6).toString('hex')}_`;

/**
 * Serializes `body` plus the bootstrap fields and `extra`, writing each room as exact digits.
 * The body is not mutated. Markers are per-process random, so client text cannot collide.
 */
export function serializeWithBootstrap(body: JsonObject, plan: BootstrapPlan, extra: LegFields = {}): Buffer {
  const markers = plan.rooms.map((_, i) => `${MARKER}${i}__`);
  const out: JsonObject = {
    ...body,
    ...extra,
    bootstrap_host: plan.batched ? plan.rooms.map(() => plan.host) : plan.host,
    bootstrap_port: plan.batched ? plan.rooms.map(() => plan.port) : plan.port,
    bootstrap_room: plan.batched ? markers : markers[0],
  };
  let json = JSON.stringify(out);
  plan.rooms.forEach((room, i) => {
    json = json.replace(`"${markers[i] ?? ''}"`, room.toString());
  });
  return Buffer.from(json);
}
