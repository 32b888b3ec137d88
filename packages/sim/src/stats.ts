// Counters behind `GET /sim/stats`. Tests of the gateway read them to prove what reached the
// worker (forwarded headers, aborted upstream requests, a KV handoff that really happened instead
// of a silent recompute), so each counter moves exactly once per event; the session that owns a
// request is the only writer of its outcome.
import type { SimStats } from './options.js';

/** Live values read from the engine and the PD tables at snapshot time. */
export interface StatsGauges {
  waiting: number;
  roomsOpen: number;
  kvPinned: number;
}

// Enough for any test's burst while keeping a long benchmark's memory bounded.
const MAX_ROOMS_SEEN = 10_000;

export class StatsRecorder {
  private readonly requests = new Map<string, number>();
  private rooms: string[] = [];
  aborted = 0;
  completed = 0;
  failed = 0;
  #running = 0;
  peakRunning = 0;
  faultsFired = 0;
  bootstrapTimeouts = 0;
  transferTimeouts = 0;
  roomsAborted = 0;
  kvTransfers = 0;
  kvTransfersSent = 0;
  kvExpired = 0;
  promptsRecomputed = 0;
  cachedTokens = 0;
  lastRequest: SimStats['lastRequest'];

  constructor(
    private readonly gauges: () => StatsGauges = () => ({ waiting: 0, roomsOpen: 0, kvPinned: 0 }),
  ) {}

  /** Requests open now; every change is seen here, so the peak is exact. */
  get running(): number {
    return this.#running;
  }

  set running(n: number) {
    this.#running = n;
    if (n > this.peakRunning) this.peakRunning = n;
  }

  countRequest(path: string): void {
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
  }

  recordPost(
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: unknown,
  ): void {
    this.lastRequest = { path, headers: { ...headers }, body };
  }

  recordRooms(rooms: readonly string[]): void {
    this.rooms.push(...rooms);
    if (this.rooms.length > MAX_ROOMS_SEEN) this.rooms = this.rooms.slice(-MAX_ROOMS_SEEN);
  }

  /** A detached copy, safe to serialize or hand to a test. */
  snapshot(): SimStats {
    const g = this.gauges();
    const stats: SimStats = {
      requests: Object.fromEntries(this.requests),
      aborted: this.aborted,
      completed: this.completed,
      failed: this.failed,
      running: this.running,
      peakRunning: this.peakRunning,
      waiting: g.waiting,
      faultsFired: this.faultsFired,
      roomsOpen: g.roomsOpen,
      roomsSeen: [...this.rooms],
      bootstrapTimeouts: this.bootstrapTimeouts,
      transferTimeouts: this.transferTimeouts,
      roomsAborted: this.roomsAborted,
      kvTransfers: this.kvTransfers,
      kvTransfersSent: this.kvTransfersSent,
      kvPinned: g.kvPinned,
      kvExpired: this.kvExpired,
      promptsRecomputed: this.promptsRecomputed,
      cachedTokens: this.cachedTokens,
    };
    if (this.lastRequest !== undefined) stats.lastRequest = structuredClone(this.lastRequest);
    return stats;
  }
}
