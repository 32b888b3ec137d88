/**
 * The Postgres history store's tables and their migrations. SMG's tables, with SMG's table and
 * column names, so an operator's queries and dashboards read the same rows; each migration runs
 * once, in its own transaction, recorded by version, under an advisory lock so replicas starting
 * together do not race (two `CREATE TABLE IF NOT EXISTS` at once can still fail on a duplicate
 * catalog row, and a half-seen migration would run twice).
 */
import type { ClientBase } from 'pg';

/**
 * Where the applied versions are recorded. Not SMG's `_schema_versions`: SMG numbers its own
 * migrations there, so a database SMG has used would look migrated to us and ours would be
 * skipped.
 */
export const VERSIONS_TABLE = 'switchyard_schema_versions';

/**
 * The `pg_advisory_lock` key every replica takes while it migrates (one bigint; Postgres keeps it
 * apart from the two-int4 keys the store takes per conversation).
 */
export const SCHEMA_LOCK_KEY = 0x5357_4859_5244; // "SWHYRD"

export interface Migration {
  readonly version: number;
  readonly description: string;
  /** Run in order, in one transaction with the version's record. */
  readonly statements: readonly string[];
}

/*
 * Column types, and where they differ from SMG's:
 * - TEXT where SMG has VARCHAR(n): Postgres stores both alike, and a limit only turns a long
 *   client-chosen item id, `user` or model name into a failed write the client sees as a 503.
 * - JSON (SMG's type), not JSONB: the store never queries inside these documents, and JSON keeps
 *   the text as written (key order, which a client reading a stored response back may notice)
 *   and accepts `\u0000` in strings, which JSONB refuses, so a model's output with a NUL in it
 *   can still be stored.
 * - conversation_items.content holds the whole item as the API shows it (SMG keeps only its
 *   `content` field there and rebuilds the rest from the other columns); item_type, role and
 *   status are copies of the item's fields, for people querying the table.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'SMG history tables: conversations, conversation_items, links, responses',
    statements: [
      `CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY,
        created_at TIMESTAMPTZ,
        metadata JSON
      )`,
      `CREATE TABLE IF NOT EXISTS conversation_items (
        id TEXT PRIMARY KEY,
        response_id TEXT,
        item_type TEXT NOT NULL,
        role TEXT,
        content JSON,
        status TEXT,
        created_at TIMESTAMPTZ
      )`,
      `CREATE TABLE IF NOT EXISTS conversation_item_links (
        conversation_id TEXT,
        item_id TEXT NOT NULL,
        added_at TIMESTAMPTZ,
        CONSTRAINT pk_conv_item_link PRIMARY KEY (conversation_id, item_id)
      )`,
      `CREATE INDEX IF NOT EXISTS conv_item_links_conv_idx
        ON conversation_item_links (conversation_id, added_at)`,
      `CREATE TABLE IF NOT EXISTS responses (
        id TEXT PRIMARY KEY,
        conversation_id TEXT,
        previous_response_id TEXT,
        input JSON,
        created_at TIMESTAMPTZ,
        safety_identifier TEXT,
        model TEXT,
        raw_response JSON
      )`,
      `CREATE INDEX IF NOT EXISTS responses_safety_idx ON responses (safety_identifier)`,
    ],
  },
  {
    version: 2,
    description: 'link order from a sequence, not a clock',
    // Replicas' clocks differ and two links can share a timestamp, so `added_at` cannot order a
    // conversation's items exactly; a sequence can. Links already there keep their added_at order.
    statements: [
      `ALTER TABLE conversation_item_links ADD COLUMN seq BIGINT`,
      `UPDATE conversation_item_links l SET seq = o.n
        FROM (SELECT conversation_id, item_id,
                     row_number() OVER (ORDER BY added_at, conversation_id, item_id) AS n
                FROM conversation_item_links) o
       WHERE l.conversation_id = o.conversation_id AND l.item_id = o.item_id`,
      `ALTER TABLE conversation_item_links ALTER COLUMN seq SET NOT NULL`,
      `ALTER TABLE conversation_item_links ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY`,
      `SELECT setval(pg_get_serial_sequence('conversation_item_links', 'seq'),
                     COALESCE(MAX(seq), 0) + 1, false)
         FROM conversation_item_links`,
      `CREATE INDEX conv_item_links_seq_idx ON conversation_item_links (conversation_id, seq)`,
    ],
  },
];

/** The version a fully migrated database is at. */
export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/**
 * Brings the database to `target` (default: the latest version), applying each missing
 * migration once in its own transaction while holding the schema lock. Resolves to the versions
 * it applied (none when another replica got there first). The caller owns `client` and its
 * timeouts; an error leaves the lock released and the failed migration unrecorded.
 */
export async function migrate(
  client: ClientBase,
  target: number = LATEST_VERSION,
): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1::bigint)', [SCHEMA_LOCK_KEY]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (
        version INTEGER PRIMARY KEY,
        description TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
    );
    const done = await appliedVersions(client);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version > target || done.has(m.version)) continue;
      await inTransaction(client, async () => {
        for (const sql of m.statements) await client.query(sql);
        await client.query(`INSERT INTO ${VERSIONS_TABLE} (version, description) VALUES ($1, $2)`, [
          m.version,
          m.description,
        ]);
      });
      applied.push(m.version);
    }
    return applied;
  } finally {
    // A connection that broke has lost the lock with its session; the first error is the news.
    await client
      .query('SELECT pg_advisory_unlock($1::bigint)', [SCHEMA_LOCK_KEY])
      .catch(() => undefined);
  }
}

/** The versions recorded as applied; empty when the versions table does not exist yet. */
export async function appliedVersions(client: ClientBase): Promise<Set<number>> {
  const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
    VERSIONS_TABLE,
  ]);
  if (exists.rows[0]?.t == null) return new Set();
  const rows = await client.query<{ version: number }>(`SELECT version FROM ${VERSIONS_TABLE}`);
  return new Set(rows.rows.map((r) => r.version));
}

/** Runs `body` between BEGIN and COMMIT, rolling back when it throws. */
export async function inTransaction<T>(client: ClientBase, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await body();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
