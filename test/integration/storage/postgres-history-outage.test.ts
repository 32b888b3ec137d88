/**
 * The Postgres history store when Postgres is not there: stopped, hung, not up yet when the store
 * opens, its database not made yet, or dropped under it. Every call rejects with a
 * `HistoryStoreError` (the routes' 503) instead of waiting, `reachable()` says false, and once
 * Postgres is back the same store works again without being reopened.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PostgresServer } from '../../helpers/postgres-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { HistoryStoreError, type HistoryStore } from '../../../src/storage/history-store.js';
import { openPostgresHistoryStore } from '../../../src/storage/postgres-history-store.js';

let server: PostgresServer;
before(async () => {
  server = await PostgresServer.start();
});
after(async () => {
  await server?.close();
});

/** A bound on each test, so a call that queued forever fails the test instead of hanging it. */
const BOUNDED = { timeout: 30_000 };

const open = (database: string, poolMaxSize = 2): Promise<HistoryStore> =>
  openPostgresHistoryStore({ url: server.url(database), poolMaxSize });

const tag = (): string => randomUUID().replaceAll('-', '').slice(0, 12);

/** One call of each kind, each of which must reject with a HistoryStoreError. */
function everyKindOfCall(store: HistoryStore): Promise<unknown>[] {
  const t = tag();
  return [
    store.putResponse({ id: `resp_${t}`, input: [], response: {}, createdAt: 1 }),
    store.getResponse(`resp_${t}`),
    store.deleteResponse(`resp_${t}`),
    store.responseChain(`resp_${t}`, 10),
    store.createConversation({ id: `conv_${t}`, createdAt: 1, metadata: {} }),
    store.getConversation(`conv_${t}`),
    store.setConversationMetadata(`conv_${t}`, {}),
    store.deleteConversation(`conv_${t}`),
    store.putItems([{ id: `msg_${t}`, item: { type: 'message' }, createdAt: 1 }]),
    store.getItem(`msg_${t}`),
    store.linkItems(`conv_${t}`, [`msg_${t}`]),
    store.isLinked(`conv_${t}`, `msg_${t}`),
    store.listItems(`conv_${t}`, { limit: 5, order: 'asc' }),
    store.unlinkItem(`conv_${t}`, `msg_${t}`),
  ];
}

async function assertAllReject(store: HistoryStore): Promise<void> {
  const results = await Promise.allSettled(everyKindOfCall(store));
  for (const [i, result] of results.entries()) {
    assert.equal(result.status, 'rejected', `call ${i} resolved`);
    assert.ok(result.reason instanceof HistoryStoreError, `call ${i}: ${String(result.reason)}`);
    assert.equal(result.reason.backend, 'postgres');
  }
}

/** Writes a conversation with a linked item and a response, and reads them back. */
async function roundTrip(store: HistoryStore): Promise<string> {
  const t = tag();
  await store.createConversation({ id: `conv_${t}`, createdAt: 1, metadata: { t } });
  await store.putItems([
    { id: `msg_${t}`, item: { id: `msg_${t}`, type: 'message' }, createdAt: 1 },
  ]);
  await store.linkItems(`conv_${t}`, [`msg_${t}`]);
  await store.putResponse({ id: `resp_${t}`, input: [], response: { t }, createdAt: 1 });
  assert.equal(await store.isLinked(`conv_${t}`, `msg_${t}`), true);
  assert.deepEqual((await store.getResponse(`resp_${t}`))?.response, { t });
  return t;
}

describe('postgres history store outages', () => {
  it(
    'Postgres stopped: calls reject, reachable() is false; restarted: the same store works',
    BOUNDED,
    async () => {
      const store = await open(await server.createDatabase('stopped'));
      try {
        const t = await roundTrip(store);
        await server.stop();
        await assertAllReject(store);
        assert.equal(await store.reachable(), false);
        await server.restart();
        await waitFor(() => store.reachable(), 'the store reachable again', 15_000);
        assert.deepEqual((await store.getConversation(`conv_${t}`))?.metadata, { t });
        await roundTrip(store);
      } finally {
        if (!server.running) await server.restart();
        await store.close();
      }
    },
  );

  it(
    'Postgres hung: calls reject instead of waiting, more of them than the pool holds too',
    BOUNDED,
    async () => {
      const store = await open(await server.createDatabase('hung'), 1);
      try {
        await roundTrip(store);
        server.pause();
        // Fourteen calls on a pool of one: the first waits on the hung connection, the rest on the
        // pool; each gives up within its bound and says so as a HistoryStoreError.
        await assertAllReject(store);
        assert.equal(await store.reachable(), false);
        server.resume();
        await waitFor(() => store.reachable(), 'the store reachable again', 15_000);
        await roundTrip(store);
      } finally {
        server.resume();
        await store.close();
      }
    },
  );

  it(
    'Postgres down at open: open resolves, calls reject until it is up, then work',
    BOUNDED,
    async () => {
      const db = await server.createDatabase('downatopen');
      await server.stop();
      let store: HistoryStore | undefined;
      try {
        store = await open(db);
        await assertAllReject(store);
        await assert.rejects(store.getResponse('resp_x'), /not ready/);
        assert.equal(await store.reachable(), false);
        await server.restart();
        const up = store;
        await waitFor(() => up.reachable(), 'the schema set up once Postgres is there', 15_000);
        await roundTrip(up);
      } finally {
        if (!server.running) await server.restart();
        await store?.close();
      }
    },
  );

  it('a database that does not exist yet: calls reject until it is made', BOUNDED, async () => {
    const db = `later_${process.pid}_${tag()}`;
    const store = await open(db);
    try {
      await assertAllReject(store);
      assert.equal(await store.reachable(), false);
      await server.sql(`CREATE DATABASE ${db}`);
      await waitFor(() => store.reachable(), 'the schema set up in the new database', 15_000);
      await roundTrip(store);
    } finally {
      await store.close();
    }
  });

  it(
    'a database dropped and made again under the store gets its schema again',
    BOUNDED,
    async () => {
      const db = await server.createDatabase('dropped');
      const store = await open(db);
      try {
        await roundTrip(store);
        await server.sql(`DROP DATABASE ${db} WITH (FORCE)`);
        await assertAllReject(store);
        await server.sql(`CREATE DATABASE ${db}`);
        await waitFor(() => store.reachable(), 'the schema set up again', 15_000);
        await roundTrip(store);
      } finally {
        await store.close();
      }
    },
  );
});
