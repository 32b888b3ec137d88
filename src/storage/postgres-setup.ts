/**
 * Keeps the Postgres history schema set up for one store: one attempt at a time on a connection
 * of its own, retried with a bounded backoff while Postgres is down or the database missing,
 * and started again when the store finds the tables gone. The store takes calls only while
 * `ready` holds.
 */
import { Client, type ClientConfig } from 'pg';
import { migrate } from './postgres-schema.js';

export const SETUP_RETRY_MIN_MS = 100;
export const SETUP_RETRY_MAX_MS = 2000;
/** A migration may rewrite a table, or wait for another replica's: longer bounds than a call's. */
const SETUP_STATEMENT_TIMEOUT_MS = 30_000;
const SETUP_QUERY_TIMEOUT_MS = 32_000;

/** The pino methods the store logs with. */
export interface PostgresHistoryStoreLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class PostgresSchemaSetup {
  #ready = false;
  #closed = false;
  #lastError: unknown;
  #retryMs = SETUP_RETRY_MIN_MS;
  #timer: NodeJS.Timeout | undefined;
  /** The attempt in flight, if any. */
  #attempt: Promise<void> | undefined;
  /** Its connection, so close() can cut an attempt stuck on a server that stopped answering. */
  #client: Client | undefined;

  constructor(
    private readonly clientConfig: ClientConfig,
    private readonly log: PostgresHistoryStoreLogger | undefined,
  ) {}

  get ready(): boolean {
    return this.#ready;
  }

  /** Why it is not ready: the last attempt's error, or undefined before the first has ended. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** Starts an attempt now unless one is in flight (a retry already scheduled is cancelled). */
  start(): void {
    if (this.#attempt || this.#closed) return;
    clearTimeout(this.#timer);
    this.#attempt = this.#tryOnce().finally(() => (this.#attempt = undefined));
  }

  /** The store found the schema gone (a database dropped and made again): set it up again. */
  lost(err: unknown): void {
    if (!this.#ready || this.#closed) return;
    this.#ready = false;
    this.#lastError = err;
    this.log?.warn({ err: describeError(err) }, 'Postgres history schema is gone; setting it up');
    this.start();
  }

  /** Resolves once the attempt in flight has ended or `ms` have passed. */
  async untilSettled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    try {
      await Promise.race([this.#attempt, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    void this.#client?.end().catch(() => undefined);
    await this.#attempt;
  }

  async #tryOnce(): Promise<void> {
    const client = new Client({
      ...this.clientConfig,
      statement_timeout: SETUP_STATEMENT_TIMEOUT_MS,
      query_timeout: SETUP_QUERY_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    this.#client = client;
    try {
      await client.connect();
      const applied = await migrate(client);
      this.#ready = true;
      this.#retryMs = SETUP_RETRY_MIN_MS;
      if (this.#lastError !== undefined || applied.length > 0) {
        this.log?.info({ applied }, 'Postgres history schema ready');
      }
      this.#lastError = undefined;
    } catch (err) {
      // One warning per outage; the store's 503s say the rest.
      if (this.#lastError === undefined) {
        this.log?.warn({ err: describeError(err) }, 'Postgres history schema not ready; retrying');
      }
      this.#lastError = err;
      if (!this.#closed) {
        this.#timer = setTimeout(() => this.start(), this.#retryMs);
        // The retries alone must not keep a process alive that has nothing else to do.
        this.#timer.unref();
        this.#retryMs = Math.min(this.#retryMs * 2, SETUP_RETRY_MAX_MS);
      }
    } finally {
      this.#client = undefined;
      await client.end().catch(() => undefined);
    }
  }
}

/** An error's message for a log line or a HistoryStoreError (pg's connect errors can be several). */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describeError(err.errors[0]);
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
