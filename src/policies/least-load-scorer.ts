/**
 * The least_load score (SMG `least_load.rs`), shared with power_of_two.
 * Lower is better; the unit is seconds of expected wait:
 *
 *   score = (queued_tokens + inflight_tokens) / throughput + λ · k / (1 − k)
 *
 * - queued_tokens: Σ waiting uncached tokens over DP ranks, or waiting_reqs · p̄ when that is 0;
 * - inflight_tokens: tokens this gateway sent the worker since its last load report, which
 *   stops a whole poll interval of arrivals landing on the worker that looked idlest (incast);
 * - throughput: Σ gen_throughput if positive, else the default;
 * - k: mean KV usage over ranks, clamped to [0, 0.999]: an M/M/1-style barrier at the KV cliff.
 * A worker without a report while peers have one scores `load · p̄ / nominal` (nominal = the
 * mean positive reported throughput); when nobody reports, the score is the gateway in-flight
 * count (join-shortest-queue).
 *
 * Staleness: the load monitor clears `worker.loadSnapshot` once a report is older than three
 * poll intervals, so a stale report never makes a busy worker look idle here; such a worker is
 * scored as one without a report. The since-poll tally is reset whenever the snapshot's
 * `receivedAt` changes (a fresh report already reflects everything sent before it).
 */
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import { sumWaitingReqs } from '../workers/load-snapshot.js';

export interface LeastLoadParams {
  /** λ, seconds. */
  readonly kvPressureWeight: number;
  /** Tokens/s when a worker reports no throughput. */
  readonly defaultThroughput: number;
  /** p̄: tokens assumed for a request of unknown length. */
  readonly meanPrefillTokens: number;
  /** Waiting-queue cap per worker; 0 = off. */
  readonly maxWaitingRequests: number;
}

/** SMG's built-in defaults; power_of_two always uses these (the CLI knobs are not passed to it). */
export const DEFAULT_LEAST_LOAD_PARAMS: LeastLoadParams = {
  kvPressureWeight: 0.15,
  defaultThroughput: 2000,
  meanPrefillTokens: 1024,
  maxWaitingRequests: 0,
};

/** What the whole candidate set reports. */
export interface FleetView {
  readonly hasLoads: boolean;
  readonly nominalThroughput: number;
}

/**
 * The view to pass when every worker being scored has an engine report: `score` reads the
 * fleet view only for a worker without one, so the real view need not be computed.
 */
export const ALL_REPORTING: FleetView = { hasLoads: true, nominalThroughput: Number.NaN };

interface SincePoll {
  /** `receivedAt` of the snapshot this tally counts from; NaN when there was none. */
  receivedAt: number;
  tokens: number;
  requests: number;
}

const MAX_USAGE = 0.999;

export class LeastLoadScorer {
  /** Keyed by worker object (identity lookups are cheaper than string keys on this hot path). */
  readonly #sincePoll = new WeakMap<Worker, SincePoll>();
  #fleetOf: readonly Worker[] | undefined;
  #fleetVersion = 0;
  #fleetView: FleetView | undefined;

  constructor(readonly params: LeastLoadParams) {}

  /**
   * `fleet(candidates.available)`, computed again only when the available list or some engine
   * report changed since the last call (O(n) then, O(1) otherwise).
   */
  fleetOf(candidates: CandidateSet): FleetView {
    const available = candidates.available;
    const version = candidates.reportVersion;
    if (
      this.#fleetView === undefined ||
      this.#fleetOf !== available ||
      this.#fleetVersion !== version
    ) {
      this.#fleetView = this.fleet(available);
      this.#fleetOf = available;
      this.#fleetVersion = version;
    }
    return this.#fleetView;
  }

  fleet(workers: readonly Worker[]): FleetView {
    let hasLoads = false;
    let sum = 0;
    let count = 0;
    for (const w of workers) {
      const s = w.loadSnapshot;
      if (s === undefined) continue;
      hasLoads = true;
      let t = 0;
      for (const r of s.ranks) t += r.genThroughput;
      if (t > 0) {
        sum += t;
        count++;
      }
    }
    return { hasLoads, nominalThroughput: count > 0 ? sum / count : this.params.defaultThroughput };
  }

  score(worker: Worker, fleet: FleetView): number {
    const s = worker.loadSnapshot;
    const { kvPressureWeight, defaultThroughput, meanPrefillTokens } = this.params;
    if (s === undefined)
      return fleet.hasLoads
        ? (worker.load * meanPrefillTokens) / fleet.nominalThroughput
        : worker.load;
    // One pass over the DP ranks (sums, and the mean usage) instead of four: this runs per worker.
    let uncached = 0;
    let waiting = 0;
    let reported = 0;
    let usage = 0;
    for (const r of s.ranks) {
      uncached += r.waitingUncachedTokens;
      waiting += r.waitingReqs;
      reported += r.genThroughput;
      usage += r.tokenUsage;
    }
    const queued = uncached > 0 ? uncached : waiting * meanPrefillTokens;
    const inflight = this.#tally(worker)?.tokens ?? 0;
    const throughput = reported > 0 ? reported : defaultThroughput;
    const meanUsage = s.ranks.length > 0 ? usage / s.ranks.length : 0;
    const k = Math.min(Math.max(meanUsage, 0), MAX_USAGE);
    return (queued + inflight) / throughput + (kvPressureWeight * k) / (1 - k);
  }

  /**
   * True when the waiting cap excludes the worker: `waiting_reqs + since_poll_requests ≥ cap`.
   * A worker without a report is never capped (nothing says its queue is long).
   */
  capped(worker: Worker): boolean {
    const cap = this.params.maxWaitingRequests;
    const s = worker.loadSnapshot;
    if (cap <= 0 || s === undefined) return false;
    return sumWaitingReqs(s) + (this.#tally(worker)?.requests ?? 0) >= cap;
  }

  /** Credits a dispatch to the worker's since-poll tally: the request's tokens if known, else p̄. */
  credit(worker: Worker, tokens: number | undefined): void {
    const receivedAt = worker.loadSnapshot?.receivedAt ?? Number.NaN;
    let tally = this.#tally(worker);
    if (tally === undefined) {
      tally = { receivedAt, tokens: 0, requests: 0 };
      this.#sincePoll.set(worker, tally);
    }
    tally.tokens += tokens ?? this.params.meanPrefillTokens;
    tally.requests += 1;
  }

  forget(worker: Worker): void {
    this.#sincePoll.delete(worker);
  }

  /** The tally if it still counts from the worker's current report; a stale one is reset. */
  #tally(worker: Worker): SincePoll | undefined {
    const tally = this.#sincePoll.get(worker);
    if (tally === undefined) return undefined;
    const receivedAt = worker.loadSnapshot?.receivedAt ?? Number.NaN;
    if (Object.is(tally.receivedAt, receivedAt)) return tally;
    tally.receivedAt = receivedAt;
    tally.tokens = 0;
    tally.requests = 0;
    return tally;
  }
}
