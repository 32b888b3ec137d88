/**
 * The key layout and Lua scripts of the Redis history store (redis-history-store.ts). The keys
 * are SMG's, so an operator finds the same names in Redis:
 *
 *   response:{id}              hash, one stored response
 *   conversation:{id}          hash, one conversation record
 *   conversation:{id}:items    sorted set, item id -> link position (1, 2, 3, … in link order)
 *   item:{id}                  hash, one conversation item
 *
 * A link's position is taken inside Redis by the script that links it (one more than the last
 * position in the set), never from a replica's clock: links made at the same moment through two
 * replicas still get one order, which timestamps in milliseconds (SMG's scores) cannot promise.
 *
 * Every script that writes a key also sets its retention on it, the sorted set included (SMG
 * sets none there, so its sets outlive the conversation they index and are never reclaimed).
 * Scripts run atomically, so a reader never sees half of a write. The page and chain scripts
 * read keys they learn from the data (`item:…` from the set, `response:…` from a link): this
 * works on a standalone Redis, which is what the store's client connects to.
 */
import type { Redis } from 'ioredis';

export const RESPONSE_PREFIX = 'response:';
export const CONVERSATION_PREFIX = 'conversation:';
export const ITEM_PREFIX = 'item:';

export const responseKey = (id: string): string => `${RESPONSE_PREFIX}${id}`;
export const conversationKey = (id: string): string => `${CONVERSATION_PREFIX}${id}`;
export const linksKey = (conversationId: string): string =>
  `${CONVERSATION_PREFIX}${conversationId}:items`;
export const itemKey = (id: string): string => `${ITEM_PREFIX}${id}`;

/**
 * ARGV[1] of every writing script: the retention in seconds, or 0 for none. `keep` applies it;
 * with none it also clears a TTL left by a store that ran with a retention, so "no expiry"
 * holds for every key this store writes.
 */
const RETAIN = `
local ttl = tonumber(ARGV[1])
local function keep(key)
  if ttl > 0 then redis.call('EXPIRE', key, ttl) else redis.call('PERSIST', key) end
end
`;

/**
 * KEYS: hashes to replace. ARGV[2..]: for each key in turn, a count n and n strings (field,
 * value, …). Each hash is deleted first, so a field the new record lacks does not survive.
 */
const PUT_HASHES = `${RETAIN}
local at = 2
for _, key in ipairs(KEYS) do
  local n = tonumber(ARGV[at])
  redis.call('DEL', key)
  redis.call('HSET', key, unpack(ARGV, at + 1, at + n))
  keep(key)
  at = at + n + 1
end
return #KEYS
`;

/** KEYS[1] conversation hash. ARGV[2] metadata JSON. Returns the hash, or nil if it is absent. */
const SET_METADATA = `${RETAIN}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'metadata', ARGV[2])
keep(KEYS[1])
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS[1] link set, KEYS[2] conversation hash, KEYS[3..] the items' hashes. ARGV[2..] the item
 * ids (ARGV[i + 1] is the id of KEYS[i + 2]). Appends the ids not linked yet after the last
 * link, in order; an id linked before keeps its position. The conversation and its items get
 * their retention again too, so a conversation still in use does not lose its record or items
 * while its links live on. Returns how many were linked.
 */
const LINK = `${RETAIN}
local links = KEYS[1]
local last = redis.call('ZRANGE', links, -1, -1, 'WITHSCORES')
local position = 1
if #last == 2 then position = tonumber(last[2]) + 1 end
local added = 0
for i = 2, #ARGV do
  if not redis.call('ZSCORE', links, ARGV[i]) then
    redis.call('ZADD', links, position, ARGV[i])
    position = position + 1
    added = added + 1
  end
end
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then keep(key) end
end
return added
`;

/** KEYS[1] link set. ARGV[2] item id. Returns 1 when it was linked. */
const UNLINK = `${RETAIN}
local removed = redis.call('ZREM', KEYS[1], ARGV[2])
if removed == 1 and redis.call('EXISTS', KEYS[1]) == 1 then keep(KEYS[1]) end
return removed
`;

/**
 * KEYS[1] link set. ARGV[1] item key prefix, [2] 'asc' | 'desc', [3] limit, [4] (optional) the
 * id to start after. Returns {hasMore 0|1, item hash, …}. A link whose item is gone (expired)
 * is skipped, so a page is short only at the end of the list and hasMore is exact. The cursor
 * lookup and the range are one script, so a link made meanwhile cannot shift the page.
 */
const LIST_PAGE = `
local links, prefix, desc, limit = KEYS[1], ARGV[1], ARGV[2] == 'desc', tonumber(ARGV[3])
local start = 0
if #ARGV >= 4 then
  local rank
  if desc then rank = redis.call('ZREVRANK', links, ARGV[4])
  else rank = redis.call('ZRANK', links, ARGV[4]) end
  if not rank then return {0} end
  start = rank + 1
end
local out = {0}
local found = 0
local chunk = limit + 1
while true do
  local ids
  if desc then ids = redis.call('ZREVRANGE', links, start, start + chunk - 1)
  else ids = redis.call('ZRANGE', links, start, start + chunk - 1) end
  for _, id in ipairs(ids) do
    local fields = redis.call('HGETALL', prefix .. id)
    if #fields > 0 then
      if found == limit then
        out[1] = 1
        return out
      end
      found = found + 1
      out[#out + 1] = fields
    end
  end
  if #ids < chunk then return out end
  start = start + chunk
end
`;

/**
 * ARGV[1] response key prefix, [2] the newest response id, [3] max depth. Returns the response
 * hashes newest first, following previous_response_id until a response is missing. A response
 * overwritten to point at a later one could close a loop; the walk stops at the first repeat,
 * so no depth can hold Redis in the script for long.
 */
const CHAIN = `
local prefix, id = ARGV[1], ARGV[2]
local out, seen = {}, {}
for _ = 1, tonumber(ARGV[3]) do
  if seen[id] then break end
  seen[id] = true
  local fields = redis.call('HGETALL', prefix .. id)
  if #fields == 0 then break end
  out[#out + 1] = fields
  id = nil
  for i = 1, #fields, 2 do
    if fields[i] == 'previous_response_id' then id = fields[i + 1] end
  end
  if not id then break end
end
return out
`;

// Scripts whose keys vary in number take the count as their first argument (numberOfKeys
// left out); the others declare theirs.
const SCRIPTS = {
  switchyardHistoryPutHashes: { lua: PUT_HASHES },
  switchyardHistorySetMetadata: { lua: SET_METADATA, numberOfKeys: 1 },
  switchyardHistoryLink: { lua: LINK },
  switchyardHistoryUnlink: { lua: UNLINK, numberOfKeys: 1 },
  switchyardHistoryListPage: { lua: LIST_PAGE, numberOfKeys: 1 },
  switchyardHistoryChain: { lua: CHAIN, numberOfKeys: 0 },
} as const;

type Arg = string | number;
type ScriptCommands = Record<keyof typeof SCRIPTS, (...args: Arg[]) => Promise<unknown>>;

/** A hash as field, value pairs: what HGETALL answers inside a script. */
export type FlatHash = readonly string[];

/** One hash to write: its key and its fields. */
export interface HashWrite {
  readonly key: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** Typed calls of the scripts on one connection. Each rejects when Redis does not answer. */
export class HistoryScripts {
  readonly #redis: ScriptCommands;

  /** @param ttlSeconds the retention of every key written, 0 for none */
  constructor(
    redis: Redis,
    private readonly ttlSeconds: number,
  ) {
    // ioredis sends EVALSHA and falls back to EVAL on NOSCRIPT (the script did not run), so a
    // restarted Redis with an empty script cache needs no reload step.
    for (const [name, def] of Object.entries(SCRIPTS)) redis.defineCommand(name, def);
    // defineCommand adds the methods at run time; this is their shape.
    this.#redis = redis as unknown as ScriptCommands;
  }

  /** Replaces every hash at once. */
  async putHashes(writes: readonly HashWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const args: Arg[] = [writes.length, ...writes.map((w) => w.key), this.ttlSeconds];
    for (const { fields } of writes) {
      const flat = Object.entries(fields).flat();
      args.push(flat.length, ...flat);
    }
    await this.#redis.switchyardHistoryPutHashes(...args);
  }

  /** The conversation's hash after the update, undefined when there is no such conversation. */
  async setMetadata(conversationId: string, metadataJson: string): Promise<FlatHash | undefined> {
    const reply = await this.#redis.switchyardHistorySetMetadata(
      conversationKey(conversationId),
      this.ttlSeconds,
      metadataJson,
    );
    return reply === null ? undefined : flatHash(reply);
  }

  async link(conversationId: string, itemIds: readonly string[]): Promise<void> {
    if (itemIds.length === 0) return;
    const keys = [
      linksKey(conversationId),
      conversationKey(conversationId),
      ...itemIds.map(itemKey),
    ];
    await this.#redis.switchyardHistoryLink(keys.length, ...keys, this.ttlSeconds, ...itemIds);
  }

  async unlink(conversationId: string, itemId: string): Promise<boolean> {
    const reply = await this.#redis.switchyardHistoryUnlink(
      linksKey(conversationId),
      this.ttlSeconds,
      itemId,
    );
    return Number(reply) === 1;
  }

  async listPage(
    conversationId: string,
    order: 'asc' | 'desc',
    limit: number,
    after: string | undefined,
  ): Promise<{ hashes: FlatHash[]; hasMore: boolean }> {
    const args: Arg[] = [linksKey(conversationId), ITEM_PREFIX, order, limit];
    if (after !== undefined) args.push(after);
    const reply = await this.#redis.switchyardHistoryListPage(...args);
    if (!Array.isArray(reply) || reply.length === 0) throw new TypeError('unexpected page reply');
    const [more, ...hashes] = reply as unknown[];
    return { hashes: hashes.map(flatHash), hasMore: Number(more) === 1 };
  }

  /** The response hashes, newest first. */
  async chain(id: string, maxDepth: number): Promise<FlatHash[]> {
    const reply = await this.#redis.switchyardHistoryChain(RESPONSE_PREFIX, id, maxDepth);
    if (!Array.isArray(reply)) throw new TypeError('unexpected chain reply');
    return (reply as unknown[]).map(flatHash);
  }
}

function flatHash(reply: unknown): FlatHash {
  if (!Array.isArray(reply) || !reply.every((v): v is string => typeof v === 'string')) {
    throw new TypeError('unexpected hash reply');
  }
  return reply;
}
