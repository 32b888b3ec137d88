/**
 * The Redis history store against a real redis-server: the shared HistoryStore contract (with
 * two stores on one Redis as two replicas), the retention every key it writes carries, and
 * what the store does when Redis stops, stalls, or is not there when the store opens.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { describeHistoryStoreContract } from '../../helpers/history-store-contract.js';
import { RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { HistoryStoreError, type HistoryStore } from '../../../src/storage/history-store.js';
import {
  CONNECTION_NAME,
  openRedisHistoryStore,
  retentionSeconds,
} from '../../../src/storage/redis-history-store.js';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server.close();
});

const open = (url: string, retentionDays?: number): Promise<HistoryStore> =>
  openRedisHistoryStore({ url, poolMaxSize: 16, retentionDays });

describeHistoryStoreContract('redis', () => open(server.url), {
  openSecond: () => open(server.url),
});

/** A plain client, connected, that reads what Redis itself holds. */
async function probe(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  await redis.connect();
  return redis;
}

async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.sort();
}

/** Writes one of everything under ids holding `tag`, through every writing method. */
async function writeEverything(store: HistoryStore, tag: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const conv = `conv_${tag}`;
  const [a, b, c] = [`msg_${tag}_a`, `msg_${tag}_b`, `msg_${tag}_c`];
  await store.putResponse({
    id: `resp_${tag}`,
    input: [],
    response: { id: `resp_${tag}`, object: 'response' },
    createdAt: now,
  });
  await store.createConversation({ id: conv, createdAt: now, metadata: {} });
  await store.putItems(
    [a, b, c].map((id) => ({ id, item: { id, type: 'message' }, createdAt: now })),
  );
  await store.linkItems(conv, [a, b, c]);
  await store.setConversationMetadata(conv, { k: 'v' });
  assert.equal(await store.unlinkItem(conv, b), true);
}

const expectedKeys = (tag: string): string[] =>
  [
    `response:resp_${tag}`,
    `conversation:conv_${tag}`,
    `conversation:conv_${tag}:items`,
    `item:msg_${tag}_a`,
    `item:msg_${tag}_b`,
    `item:msg_${tag}_c`,
  ].sort();

describe('redis history store: links from two replicas at once', () => {
  it('each call lands whole, in its order, at positions Redis numbered 1, 2, 3, …', async () => {
    const [a, b] = await Promise.all([open(server.url), open(server.url)]);
    const redis = await probe(server.url);
    const conv = `conv_${randomUUID()}`;
    const batch = (who: string, round: number): string[] =>
      Array.from({ length: 4 }, (_, i) => `msg_${who}${round}_${i}_${randomUUID()}`);
    try {
      const batches = Array.from({ length: 10 }, (_, r) => [batch('a', r), batch('b', r)]);
      await Promise.all(
        batches.flatMap(([x, y]) => [a.linkItems(conv, x!), b.linkItems(conv, y!)]),
      );
      const linked = await redis.zrange(`conversation:${conv}:items`, 0, '-1', 'WITHSCORES');
      const ids = linked.filter((_, i) => i % 2 === 0);
      const scores = linked.filter((_, i) => i % 2 === 1).map(Number);
      assert.deepEqual(
        scores,
        ids.map((_, i) => i + 1),
      );
      // Every call's ids sit next to each other, in the order the call gave them.
      const calls = batches.flat();
      assert.equal(ids.length, calls.length * 4);
      for (let at = 0; at < ids.length; at += 4) {
        const call = calls.find((c) => c[0] === ids[at]);
        assert.deepEqual(ids.slice(at, at + 4), call, `the call starting at ${at}`);
      }
    } finally {
      redis.disconnect();
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('redis history store: unbounded asks', () => {
  it('an unbounded depth walks a looping chain once; an unbounded limit lists all', async () => {
    const store = await open(server.url);
    const [a, b] = [`resp_${randomUUID()}`, `resp_${randomUUID()}`];
    const conv = `conv_${randomUUID()}`;
    try {
      // b continues a, then a is overwritten to continue b: a loop only an overwrite can make.
      await store.putResponse({ id: a, input: [], response: {}, createdAt: 1 });
      await store.putResponse({
        id: b,
        previousResponseId: a,
        input: [],
        response: {},
        createdAt: 2,
      });
      await store.putResponse({
        id: a,
        previousResponseId: b,
        input: [],
        response: {},
        createdAt: 1,
      });
      const chain = await store.responseChain(b, Number.POSITIVE_INFINITY);
      assert.deepEqual(
        chain.map((r) => r.id),
        [a, b],
      );
      const ids = [`msg_${randomUUID()}`, `msg_${randomUUID()}`];
      await store.putItems(ids.map((id) => ({ id, item: { id }, createdAt: 1 })));
      await store.linkItems(conv, ids);
      const page = await store.listItems(conv, { limit: Number.POSITIVE_INFINITY, order: 'desc' });
      assert.deepEqual(
        page.items.map((i) => i.id),
        [...ids].reverse(),
      );
    } finally {
      await store.close();
    }
  });
});

describe('redis history store: retention', () => {
  let redis: Redis;
  before(async () => {
    redis = await probe(server.url);
  });
  after(() => {
    redis.disconnect();
  });

  const ttls = async (tag: string): Promise<Record<string, number>> => {
    const keys = await keysMatching(redis, `*${tag}*`);
    assert.deepEqual(keys, expectedKeys(tag), 'the keys written');
    const pairs = await Promise.all(keys.map(async (k) => [k, await redis.ttl(k)] as const));
    return Object.fromEntries(pairs);
  };
  const assertTtls = (got: Record<string, number>, seconds: number): void => {
    // TTL counts down in whole seconds; a minute of slack covers a slow machine.
    for (const [key, ttl] of Object.entries(got)) {
      assert.ok(ttl <= seconds && ttl > seconds - 60, `${key}: TTL ${ttl}, want about ${seconds}`);
    }
  };

  it('every key written, the link set included, expires after the retention days', async () => {
    const store = await open(server.url, 2);
    const tag = randomUUID();
    try {
      await writeEverything(store, tag);
      assertTtls(await ttls(tag), 2 * 86_400);
    } finally {
      await store.close();
    }
  });

  it('no retention given: 30 days', async () => {
    const store = await open(server.url, undefined);
    const tag = randomUUID();
    try {
      await writeEverything(store, tag);
      assertTtls(await ttls(tag), 30 * 86_400);
    } finally {
      await store.close();
    }
  });

  it('a negative retention: no key expires, even one an expiring store wrote first', async () => {
    const expiring = await open(server.url, 1);
    const forever = await open(server.url, -1);
    const tag = randomUUID();
    try {
      await writeEverything(expiring, tag);
      await writeEverything(forever, tag);
      for (const [key, ttl] of Object.entries(await ttls(tag))) assert.equal(ttl, -1, key);
    } finally {
      await Promise.all([expiring.close(), forever.close()]);
    }
  });

  it('retention days in seconds; 0 is refused, as it would delete every record at once', () => {
    assert.equal(retentionSeconds(undefined), 2_592_000);
    assert.equal(retentionSeconds(7), 604_800);
    assert.equal(retentionSeconds(-1), 0);
    assert.throws(() => retentionSeconds(0), RangeError);
    assert.throws(() => retentionSeconds(Number.NaN), RangeError);
  });
});

/** Every method of the store, each called once with ids of its own. */
function everyCall(store: HistoryStore): Record<string, () => Promise<unknown>> {
  const tag = randomUUID();
  const item = { id: `msg_${tag}`, item: { type: 'message' }, createdAt: 1 };
  return {
    putResponse: () =>
      store.putResponse({ id: `resp_${tag}`, input: [], response: {}, createdAt: 1 }),
    getResponse: () => store.getResponse(`resp_${tag}`),
    deleteResponse: () => store.deleteResponse(`resp_${tag}`),
    responseChain: () => store.responseChain(`resp_${tag}`, 10),
    createConversation: () =>
      store.createConversation({ id: `conv_${tag}`, createdAt: 1, metadata: {} }),
    getConversation: () => store.getConversation(`conv_${tag}`),
    setConversationMetadata: () => store.setConversationMetadata(`conv_${tag}`, {}),
    deleteConversation: () => store.deleteConversation(`conv_${tag}`),
    putItems: () => store.putItems([item]),
    getItem: () => store.getItem(item.id),
    linkItems: () => store.linkItems(`conv_${tag}`, [item.id]),
    isLinked: () => store.isLinked(`conv_${tag}`, item.id),
    listItems: () => store.listItems(`conv_${tag}`, { limit: 10, order: 'asc', after: item.id }),
    unlinkItem: () => store.unlinkItem(`conv_${tag}`, item.id),
  };
}

/** Calls every method at once; each must reject with HistoryStoreError (a hang fails the test). */
async function assertEveryCallFails(store: HistoryStore): Promise<void> {
  await Promise.all(
    Object.entries(everyCall(store)).map(([name, call]) =>
      assert.rejects(call(), HistoryStoreError, `${name} rejects with HistoryStoreError`),
    ),
  );
}

/** A response written and read back: the store answers again. */
async function assertWorks(store: HistoryStore): Promise<void> {
  const id = `resp_${randomUUID()}`;
  await store.putResponse({ id, input: [], response: { id }, createdAt: 1 });
  assert.equal((await store.getResponse(id))?.id, id);
}

describe('redis history store: Redis away', { timeout: 25_000 }, () => {
  // A server of its own, so stopping it leaves the contract's alone.
  let away: RedisServer;
  before(async () => {
    away = await RedisServer.start();
  });
  after(async () => {
    await away.close();
  });

  it('opens one named connection whatever the pool size; closed, it rejects', async () => {
    const redis = await probe(away.url);
    const named = async (): Promise<number> => {
      const list = String(await redis.call('CLIENT', 'LIST'));
      return list.split('\n').filter((l) => l.includes(` name=${CONNECTION_NAME} `)).length;
    };
    const a = await openRedisHistoryStore({ url: away.url, poolMaxSize: 16, retentionDays: 1 });
    const b = await openRedisHistoryStore({ url: away.url, poolMaxSize: 4, retentionDays: 1 });
    try {
      await Promise.all([assertWorks(a), assertWorks(b)]);
      assert.equal(await named(), 2);
      await a.close();
      await waitFor(async () => (await named()) === 1, 'the closed store to hang up');
      await assertEveryCallFails(a);
      assert.equal(await a.reachable(), false);
    } finally {
      await Promise.all([a.close(), b.close()]);
      redis.disconnect();
    }
  });

  it('Redis stopped: every call rejects and reachable() is false; restarted: it works', async () => {
    const store = await open(away.url);
    try {
      await assertWorks(store);
      assert.equal(await store.reachable(), true);
      await away.stop();
      await assertEveryCallFails(store);
      assert.equal(await store.reachable(), false);
      // The calls failed while Redis was still away; only now does it come back.
      await away.restart();
      await waitFor(() => store.reachable(), 'the store to reconnect', 5000);
      await assertWorks(store);
    } finally {
      await store.close();
    }
  });

  it('Redis stalled: calls time out, and a link that timed out is not doubled', async () => {
    const store = await open(away.url);
    const redis = await probe(away.url);
    const conv = `conv_${randomUUID()}`;
    const [a, b] = [`msg_${randomUUID()}`, `msg_${randomUUID()}`];
    try {
      await store.createConversation({ id: conv, createdAt: 1, metadata: {} });
      await store.putItems([a, b].map((id) => ({ id, item: { id }, createdAt: 1 })));
      // A stopped process answers nothing while its connections stay up, for as long as the
      // test needs (CLIENT PAUSE would end on a timer, and Redis 7.0 holds CLIENT UNPAUSE too).
      const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
      assert.ok(pid > 0, 'redis-server pid');
      process.kill(pid, 'SIGSTOP');
      try {
        const late = assert.rejects(store.linkItems(conv, [a]), HistoryStoreError);
        await assertEveryCallFails(store);
        assert.equal(await store.reachable(), false);
        await late;
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      // The timed-out link runs now, before anything sent after it; the caller links again.
      await store.linkItems(conv, [a, b]);
      const page = await store.listItems(conv, { limit: 10, order: 'asc' });
      assert.deepEqual(
        page.items.map((i) => i.id),
        [a, b],
      );
      assert.equal(await store.reachable(), true);
    } finally {
      redis.disconnect();
      await store.close();
    }
  });

  it('opens while Redis is down, rejects until it is up, then works', async () => {
    await away.kill();
    const store = await open(away.url);
    try {
      assert.equal(await store.reachable(), false);
      await assertEveryCallFails(store);
      await away.restart();
      await waitFor(() => store.reachable(), 'the store to connect', 5000);
      await assertWorks(store);
    } finally {
      await store.close();
    }
  });
});
