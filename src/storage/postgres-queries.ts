/**
 * The Postgres history store's statements and the mapping between its rows and the store's
 * records. Every value travels as a parameter; the only text put together here is fixed SQL.
 * Times are TIMESTAMPTZ in the tables (as SMG's) and Unix seconds in the records: written with
 * `to_timestamp`, read back with `EXTRACT(EPOCH …)` as a float8, which pg hands over as a number.
 */
import { isJsonObject, type JsonObject } from '../util/json.js';
import type { Conversation, StoredItem, StoredResponse } from './history-store.js';

const RESPONSE_COLUMNS = `id, conversation_id, previous_response_id, input,
  EXTRACT(EPOCH FROM created_at)::float8 AS created_at, safety_identifier, model, raw_response`;

export const PUT_RESPONSE = `
  INSERT INTO responses (id, conversation_id, previous_response_id, input, created_at,
                         safety_identifier, model, raw_response)
  VALUES ($1, $2, $3, $4::json, to_timestamp($5), $6, $7, $8::json)
  ON CONFLICT (id) DO UPDATE SET
    conversation_id = EXCLUDED.conversation_id,
    previous_response_id = EXCLUDED.previous_response_id,
    input = EXCLUDED.input,
    created_at = EXCLUDED.created_at,
    safety_identifier = EXCLUDED.safety_identifier,
    model = EXCLUDED.model,
    raw_response = EXCLUDED.raw_response`;

export const GET_RESPONSE = `SELECT ${RESPONSE_COLUMNS} FROM responses WHERE id = $1`;
export const DELETE_RESPONSE = `DELETE FROM responses WHERE id = $1`;

/**
 * `$1` and the responses it continued, newest first from the database, at most `$2` of them. The
 * depth bound also ends a chain that loops back on itself.
 */
export const RESPONSE_CHAIN = `
  WITH RECURSIVE chain AS (
    SELECT ${RESPONSE_COLUMNS}, 1 AS depth FROM responses WHERE id = $1
    UNION ALL
    SELECT r.id, r.conversation_id, r.previous_response_id, r.input,
           EXTRACT(EPOCH FROM r.created_at)::float8, r.safety_identifier, r.model, r.raw_response,
           c.depth + 1
      FROM responses r JOIN chain c ON r.id = c.previous_response_id
     WHERE c.depth < $2
  )
  SELECT * FROM chain ORDER BY depth DESC`;

const CONVERSATION_COLUMNS = `id, EXTRACT(EPOCH FROM created_at)::float8 AS created_at, metadata`;

export const CREATE_CONVERSATION = `
  INSERT INTO conversations (id, created_at, metadata) VALUES ($1, to_timestamp($2), $3::json)
  ON CONFLICT (id) DO UPDATE SET created_at = EXCLUDED.created_at, metadata = EXCLUDED.metadata`;
export const GET_CONVERSATION = `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`;
export const SET_CONVERSATION_METADATA = `
  UPDATE conversations SET metadata = $2::json WHERE id = $1 RETURNING ${CONVERSATION_COLUMNS}`;
export const DELETE_CONVERSATION = `DELETE FROM conversations WHERE id = $1`;

/** One statement for a batch: each column as an array parameter, unnested row by row. */
export const PUT_ITEMS = `
  INSERT INTO conversation_items (id, response_id, item_type, role, content, status, created_at)
  SELECT id, response_id, item_type, role, content::json, status, to_timestamp(created_at)
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::float8[]) AS t(id, response_id, item_type, role, content, status, created_at)
  ON CONFLICT (id) DO UPDATE SET
    response_id = EXCLUDED.response_id,
    item_type = EXCLUDED.item_type,
    role = EXCLUDED.role,
    content = EXCLUDED.content,
    status = EXCLUDED.status,
    created_at = EXCLUDED.created_at`;

const ITEM_COLUMNS = `i.id, i.response_id, i.content,
  EXTRACT(EPOCH FROM i.created_at)::float8 AS created_at`;

export const GET_ITEM = `SELECT ${ITEM_COLUMNS} FROM conversation_items i WHERE i.id = $1`;

/**
 * The first key of the per-conversation link lock (`pg_advisory_xact_lock(int4, int4)`, the
 * second key being a hash of the conversation id). Links to one conversation are made one
 * transaction at a time, so the sequence numbers they draw rise in the order they commit: a
 * reader paging with `after` never sees a later link before an earlier one is visible.
 */
export const LINK_LOCK_CLASS = 0x5359_4c4b; // "SYLK"
export const LOCK_CONVERSATION = `SELECT pg_advisory_xact_lock($1::int4, hashtext($2))`;

/**
 * Appends `$2` in array order (the identity column draws its numbers as the ordered rows are
 * inserted); an item already linked keeps its row and so its place.
 */
export const LINK_ITEMS = `
  INSERT INTO conversation_item_links (conversation_id, item_id, added_at)
  SELECT $1, item_id, now() FROM unnest($2::text[]) WITH ORDINALITY AS t(item_id, ord)
   ORDER BY ord
  ON CONFLICT (conversation_id, item_id) DO NOTHING`;

export const IS_LINKED = `
  SELECT 1 FROM conversation_item_links WHERE conversation_id = $1 AND item_id = $2`;
export const UNLINK_ITEM = `
  DELETE FROM conversation_item_links WHERE conversation_id = $1 AND item_id = $2`;

/**
 * A page of a conversation's items in link order: `$1` the conversation, `$2` the row limit and,
 * with `after`, `$3` the item to start after (not linked: the subquery is NULL, so no rows).
 */
export function listItemsSql(order: 'asc' | 'desc', after: boolean): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const cmp = order === 'asc' ? '>' : '<';
  const start = after
    ? `AND l.seq ${cmp} (SELECT seq FROM conversation_item_links
                          WHERE conversation_id = $1 AND item_id = $3)`
    : '';
  return `SELECT ${ITEM_COLUMNS}
            FROM conversation_item_links l JOIN conversation_items i ON i.id = l.item_id
           WHERE l.conversation_id = $1 ${start}
           ORDER BY l.seq ${dir} LIMIT $2`;
}

/** The row shapes the SELECTs above answer (json columns arrive parsed). */
export interface ResponseRow {
  id: string;
  conversation_id: string | null;
  previous_response_id: string | null;
  input: unknown;
  created_at: number;
  safety_identifier: string | null;
  model: string | null;
  raw_response: unknown;
}

export interface ConversationRow {
  id: string;
  created_at: number | null;
  metadata: unknown;
}

export interface ItemRow {
  id: string;
  response_id: string | null;
  content: unknown;
  created_at: number | null;
}

export function responseParams(r: StoredResponse): unknown[] {
  return [
    r.id,
    r.conversationId ?? null,
    r.previousResponseId ?? null,
    JSON.stringify(r.input),
    r.createdAt,
    r.safetyIdentifier ?? null,
    r.model ?? null,
    JSON.stringify(r.response),
  ];
}

export function responseFromRow(row: ResponseRow): StoredResponse {
  return {
    id: row.id,
    ...optional('previousResponseId', row.previous_response_id),
    ...optional('conversationId', row.conversation_id),
    input: Array.isArray(row.input) ? row.input.filter(isJsonObject) : [],
    response: isJsonObject(row.raw_response) ? row.raw_response : {},
    ...optional('model', row.model),
    ...optional('safetyIdentifier', row.safety_identifier),
    createdAt: row.created_at,
  };
}

export function conversationFromRow(row: ConversationRow): Conversation {
  // SMG writes NULL for a conversation created without metadata.
  return {
    id: row.id,
    createdAt: row.created_at ?? 0,
    metadata: isJsonObject(row.metadata) ? row.metadata : {},
  };
}

/** The seven column arrays of PUT_ITEMS, for items already made unique by id. */
export function itemColumns(items: readonly StoredItem[]): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], [], []];
  for (const { id, item, responseId, createdAt } of items) {
    cols[0]!.push(id);
    cols[1]!.push(responseId ?? null);
    cols[2]!.push(stringField(item, 'type') ?? '');
    cols[3]!.push(stringField(item, 'role') ?? null);
    cols[4]!.push(JSON.stringify(item));
    cols[5]!.push(stringField(item, 'status') ?? null);
    cols[6]!.push(createdAt);
  }
  return cols;
}

export function itemFromRow(row: ItemRow): StoredItem {
  return {
    id: row.id,
    item: isJsonObject(row.content) ? row.content : {},
    ...optional('responseId', row.response_id),
    createdAt: row.created_at ?? 0,
  };
}

function stringField(item: JsonObject, key: string): string | undefined {
  const v = item[key];
  return typeof v === 'string' ? v : undefined;
}

/** `{ [key]: value }` when the column holds a value, `{}` for NULL: no undefined keys. */
function optional<K extends string>(key: K, value: string | null): { [P in K]?: string } {
  return value === null ? {} : ({ [key]: value } as { [P in K]: string });
}
