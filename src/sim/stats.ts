// Counters behind `GET /sim/stats`. Tests of the gateway read them to prove what reached the
// worker (forwarded headers, aborted upstream requests), so each counter moves exactly once per
// request outcome; the session that owns a request is the only writer of its outcome.
import type { SimStats } from './options.js';

export class StatsRecorder {
  private readonly requests = new Map<string, number>();
  aborted = 0;
  completed = 0;
  running = 0;
  faultsFired = 0;
  lastRequest: SimStats['lastRequest'];

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

  /** A detached copy, safe to serialize or hand to a test. */
  snapshot(): SimStats {
    const stats: SimStats = {
      requests: Object.fromEntries(this.requests),
      aborted: this.aborted,
      completed: this.completed,
      running: this.running,
      faultsFired: this.faultsFired,
    };
    if (this.lastRequest !== undefined) stats.lastRequest = structuredClone(this.lastRequest);
    return stats;
  }
}
