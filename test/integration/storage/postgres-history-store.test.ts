/**
 * The Postgres history store against a real Postgres: the shared HistoryStore contract (with two
 * stores on one database as two replicas), JSON that only Postgres's JSON type keeps as written,
 * and link order when replicas link into one conversation at the same time.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { describeHistoryStoreContract } from '../../helpers/history-store-contract.js';
import { PostgresServer } from '../../helpers/postgres-server.js';
import type { HistoryStore, StoredItem } from '../../../src/storage/history-store.js';
import { openPostgresHistoryStore } from '../../../src/storage/postgres-history-store.js';

let server: PostgresServer;
let url: string;
before(async () => {
  server = await PostgresServer.start();
  url = server.url(await server.createDatabase('contract'));
});
after(async () => {
  await server?.close();
});

const open = (): Promise<HistoryStore> => openPostgresHistoryStore({ url, poolMaxSize: 4 });

describeHistoryStoreContract('postgres', open, { openSecond: open });

describe('postgres: what the JSON type keeps', () => {
  let store: HistoryStore;
  before(async () => {
    store = await open();
  });
  after(async () => {
    await store?.close();
  });
  const tag = randomUUID().slice(0, 8);

  it('strings with NUL and lone surrogates, which JSONB refuses, round-trip', async () => {
    const odd = { nul: 'a\u0000b', high: 'x\ud800y', low: '\udc00', both: '\u0000\ud83d' };
    const item: StoredItem = {
      id: `msg_nul_${tag}`,
      item: { id: `msg_nul_${tag}`, type: 'message', ...odd },
      createdAt: 1,
    };
    await store.putItems([item]);
    assert.deepEqual(await store.getItem(item.id), item);
    const id = `resp_nul_${tag}`;
    const response = { id, input: [odd], response: { id, output: [odd] }, createdAt: 2 };
    await store.putResponse(response);
    assert.deepEqual(await store.getResponse(id), response);
  });

  it('a stored response keeps its key order, as the client was first answered', async () => {
    const id = `resp_order_${tag}`;
    const body = { id, object: 'response', created_at: 1, zeta: 1, alpha: 2, status: 'completed' };
    await store.putResponse({ id, input: [], response: body, createdAt: 1 });
    const got = await store.getResponse(id);
    assert.deepEqual(Object.keys(got?.response ?? {}), Object.keys(body));
  });
});

describe('postgres: replicas linking into one conversation at once', () => {
  let a: HistoryStore;
  let b: HistoryStore;
  before(async () => {
    a = await open();
    b = await open();
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it("keeps each call's items together and in order, and both replicas see one order", async () => {
    const conv = `conv_race_${randomUUID().replaceAll('-', '')}`;
    await a.createConversation({ id: conv, createdAt: 1, metadata: {} });
    // Enough concurrent calls of enough items that, without the per-conversation lock, their
    // rows interleave on every run tried.
    const perCall = 40;
    const calls = Array.from({ length: 16 }, (_, c) =>
      Array.from({ length: perCall }, (_, i) => `msg_${conv.slice(-8)}_${c}_${i}`),
    );
    const items = calls
      .flat()
      .map((id): StoredItem => ({ id, item: { id, type: 'message' }, createdAt: 1 }));
    await a.putItems(items);
    await Promise.all(calls.map((ids, c) => (c % 2 === 0 ? a : b).linkItems(conv, ids)));

    const seen = (await a.listItems(conv, { limit: 1000, order: 'asc' })).items.map((i) => i.id);
    assert.equal(seen.length, items.length);
    const runs = [];
    for (let at = 0; at < seen.length; at += perCall) runs.push(seen.slice(at, at + perCall));
    assert.deepEqual(
      runs.map((run) => calls.findIndex((ids) => ids.join() === run.join())).sort((x, y) => x - y),
      calls.map((_, c) => c),
      'every call linked as one unbroken run, in the order it gave',
    );
    const fromB = (await b.listItems(conv, { limit: 1000, order: 'asc' })).items.map((i) => i.id);
    assert.deepEqual(fromB, seen);

    // Paging with `after` walks the same order.
    const paged: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await b.listItems(conv, { limit: 7, order: 'asc', after });
      paged.push(...page.items.map((i) => i.id));
      if (!page.hasMore) break;
      after = paged.at(-1);
    }
    assert.deepEqual(paged, seen);
  });
});
