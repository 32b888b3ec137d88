/**
 * How the history records are laid out in their Redis hashes (field names as SMG's where the
 * meaning is the same), and back. JSON values are stored as JSON text, which JSON.parse gives
 * back exactly (JSON.stringify writes a lone surrogate as an escape, so the UTF-8 that carries
 * the text to Redis loses nothing). Times are Unix seconds as decimal text, where SMG writes
 * RFC 3339: the interface's seconds then come back as they went in. Optional fields are left out
 * of the hash when undefined.
 */
import type { Conversation, StoredItem, StoredResponse } from './history-store.js';
import { isJsonObject, type JsonObject } from '../util/json.js';

type Fields = Record<string, string>;

/** A record in Redis that is not one this store wrote: it cannot be answered from. */
export class CorruptRecordError extends Error {
  constructor(key: string, why: string) {
    super(`${key}: ${why}`);
    this.name = 'CorruptRecordError';
  }
}

export function responseFields(r: StoredResponse): Fields {
  const fields: Fields = {
    id: r.id,
    input: JSON.stringify(r.input),
    raw_response: JSON.stringify(r.response),
    created_at: String(r.createdAt),
  };
  optional(fields, 'previous_response_id', r.previousResponseId);
  optional(fields, 'conversation_id', r.conversationId);
  optional(fields, 'model', r.model);
  optional(fields, 'safety_identifier', r.safetyIdentifier);
  return fields;
}

export function conversationFields(c: Conversation): Fields {
  return { id: c.id, created_at: String(c.createdAt), metadata: JSON.stringify(c.metadata) };
}

export function itemFields(i: StoredItem): Fields {
  const fields: Fields = {
    id: i.id,
    item: JSON.stringify(i.item),
    created_at: String(i.createdAt),
  };
  optional(fields, 'response_id', i.responseId);
  return fields;
}

export function toResponse(key: string, h: Fields): StoredResponse {
  const input = json(key, h, 'input');
  if (!Array.isArray(input) || !input.every(isJsonObject)) {
    throw new CorruptRecordError(key, 'input is not an array of objects');
  }
  return {
    id: text(key, h, 'id'),
    previousResponseId: h['previous_response_id'],
    conversationId: h['conversation_id'],
    input,
    response: object(key, h, 'raw_response'),
    model: h['model'],
    safetyIdentifier: h['safety_identifier'],
    createdAt: seconds(key, h),
  };
}

export function toConversation(key: string, h: Fields): Conversation {
  return {
    id: text(key, h, 'id'),
    createdAt: seconds(key, h),
    metadata: object(key, h, 'metadata'),
  };
}

export function toItem(key: string, h: Fields): StoredItem {
  return {
    id: text(key, h, 'id'),
    item: object(key, h, 'item'),
    responseId: h['response_id'],
    createdAt: seconds(key, h),
  };
}

/** Field, value pairs (a hash read inside a script) as a record. */
export function fromPairs(pairs: readonly string[]): Fields {
  const fields: Fields = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
  return fields;
}

function optional(fields: Fields, name: string, value: string | undefined): void {
  if (value !== undefined) fields[name] = value;
}

function text(key: string, h: Fields, name: string): string {
  const value = h[name];
  if (value === undefined) throw new CorruptRecordError(key, `no ${name} field`);
  return value;
}

function seconds(key: string, h: Fields): number {
  const value = Number(text(key, h, 'created_at'));
  if (!Number.isFinite(value)) throw new CorruptRecordError(key, 'created_at is not a number');
  return value;
}

function json(key: string, h: Fields, name: string): unknown {
  try {
    return JSON.parse(text(key, h, name)) as unknown;
  } catch (err) {
    if (err instanceof CorruptRecordError) throw err;
    throw new CorruptRecordError(key, `${name} is not JSON`);
  }
}

function object(key: string, h: Fields, name: string): JsonObject {
  const value = json(key, h, name);
  if (!isJsonObject(value)) throw new CorruptRecordError(key, `${name} is not a JSON object`);
  return value;
}
