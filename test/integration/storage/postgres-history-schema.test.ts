/**
 * The Postgres history store sets up its own schema: SMG's tables on a fresh database, each
 * migration once and recorded by version, however many replicas open at the same time, and a
 * database left at an older version brought forward with the links it already had kept in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { PostgresServer } from '../../helpers/postgres-server.js';
import type { HistoryStore } from '../../../src/storage/history-store.js';
import {
  openPostgresHistoryStore,
  type PostgresHistoryStoreLogger,
} from '../../../src/storage/postgres-history-store.js';
import {
  LATEST_VERSION,
  MIGRATIONS,
  VERSIONS_TABLE,
  migrate,
} from '../../../src/storage/postgres-schema.js';

let server: PostgresServer;
before(async () => {
  server = await PostgresServer.start();
});
after(async () => {
  await server?.close();
});

/** What a store logged as applied: one list per log line that named versions it applied. */
class AppliedLog implements PostgresHistoryStoreLogger {
  readonly applied: number[][] = [];
  readonly warnings: string[] = [];
  info(obj: object): void {
    const { applied } = obj as { applied?: number[] };
    if (applied && applied.length > 0) this.applied.push(applied);
  }
  warn(_obj: object, msg: string): void {
    this.warnings.push(msg);
  }
}

const ALL_VERSIONS = MIGRATIONS.map((m) => m.version);

async function open(url: string, logger?: AppliedLog): Promise<HistoryStore> {
  return openPostgresHistoryStore({ url, poolMaxSize: 2, logger });
}

async function versionRows(db: string): Promise<{ version: number; applied_at: Date }[]> {
  const rows = await server.sql(
    `SELECT version, applied_at FROM ${VERSIONS_TABLE} ORDER BY version`,
    db,
  );
  return rows as { version: number; applied_at: Date }[];
}

/** Proves the store works on its schema: a round trip through every table. */
async function roundTrip(store: HistoryStore, tag: string): Promise<void> {
  const conv = `conv_${tag}`;
  await store.createConversation({ id: conv, createdAt: 1, metadata: { tag } });
  await store.putItems([
    { id: `msg_${tag}`, item: { id: `msg_${tag}`, type: 'message' }, createdAt: 1 },
  ]);
  await store.linkItems(conv, [`msg_${tag}`]);
  await store.putResponse({ id: `resp_${tag}`, input: [], response: { tag }, createdAt: 1 });
  assert.deepEqual(
    (await store.listItems(conv, { limit: 5, order: 'asc' })).items.map((i) => i.id),
    [`msg_${tag}`],
  );
  assert.deepEqual((await store.getResponse(`resp_${tag}`))?.response, { tag });
}

describe('postgres history schema', () => {
  it("creates SMG's tables and index on a fresh database and records each version", async () => {
    const db = await server.createDatabase('fresh');
    const log = new AppliedLog();
    const store = await open(server.url(db), log);
    try {
      assert.deepEqual(log.applied, [ALL_VERSIONS]);
      const tables = await server.sql(
        `SELECT table_name AS t FROM information_schema.tables
          WHERE table_schema = 'public' ORDER BY table_name`,
        db,
      );
      assert.deepEqual(
        tables.map((r) => r['t']),
        [
          'conversation_item_links',
          'conversation_items',
          'conversations',
          'responses',
          VERSIONS_TABLE,
        ],
      );
      const indexes = await server.sql(
        `SELECT indexname AS i FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
        db,
      );
      for (const name of [
        'conv_item_links_conv_idx',
        'conv_item_links_seq_idx',
        'responses_safety_idx',
      ]) {
        assert.ok(
          indexes.some((r) => r['i'] === name),
          `index ${name}`,
        );
      }
      const rows = await versionRows(db);
      assert.deepEqual(
        rows.map((r) => r.version),
        ALL_VERSIONS,
      );
      assert.equal(Math.max(...ALL_VERSIONS), LATEST_VERSION);
      await roundTrip(store, 'fresh');
    } finally {
      await store.close();
    }
  });

  it('a second open applies nothing again', async () => {
    const db = await server.createDatabase('again');
    const first = await open(server.url(db));
    const before = await versionRows(db);
    const log = new AppliedLog();
    const second = await open(server.url(db), log);
    try {
      assert.deepEqual(log.applied, []);
      assert.deepEqual(await versionRows(db), before);
      await roundTrip(second, 'again');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('replicas opening a fresh database at once apply each migration once between them', async () => {
    const db = await server.createDatabase('race');
    const logs = Array.from({ length: 4 }, () => new AppliedLog());
    const stores = await Promise.all(logs.map((log) => open(server.url(db), log)));
    try {
      assert.deepEqual(
        logs.flatMap((l) => l.applied),
        [ALL_VERSIONS],
        'one replica applied them all, the others none',
      );
      assert.deepEqual(
        logs.flatMap((l) => l.warnings),
        [],
      );
      assert.deepEqual(
        (await versionRows(db)).map((r) => r.version),
        ALL_VERSIONS,
      );
      for (const [i, store] of stores.entries()) await roundTrip(store, `race${i}`);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('a database at an older version is migrated forward, its links kept in order', async () => {
    const db = await server.createDatabase('older');
    const client = new Client({ connectionString: server.url(db) });
    await client.connect();
    try {
      assert.deepEqual(await migrate(client, 1), [1]);
      // Rows as SMG writes them: links ordered only by added_at, inserted in another order.
      await client.query(
        `INSERT INTO conversations (id, created_at, metadata) VALUES ('conv_old', now(), NULL)`,
      );
      await client.query(
        `INSERT INTO conversation_items (id, item_type, content, created_at)
         SELECT 'msg_' || n, 'message', json_build_object('id', 'msg_' || n, 'type', 'message'),
                now()
           FROM generate_series(1, 3) n`,
      );
      await client.query(
        `INSERT INTO conversation_item_links (conversation_id, item_id, added_at) VALUES
           ('conv_old', 'msg_2', '2026-01-01T00:00:02Z'),
           ('conv_old', 'msg_3', '2026-01-01T00:00:03Z'),
           ('conv_old', 'msg_1', '2026-01-01T00:00:01Z')`,
      );
    } finally {
      await client.end();
    }
    const log = new AppliedLog();
    const store = await open(server.url(db), log);
    try {
      assert.deepEqual(log.applied, [ALL_VERSIONS.filter((v) => v > 1)]);
      assert.deepEqual(
        (await versionRows(db)).map((r) => r.version),
        ALL_VERSIONS,
      );
      assert.deepEqual(await store.getConversation('conv_old'), {
        id: 'conv_old',
        createdAt: (await store.getConversation('conv_old'))?.createdAt,
        metadata: {},
      });
      await store.putItems([{ id: 'msg_4', item: { id: 'msg_4', type: 'message' }, createdAt: 1 }]);
      await store.linkItems('conv_old', ['msg_4', 'msg_1']);
      const page = await store.listItems('conv_old', { limit: 10, order: 'asc' });
      assert.deepEqual(
        page.items.map((i) => i.id),
        ['msg_1', 'msg_2', 'msg_3', 'msg_4'],
      );
      const after = await store.listItems('conv_old', { limit: 10, order: 'desc', after: 'msg_3' });
      assert.deepEqual(
        after.items.map((i) => i.id),
        ['msg_2', 'msg_1'],
      );
    } finally {
      await store.close();
    }
  });
});
