/**
 * The admission store shared by gateway replicas on different hosts: decode claims and prefill
 * slots counted in Redis, so a worker's limit holds across every replica in front of it.
 *
 * - Exact: each take is one Lua script (redis-scripts.ts) that checks and adds atomically.
 * - Leased: a ticket lapses `leaseMs` after its last renewal, so a crashed replica's claims free
 *   themselves; this process renews its live tickets every leaseMs/3, one script call per key.
 * - Woken: give-backs and lapses are published; a subscriber connection turns them into
 *   `onFreed` calls and `seen` hints. Pub/sub loses messages while disconnected, so the
 *   controllers also poll (STORE_POLL_MS) and the store wakes every key when it comes back.
 * - Never stuck: when Redis does not answer (connection lost, command timed out) the store
 *   goes down and admits from this process's share of each limit (redis-ledger.ts), keeping
 *   what it owes Redis; once Redis answers again it adopts those tickets, sends the give-backs
 *   and only then comes back up. While down, `seen` and a take's `total` are this replica's own
 *   units on the key, the only count the fallback knows.
 */
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock, type Timer } from '@switchyard/kit';
import { connect, quit, type Connections } from './redis-connection.js';
import { fallbackLimit, Ledger, RedisTicket } from './redis-ledger.js';
import { AdmissionScripts, channelOf, parseFreed } from './redis-scripts.js';
import { LedgerSync } from './redis-sync.js';
import type { AdmissionStore, StoreTicket, TakeResult } from './types.js';
import {
  DEFAULT_PREFIX,
  OPEN_WAIT_MS,
  silent,
  type RedisStoreLogger,
  type RedisStoreOptions,
  type RedisStoreStatus,
} from './redis-options.js';

export { DEFAULT_PREFIX, OPEN_WAIT_MS } from './redis-options.js';
export type { RedisStoreLogger, RedisStoreOptions, RedisStoreStatus } from './redis-options.js';

export class RedisStore implements AdmissionStore {
  readonly kind = 'redis' as const;
  readonly synchronous = false;
  readonly #conn: Connections;
  readonly #scripts: AdmissionScripts;
  readonly #ledger = new Ledger();
  readonly #sync: LedgerSync;
  readonly #origin = randomBytes(6).toString('hex');
  #nextId = 0;
  readonly #leaseMs: number;
  readonly #replicas: number | undefined;
  readonly #log: RedisStoreLogger;
  readonly #clock: Clock;
  readonly #channel: string;
  #up = false;
  #closed = false;
  #warnedReplicas = false;
  #lastError: Error | undefined;
  /** Totals last seen in Redis; cleared when it goes down (they go stale). */
  readonly #seen = new Map<string, number>();
  /** Keys refused since their last grant: they may have waiters to wake when the store is back. */
  readonly #refused = new Set<string>();
  readonly #freed = new Set<(key: string) => void>();
  readonly #upChange = new Set<(up: boolean) => void>();
  #timer: Timer | undefined;
  /** The one renewal or recovery pass in flight; every pass goes through #reconcile. */
  #reconciling: Promise<void> | undefined;

  /** Connects, waiting up to OPEN_WAIT_MS; starts down (fallback) and keeps trying if it cannot. */
  static async open(opts: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(opts);
    await store.#whenUp(OPEN_WAIT_MS);
    if (!store.#up) store.#reportDown(store.#lastError, 'Redis unreachable at start');
    return store;
  }

  private constructor(opts: RedisStoreOptions) {
    if (!(opts.leaseMs > 0)) throw new RangeError(`leaseMs must be positive, got ${opts.leaseMs}`);
    if (opts.replicas !== undefined && !(Number.isSafeInteger(opts.replicas) && opts.replicas >= 1))
      throw new RangeError(`replicas must be a positive integer, got ${opts.replicas}`);
    this.#leaseMs = Math.ceil(opts.leaseMs);
    this.#replicas = opts.replicas;
    this.#log = opts.logger ?? silent;
    this.#clock = opts.clock ?? systemClock;
    const prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.#channel = channelOf(prefix);
    this.#conn = connect(opts.url);
    const { cmd, sub } = this.#conn;
    this.#scripts = new AdmissionScripts(cmd, {
      prefix,
      origin: this.#origin,
      leaseMs: this.#leaseMs,
    });
    this.#sync = new LedgerSync(this.#ledger, this.#scripts, (key, total) => this.#saw(key, total));
    // ioredis reports every failed (re)connect as an 'error' event; the store reports outages
    // itself, once each, so an event is only kept as the cause to report.
    cmd.on('error', (err: Error) => (this.#lastError = err));
    sub.on('error', () => undefined);
    cmd.on('ready', () => {
      this.#lastError = undefined;
      this.#reconcile();
    });
    cmd.on('close', () => this.#down(this.#lastError ?? new Error('connection to Redis closed')));
    sub.on('ready', () => this.#subscribe());
    sub.on('message', (_channel: string, message: string) => this.#message(message));
    this.#schedule();
  }

  get up(): boolean {
    return this.#up;
  }

  status(): RedisStoreStatus {
    return {
      up: this.#up,
      tickets: this.#ledger.tickets,
      pendingGiveBacks: this.#ledger.pending.size,
    };
  }

  /** Rejects only on bad arguments (units a positive integer, limit a finite number). */
  async tryTake(key: string, units: number, limit: number): Promise<TakeResult> {
    // A bad argument would fail the script, and a failed script takes the store down.
    if (!Number.isSafeInteger(units) || units < 1 || !Number.isFinite(limit))
      throw new RangeError(`tryTake needs positive integer units and a finite limit`);
    if (!this.#up) return this.#fallbackTake(key, units, limit, undefined);
    const id = this.#newId();
    try {
      const { granted, total, reaped } = await this.#scripts.take(key, id, units, limit);
      this.#saw(key, total);
      let ticket: RedisTicket | undefined;
      if (granted) {
        this.#refused.delete(key);
        ticket = new RedisTicket(this.#ledger, key, id, units, 'yes');
        this.#ledger.add(ticket);
      } else this.#refused.add(key);
      // This take reaped lapsed tickets: its announcement skips this process, so wake here.
      if (reaped > 0) this.#fire(key);
      return { ticket, total };
    } catch (err) {
      this.#down(err);
      // The take may have run all the same: the fallback's answer keeps its id, so recovery
      // adopts it (granted here) or gives it back (refused here) and Redis ends up agreeing.
      return this.#fallbackTake(key, units, limit, id);
    }
  }

  giveBack(ticket: StoreTicket, units: number): void {
    if (!(ticket instanceof RedisTicket) || ticket.ledger !== this.#ledger) return;
    if (this.#ledger.release(ticket, units) === 0) return;
    if (this.#up && ticket.remote === 'yes' && !ticket.adopting && !this.#closed) {
      this.#sendGiveBack(ticket);
      return;
    }
    // Redis may count it and cannot be told now: tell it when it answers again. An adopting
    // ticket is reconciled when the adopt answers; a 'no' ticket was never in Redis.
    if (ticket.remote !== 'no' && !ticket.adopting) this.#ledger.pending.add(ticket);
    // Down, the room is freed in the fallback: local waiters may go now.
    if (!this.#up) this.#fire(ticket.key);
  }

  seen(key: string): number {
    return this.#up ? (this.#seen.get(key) ?? 0) : this.#ledger.held(key);
  }

  onFreed(listener: (key: string) => void): () => void {
    this.#freed.add(listener);
    return () => this.#freed.delete(listener);
  }

  onUpChange(listener: (up: boolean) => void): () => void {
    this.#upChange.add(listener);
    return () => this.#upChange.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#clock.clearTimer(this.#timer);
    await Promise.all([quit(this.#conn.cmd), quit(this.#conn.sub)]);
    this.#up = false;
  }

  #fallbackTake(key: string, units: number, limit: number, id: string | undefined): TakeResult {
    const held = this.#ledger.held(key);
    if (held + units > fallbackLimit(limit, this.#replicas)) {
      this.#refused.add(key);
      // A take that got no answer and is refused here must not stay in Redis if it ran there.
      if (id !== undefined)
        this.#ledger.pending.add(new RedisTicket(this.#ledger, key, id, 0, 'maybe'));
      return { ticket: undefined, total: held };
    }
    this.#refused.delete(key);
    const ticket = new RedisTicket(
      this.#ledger,
      key,
      id ?? this.#newId(),
      units,
      id ? 'maybe' : 'no',
    );
    this.#ledger.add(ticket);
    return { ticket, total: held + units };
  }

  #sendGiveBack(ticket: RedisTicket): void {
    const keep = ticket.units;
    this.#scripts.giveBack(ticket.key, ticket.id, keep).then(
      ({ total }) => {
        this.#saw(ticket.key, total);
        this.#fire(ticket.key);
      },
      (err: unknown) => {
        this.#ledger.pending.add(ticket);
        this.#down(err);
        this.#fire(ticket.key);
      },
    );
  }

  /**
   * One pass that renews every live ticket and, when anything is owed to Redis (fallback
   * tickets, lapsed leases, give-backs kept while down), sends it; the store is up only once
   * nothing is owed. Runs every leaseMs/3 and when the connection becomes ready.
   */
  #reconcile(): void {
    if (this.#closed || this.#reconciling || this.#conn.cmd.status !== 'ready') return;
    const pass = async (): Promise<void> => {
      await this.#sync.renewAll();
      // Takes answered by the fallback while a round runs add to what is owed: go again until
      // nothing is, then come up with no await in between.
      while (this.#ledger.unsynced()) await this.#sync.round();
      if (!this.#up && !this.#closed) this.#setUp();
    };
    this.#reconciling = pass()
      .catch((err: unknown) => this.#down(err))
      .finally(() => (this.#reconciling = undefined));
  }

  #setUp(): void {
    this.#up = true;
    this.#log.info({ store: 'redis' }, 'admission store: Redis reachable, shared limits in force');
    for (const listener of this.#upChange) listener(true);
    this.#wakeAll();
  }

  /** Redis did not answer: from now on, and until a reconcile pass succeeds, the fallback. */
  #down(err: unknown): void {
    if (this.#closed || !this.#up) return;
    this.#up = false;
    this.#seen.clear();
    this.#reportDown(err, 'Redis unreachable');
    for (const listener of this.#upChange) listener(false);
  }

  #reportDown(err: unknown, what: string): void {
    const replicas = this.#replicas;
    this.#log.warn(
      { store: 'redis', err, replicas },
      `admission store: ${what}; admitting from this replica's share of each limit until it is back`,
    );
    if (replicas === undefined && !this.#warnedReplicas) {
      this.#warnedReplicas = true;
      this.#log.warn(
        { store: 'redis' },
        'admission store: replica count unknown, so while Redis is down each replica admits the ' +
          'full limit and the replicas together may over-admit a worker',
      );
    }
  }

  #subscribe(): void {
    this.#conn.sub.subscribe(this.#channel).then(
      // Messages published while the subscriber was away are lost: let every waiter try.
      () => {
        if (this.#up) this.#wakeAll();
      },
      () => undefined,
    );
  }

  #message(message: string): void {
    const freed = parseFreed(message);
    // Our own give-backs already woke our waiters from their replies.
    if (!freed || freed.origin === this.#origin || !this.#up) return;
    this.#saw(freed.key, freed.total);
    this.#fire(freed.key);
  }

  #wakeAll(): void {
    const keys = new Set([...this.#refused, ...this.#seen.keys(), ...this.#ledger.keys()]);
    for (const key of keys) this.#fire(key);
  }

  #fire(key: string): void {
    // Its waiters ask again now; a key refused again is noted again, so the set holds only keys
    // refused since their last wake-up and churned worker keys do not accumulate in it.
    this.#refused.delete(key);
    for (const listener of this.#freed) listener(key);
  }

  #saw(key: string, total: number): void {
    if (total > 0) this.#seen.set(key, total);
    else this.#seen.delete(key);
  }

  #newId(): string {
    return `${this.#origin}:${(this.#nextId++).toString(36)}`;
  }

  #whenUp(ms: number): Promise<void> {
    if (this.#up) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        off();
        this.#clock.clearTimer(timer);
        resolve();
      };
      const off = this.onUpChange((up) => {
        if (up) done();
      });
      const timer = this.#clock.setTimer(ms, done, { keepAlive: false });
    });
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimer(
      Math.max(1, Math.floor(this.#leaseMs / 3)),
      () => {
        if (this.#closed) return;
        this.#reconcile();
        this.#schedule();
      },
      { keepAlive: false },
    );
  }
}
