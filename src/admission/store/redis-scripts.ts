/**
 * The Lua scripts behind the Redis admission store, one per operation (take, give back, renew,
 * adopt), and the key layout they share. Each pool key K lives in three structures:
 *
 *   <prefix>{K}:leases   sorted set, ticket id -> lease expiry (ms of Redis server time)
 *   <prefix>{K}:units    hash, ticket id -> units the ticket still holds
 *   <prefix>{K}:total    string, the sum of the hash (kept so a take reads one value)
 *
 * The `{K}` hash tag puts all three in one Redis Cluster slot, so a script may touch them
 * together. Every script first reaps tickets whose lease has lapsed (a crashed replica's claims
 * end there), using the server's clock (`TIME`) so replicas' clocks never matter, and keeps
 * `total == sum(units)` as an invariant. When units free it publishes `<origin> <total> <K>` on
 * the store's channel (K last, since it may hold spaces).
 *
 * Give-back and adopt name the units a ticket KEEPS, not the units it returns, and only ever
 * lower a ticket that exists: applying them twice, late or out of order leaves the same state, so
 * a retried or resent give-back can never release a unit twice.
 */
import type { Redis } from 'ioredis';

/** ARGV[1..4] of every script: channel, origin, pool key, lease ms. Script arguments follow. */
const PRELUDE = `
local leases, held, totalKey = KEYS[1], KEYS[2], KEYS[3]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local total = tonumber(redis.call('GET', totalKey) or '0')
local freed = 0
local lapsed = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
for _, id in ipairs(lapsed) do
  local units = tonumber(redis.call('HGET', held, id) or '0')
  total = total - units
  freed = freed + units
  redis.call('HDEL', held, id)
end
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end

local function finish()
  local last = redis.call('ZRANGE', leases, -1, -1, 'WITHSCORES')
  if #last == 0 then
    redis.call('DEL', leases, held, totalKey)
    total = 0
  else
    if total < 0 then total = 0 end
    -- The structures outlive the last lease by one more lease: a key whose holders all
    -- vanished is dropped by Redis even if nobody takes it again, while a key still in use is
    -- reaped by a take first, which announces the freed units to the other replicas.
    local ttl = tonumber(last[2]) - now + tonumber(ARGV[4])
    redis.call('SET', totalKey, total, 'PX', ttl)
    redis.call('PEXPIRE', leases, ttl)
    redis.call('PEXPIRE', held, ttl)
  end
  if freed > 0 then
    redis.call('PUBLISH', ARGV[1], ARGV[2] .. ' ' .. total .. ' ' .. ARGV[3])
  end
end
`;

/** ARGV[5] id, [6] units, [7] limit. Returns {granted 0|1, total, units reaped}. */
const TAKE = `${PRELUDE}
local id, units, limit = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local granted = 0
if redis.call('HEXISTS', held, id) == 1 then
  granted = 1
elseif total + units <= limit then
  redis.call('ZADD', leases, now + tonumber(ARGV[4]), id)
  redis.call('HSET', held, id, units)
  total = total + units
  granted = 1
end
finish()
return {granted, total, freed}
`;

/** ARGV[5] id, [6] units to keep. Returns {released, total, 0}; 0 released for an unknown ticket. */
const GIVE_BACK = `${PRELUDE}
local id, keep = ARGV[5], tonumber(ARGV[6])
local units = tonumber(redis.call('HGET', held, id))
local released = 0
if units then
  if keep <= 0 then
    redis.call('HDEL', held, id)
    redis.call('ZREM', leases, id)
    released = units
  elseif keep < units then
    redis.call('HSET', held, id, keep)
    released = units - keep
  end
  total = total - released
  freed = freed + released
end
finish()
return {released, total, 0}
`;

/** ARGV[5..] ids. Extends the live ones; returns {total, ids that had lapsed...}. */
const RENEW = `${PRELUDE}
local expiry = now + tonumber(ARGV[4])
local out = {0}
for i = 5, #ARGV do
  if redis.call('ZSCORE', leases, ARGV[i]) then
    redis.call('ZADD', leases, expiry, ARGV[i])
  else
    out[#out + 1] = ARGV[i]
  end
end
finish()
out[1] = total
return out
`;

/**
 * ARGV[5..] pairs of id, units. Adds absent tickets whatever the limit (their requests are
 * already running, so the shared total must count them) and lowers present ones to at most
 * the units given. Returns the total.
 */
const ADOPT = `${PRELUDE}
local expiry = now + tonumber(ARGV[4])
for i = 5, #ARGV, 2 do
  local id, want = ARGV[i], tonumber(ARGV[i + 1])
  local units = tonumber(redis.call('HGET', held, id))
  if units == nil then
    if want > 0 then
      redis.call('HSET', held, id, want)
      redis.call('ZADD', leases, expiry, id)
      total = total + want
    end
  else
    local keep = math.min(units, want)
    if keep <= 0 then
      redis.call('HDEL', held, id)
      redis.call('ZREM', leases, id)
    else
      redis.call('HSET', held, id, keep)
      redis.call('ZADD', leases, expiry, id)
    end
    total = total - (units - keep)
    freed = freed + (units - keep)
  end
end
finish()
return total
`;

const SCRIPTS = {
  switchyardAdmissionTake: TAKE,
  switchyardAdmissionGiveBack: GIVE_BACK,
  switchyardAdmissionRenew: RENEW,
  switchyardAdmissionAdopt: ADOPT,
} as const;

type Arg = string | number;
type ScriptCommands = Record<keyof typeof SCRIPTS, (...args: Arg[]) => Promise<unknown>>;

/**
 * The three Redis keys of a pool key, sharing one hash tag. A `}` inside the key ends the tag
 * early, but at the same place in all three, so they still share a slot.
 */
export function redisKeysOf(prefix: string, key: string): [string, string, string] {
  const base = `${prefix}{${key}}`;
  return [`${base}:leases`, `${base}:units`, `${base}:total`];
}

/** The channel give-backs and lapsed leases are announced on. */
export function channelOf(prefix: string): string {
  return `${prefix}freed`;
}

/** A freed announcement: who published it, the key's new total, the key. */
export interface FreedMessage {
  readonly origin: string;
  readonly total: number;
  readonly key: string;
}

export function parseFreed(message: string): FreedMessage | undefined {
  const a = message.indexOf(' ');
  const b = message.indexOf(' ', a + 1);
  if (a < 0 || b < 0) return undefined;
  const total = Number(message.slice(a + 1, b));
  if (!Number.isFinite(total)) return undefined;
  return { origin: message.slice(0, a), total, key: message.slice(b + 1) };
}

/** Typed calls of the four scripts on one connection. Rejects when Redis does not answer. */
export class AdmissionScripts {
  readonly #redis: ScriptCommands;
  readonly #head: (key: string) => Arg[];

  constructor(redis: Redis, opts: { prefix: string; origin: string; leaseMs: number }) {
    // ioredis sends EVALSHA and falls back to EVAL on NOSCRIPT, so a restarted Redis (empty
    // script cache) needs no reload step.
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, { lua, numberOfKeys: 3 });
    }
    // defineCommand adds the methods at run time; this is their shape.
    this.#redis = redis as unknown as ScriptCommands;
    const channel = channelOf(opts.prefix);
    this.#head = (key) => [
      ...redisKeysOf(opts.prefix, key),
      channel,
      opts.origin,
      key,
      opts.leaseMs,
    ];
  }

  async take(key: string, id: string, units: number, limit: number) {
    const reply = await this.#redis.switchyardAdmissionTake(...this.#head(key), id, units, limit);
    const [granted, total, reaped] = triple(reply);
    return { granted: granted === 1, total, reaped };
  }

  async giveBack(key: string, id: string, keep: number) {
    const reply = await this.#redis.switchyardAdmissionGiveBack(...this.#head(key), id, keep);
    const [released, total] = triple(reply);
    return { released, total };
  }

  async renew(key: string, ids: readonly string[]) {
    const reply = await this.#redis.switchyardAdmissionRenew(...this.#head(key), ...ids);
    if (!Array.isArray(reply)) throw new TypeError('renew: unexpected reply');
    const [total, ...missing] = reply as unknown[];
    return { total: Number(total), missing: missing.map(String) };
  }

  async adopt(key: string, tickets: readonly (readonly [id: string, units: number])[]) {
    const reply = await this.#redis.switchyardAdmissionAdopt(...this.#head(key), ...tickets.flat());
    return { total: Number(reply) };
  }
}

function triple(reply: unknown): [number, number, number] {
  if (!Array.isArray(reply) || reply.length !== 3) throw new TypeError('unexpected script reply');
  return [Number(reply[0]), Number(reply[1]), Number(reply[2])];
}
