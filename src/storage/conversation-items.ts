/**
 * Conversation items as the history store keeps them and the Conversations API shows them, with
 * SMG's ids and JSON: shared by the conversation routes and by a Responses request that stores its
 * input and output in a `conversation`.
 *
 * SMG keeps an item as columns (`type`, `role`, `status`) plus a `content` blob and rebuilds the
 * item's JSON from them on every read; this module builds that same JSON once, when the item is
 * stored, so every backend stores and answers exactly what a client reads back.
 */
import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../util/json.js';
import type { StoredItem } from './history-store.js';

/** 25 random bytes as 50 lowercase hex digits: the tail of every SMG conversation and item id. */
function randomHex(): string {
  return randomBytes(25).toString('hex');
}

/** A new conversation id: `conv_` and 50 hex digits, as SMG's. */
export function newConversationId(): string {
  return `conv_${randomHex()}`;
}

const ITEM_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg',
  reasoning: 'rs',
  mcp_call: 'mcp',
  mcp_list_tools: 'mcpl',
  function_call: 'fc',
};

/**
 * A new item id for an item of `type`: SMG's prefix (`msg`, `rs`, `mcp`, `mcpl`, `fc`; any other
 * type its first three characters, `itm` for an empty type), `_`, and 50 hex digits.
 */
export function newItemId(type: string): string {
  const prefix = ITEM_PREFIXES[type] ?? (Array.from(type).slice(0, 3).join('') || 'itm');
  return `${prefix}_${randomHex()}`;
}

/**
 * The fields SMG keeps of these types, besides `id`, `type`, `role` and `status`; any other field
 * of such an item is dropped.
 */
const TYPE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  mcp_call: ['name', 'arguments', 'output', 'server_label', 'approval_request_id', 'error'],
  mcp_list_tools: ['tools', 'server_label', 'error'],
  function_call: ['call_id', 'name', 'arguments', 'output'],
  function_call_output: ['call_id', 'output'],
};

/** Kept in their own columns by SMG, so never copied from the rest of an item. */
const COLUMNS = new Set(['id', 'type', 'role', 'status']);

/** The item's type: its `type` when that is a string, else `message` (a bare `{role, content}`). */
export function itemTypeOf(item: JsonObject): string {
  return typeof item.type === 'string' ? item.type : 'message';
}

/**
 * An item ready to store: its own non-empty string `id` kept, else a new one for its type, and its
 * JSON normalised as SMG's persistence does: `{id, type, role?, …, status}` where a message keeps
 * `content` (`[]` when absent, a string as it came) and `phase`; `mcp_call`, `mcp_list_tools`,
 * `function_call` and `function_call_output` keep their own fields only; any other type keeps
 * every field it came with, except an `image_generation_call`'s base64 `result`, which replay only
 * references by id. A missing `status` is `completed`.
 */
export function storedItemOf(item: JsonObject, createdAt: number, responseId?: string): StoredItem {
  const type = itemTypeOf(item);
  const id = typeof item.id === 'string' && item.id !== '' ? item.id : newItemId(type);
  const json: JsonObject = { id, type };
  if (typeof item.role === 'string') json.role = item.role;
  const fields = TYPE_FIELDS[type];
  if (fields !== undefined) {
    for (const field of fields) if (item[field] !== undefined) json[field] = item[field];
  } else if (type === 'message') {
    json.content = item.content ?? [];
    if (item.phase !== undefined && item.phase !== null) json.phase = item.phase;
  } else {
    for (const [key, value] of Object.entries(item)) {
      if (COLUMNS.has(key) || value === undefined) continue;
      if (type === 'image_generation_call' && key === 'result') continue;
      json[key] = value;
    }
  }
  json.status = typeof item.status === 'string' ? item.status : 'completed';
  return { id, item: json, responseId, createdAt };
}

/** An item as a list answers it: its JSON with `created_at` (Unix seconds). */
export function itemJson(stored: StoredItem): JsonObject {
  return { ...stored.item, created_at: stored.createdAt };
}
