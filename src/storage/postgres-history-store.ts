/**
 * The Postgres history store (`--history-backend postgres`): SMG's tables (postgres-schema.ts),
 * shared by every replica pointed at one database, through a pool of `pg` clients.
 *
 * - Never stuck at start: `openPostgresHistoryStore` waits at most OPEN_WAIT_MS for the schema;
 *   if Postgres is down or the database missing it returns anyway and keeps retrying the schema
 *   in the background (SETUP_RETRY_MIN_MS doubling to SETUP_RETRY_MAX_MS). Until the schema is
 *   ready every call rejects at once with a `HistoryStoreError`.
 * - Fails fast: connecting, a statement on the server and a reply on the wire each have a bound
 *   of about two seconds, and a full pool makes a caller wait no longer than a connect, so a
 *   request facing an outage gets its 503 instead of queueing behind it.
 * - Comes back by itself: a broken connection is dropped from the pool and the next call opens
 *   a new one; a database whose tables vanished (dropped and made again) has its schema set up
 *   again.
 */
import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import { HistoryStoreError, type HistoryStore, type StoredItem } from './history-store.js';
import type { Conversation, ItemPage, ListItemsQuery, StoredResponse } from './history-store.js';
import type { JsonObject } from '../util/json.js';
import { inTransaction } from './postgres-schema.js';
import {
  describeError,
  PostgresSchemaSetup,
  type PostgresHistoryStoreLogger,
} from './postgres-setup.js';
import * as q from './postgres-queries.js';

/** open() waits this long for the schema before it returns a store that is not ready yet. */
export const OPEN_WAIT_MS = 3000;
/** Bounds on every call's connection: connect, server-side statement, reply on the wire. */
export const CONNECT_TIMEOUT_MS = 1500;
export const STATEMENT_TIMEOUT_MS = 1500;
export const QUERY_TIMEOUT_MS = 2000;

/** SQLSTATEs that say the schema is gone: undefined_table, undefined_column, no database. */
const SCHEMA_LOST = new Set(['42P01', '42703', '3D000']);

export { SETUP_RETRY_MAX_MS, SETUP_RETRY_MIN_MS } from './postgres-setup.js';
export type { PostgresHistoryStoreLogger } from './postgres-setup.js';

export interface PostgresHistoryStoreOptions {
  /** `postgres://user:pass@host:port/database` (or `postgresql://`). */
  url: string;
  /** Connections this process holds at most (`--postgres-pool-max-size`). */
  poolMaxSize: number;
  /** Told when the schema cannot be set up and when it is; silent by default. */
  logger?: PostgresHistoryStoreLogger | undefined;
}

/**
 * Opens the store: resolves once the schema is ready or after OPEN_WAIT_MS, whichever is first,
 * and never rejects for an unreachable Postgres (the store then answers `HistoryStoreError`
 * until its background setup succeeds).
 */
export async function openPostgresHistoryStore(
  opts: PostgresHistoryStoreOptions,
): Promise<HistoryStore> {
  if (!(Number.isSafeInteger(opts.poolMaxSize) && opts.poolMaxSize >= 1)) {
    throw new RangeError(`poolMaxSize must be a positive integer, got ${opts.poolMaxSize}`);
  }
  const store = new PostgresHistoryStore(opts);
  await store.setup.untilSettled(OPEN_WAIT_MS);
  return store;
}

class PostgresHistoryStore implements HistoryStore {
  readonly backend = 'postgres' as const;
  readonly #pool: Pool;
  readonly setup: PostgresSchemaSetup;
  #closed = false;

  constructor(opts: PostgresHistoryStoreOptions) {
    const clientConfig = {
      connectionString: opts.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      // A transaction left open by a client that went away must not hold its locks for long.
      idle_in_transaction_session_timeout: 5000,
      keepAlive: true,
      application_name: 'switchyard',
    };
    this.#pool = new Pool({ ...clientConfig, max: opts.poolMaxSize });
    // An idle client whose server went away reports it here; unheard, it would end the process.
    this.#pool.on('error', () => undefined);
    // So does a checked-out one between statements (its call sees its own failure).
    this.#pool.on('connect', (client) => client.on('error', () => undefined));
    this.setup = new PostgresSchemaSetup(clientConfig, opts.logger);
    this.setup.start();
  }

  async putResponse(response: StoredResponse): Promise<void> {
    await this.#query('putResponse', q.PUT_RESPONSE, q.responseParams(response));
  }

  async getResponse(id: string): Promise<StoredResponse | undefined> {
    const { rows } = await this.#query<q.ResponseRow>('getResponse', q.GET_RESPONSE, [id]);
    return rows[0] && q.responseFromRow(rows[0]);
  }

  async deleteResponse(id: string): Promise<boolean> {
    return ((await this.#query('deleteResponse', q.DELETE_RESPONSE, [id])).rowCount ?? 0) > 0;
  }

  async responseChain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    const depth = Math.floor(maxDepth);
    if (!(depth >= 1)) return this.#answer('responseChain', []);
    const { rows } = await this.#query<q.ResponseRow>('responseChain', q.RESPONSE_CHAIN, [
      id,
      depth,
    ]);
    return rows.map(q.responseFromRow);
  }

  async createConversation(c: Conversation): Promise<void> {
    const params = [c.id, c.createdAt, JSON.stringify(c.metadata)];
    await this.#query('createConversation', q.CREATE_CONVERSATION, params);
  }

  async getConversation(id: string): Promise<Conversation | undefined> {
    const { rows } = await this.#query<q.ConversationRow>('getConversation', q.GET_CONVERSATION, [
      id,
    ]);
    return rows[0] && q.conversationFromRow(rows[0]);
  }

  async setConversationMetadata(
    id: string,
    metadata: JsonObject,
  ): Promise<Conversation | undefined> {
    const params = [id, JSON.stringify(metadata)];
    const { rows } = await this.#query<q.ConversationRow>(
      'setConversationMetadata',
      q.SET_CONVERSATION_METADATA,
      params,
    );
    return rows[0] && q.conversationFromRow(rows[0]);
  }

  async deleteConversation(id: string): Promise<boolean> {
    const result = await this.#query('deleteConversation', q.DELETE_CONVERSATION, [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async putItems(items: readonly StoredItem[]): Promise<void> {
    // One statement cannot write a row twice; the last copy of an id is the one that stands.
    const unique = [...new Map(items.map((i) => [i.id, i])).values()];
    if (unique.length === 0) return this.#answer('putItems', undefined);
    await this.#query('putItems', q.PUT_ITEMS, q.itemColumns(unique));
  }

  async getItem(id: string): Promise<StoredItem | undefined> {
    const { rows } = await this.#query<q.ItemRow>('getItem', q.GET_ITEM, [id]);
    return rows[0] && q.itemFromRow(rows[0]);
  }

  async linkItems(conversationId: string, itemIds: readonly string[]): Promise<void> {
    const unique = [...new Set(itemIds)];
    if (unique.length === 0) return this.#answer('linkItems', undefined);
    await this.#withClient('linkItems', (client) =>
      inTransaction(client, async () => {
        await client.query(q.LOCK_CONVERSATION, [q.LINK_LOCK_CLASS, conversationId]);
        await client.query(q.LINK_ITEMS, [conversationId, unique]);
      }),
    );
  }

  async isLinked(conversationId: string, itemId: string): Promise<boolean> {
    const { rows } = await this.#query('isLinked', q.IS_LINKED, [conversationId, itemId]);
    return rows.length > 0;
  }

  async listItems(conversationId: string, query: ListItemsQuery): Promise<ItemPage> {
    const limit = Math.max(1, Math.floor(query.limit));
    const after = query.after !== undefined;
    const params: unknown[] = [conversationId, limit + 1];
    if (after) params.push(query.after);
    const sql = q.listItemsSql(query.order, after);
    const { rows } = await this.#query<q.ItemRow>('listItems', sql, params);
    return { items: rows.slice(0, limit).map(q.itemFromRow), hasMore: rows.length > limit };
  }

  async unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    const result = await this.#query('unlinkItem', q.UNLINK_ITEM, [conversationId, itemId]);
    return (result.rowCount ?? 0) > 0;
  }

  async reachable(): Promise<boolean> {
    if (this.#closed || !this.setup.ready) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), QUERY_TIMEOUT_MS);
    });
    const answered = this.#pool.query('SELECT 1').then(
      () => true,
      (err: unknown) => {
        // A dropped database shows here first when no call came: start setting it up again.
        this.#failure('reachable', err);
        return false;
      },
    );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.setup.close();
    await this.#pool.end();
  }

  /** Rejects unless the store can take calls now. */
  #check(op: string): void {
    if (this.#closed) throw new HistoryStoreError('postgres', `${op}: the history store is closed`);
    if (!this.setup.ready) {
      const cause = this.setup.lastError;
      const why = cause === undefined ? 'not set up yet' : describeError(cause);
      throw new HistoryStoreError('postgres', `${op}: Postgres history schema not ready (${why})`, {
        cause,
      });
    }
  }

  /** The answer of a call that needs no statement, once the store could take one. */
  async #answer<T>(op: string, value: T): Promise<T> {
    this.#check(op);
    return Promise.resolve(value);
  }

  async #query<R extends QueryResultRow = QueryResultRow>(
    op: string,
    sql: string,
    params: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    this.#check(op);
    try {
      // pool.query gives a client back broken (closed, not reused) when its statement failed.
      return await this.#pool.query<R>(sql, params);
    } catch (err) {
      throw this.#failure(op, err);
    }
  }

  async #withClient<T>(op: string, body: (client: PoolClient) => Promise<T>): Promise<T> {
    this.#check(op);
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw this.#failure(op, err);
    }
    let failed: Error | undefined;
    try {
      return await body(client);
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
      throw this.#failure(op, err);
    } finally {
      // A failed client may be mid-statement or mid-transaction: close it rather than reuse it.
      client.release(failed);
    }
  }

  #failure(op: string, err: unknown): HistoryStoreError {
    if (SCHEMA_LOST.has(sqlState(err)) && !this.#closed) this.setup.lost(err);
    const message = `${op}: Postgres did not answer: ${describeError(err)}`;
    return new HistoryStoreError('postgres', message, { cause: err });
  }
}

function sqlState(err: unknown): string {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : '';
  return typeof code === 'string' ? code : '';
}
