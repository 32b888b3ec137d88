// The benchmarks' load generator: closed-loop (N clients back to back) or open-loop (Poisson
// arrivals at a fixed rate), over undici Pools with keep-alive, one pool per origin. It is
// streaming aware: for every response it records the time to headers, to the first body byte,
// to the first complete SSE event, and the gap before every later event, so a proxy's added
// per-token delay can be read next to its added first-byte delay. It reports its own CPU so a
// reader can tell when the client, not the system under test, was the limit.
//
// Windows: a run has a warm-up (samples discarded) then a measurement window. A request is
// counted when it *completes* inside the window, and a stream gap when its event arrives inside
// it, so long streams that straddle the edges do not distort req/s.
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { selfCpuSeconds } from './proc.js';
import { distribution, SampleBuffer, type Distribution } from './stats.js';

export interface RequestSpec {
  path: string;
  body: string;
  /** Request headers; default `content-type: application/json` only. */
  headers?: Record<string, string>;
}

export interface Sample {
  /** Arrival sequence number (0-based, warm-up included). */
  index: number;
  origin: string;
  /** performance.now() when the request was handed to the pool. */
  start: number;
  /** Milliseconds after `start`: response head, first body byte, first complete SSE event, end. */
  headers: number;
  firstByte: number;
  firstEvent: number;
  total: number;
  /** Complete SSE events (blank-line terminated), `[DONE]` included; 0 for plain JSON. */
  events: number;
  bytes: number;
  /** HTTP status, or 0 for a transport error. */
  status: number;
  error?: string;
  body?: string;
}

export interface LoadOptions {
  origins: readonly string[];
  request: (index: number) => RequestSpec;
  closed?: { concurrency: number } | undefined;
  /** Poisson arrivals; arrivals beyond `maxInFlight` are dropped and counted, never queued. */
  open?: { ratePerSec: number; seed?: number; maxInFlight?: number };
  warmupMs?: number;
  /** Measurement window; ignored when `count` is set. */
  durationMs?: number;
  /** Open loop only: send exactly this many arrivals, then wait for all of them (no warm-up). */
  count?: number;
  /** Keep each response body in its sample (for usage fields); costs client CPU. */
  keepBody?: boolean;
  /** Called at the window's edges, e.g. to read the proxy's CPU at the same instants. */
  onWindowStart?: () => void;
  onWindowEnd?: () => void;
}

export interface LoadResult {
  samples: Sample[];
  windowMs: number;
  /** Gaps (ms) between consecutive SSE events of one response, inside the window. */
  gaps: Float64Array;
  /** SSE events (tokens, roughly) that arrived inside the window, over all responses. */
  events: number;
  clientCpuSeconds: number;
  dropped: number;
}

const HEADERS = { 'content-type': 'application/json' };
const LF = 10;

/** Sends one request; resolves (never rejects) with its sample. `onEvent` sees every SSE event (gap NaN for the first). */
function send(
  pool: Pool,
  origin: string,
  index: number,
  spec: RequestSpec,
  keepBody: boolean,
  onEvent: (at: number, gapMs: number) => void,
): Promise<Sample> {
  return new Promise((resolve) => {
    const start = performance.now();
    const s: Sample = {
      index,
      origin,
      start,
      headers: NaN,
      firstByte: NaN,
      firstEvent: NaN,
      total: NaN,
      events: 0,
      bytes: 0,
      status: 0,
    };
    const parts: Buffer[] | undefined = keepBody ? [] : undefined;
    let lastEventAt = 0;
    let prevByte = 0;
    const handler: Dispatcher.DispatchHandler = {
      // Its presence selects undici's controller-style handler API.
      onRequestStart() {},
      onResponseStart(_c, statusCode) {
        s.status = statusCode;
        s.headers = performance.now() - start;
      },
      onResponseData(_c, chunk) {
        const now = performance.now();
        if (s.bytes === 0) s.firstByte = now - start;
        s.bytes += chunk.length;
        parts?.push(chunk);
        // An event ends at a blank line; the "\n\n" may be split across two chunks.
        let at = prevByte === LF && chunk[0] === LF ? 0 : chunk.indexOf('\n\n');
        while (at !== -1) {
          if (s.events === 0) s.firstEvent = now - start;
          onEvent(now, s.events === 0 ? NaN : now - lastEventAt);
          lastEventAt = now;
          s.events++;
          at = chunk.indexOf('\n\n', at + 2);
        }
        prevByte = chunk[chunk.length - 1] ?? 0;
      },
      onResponseEnd() {
        s.total = performance.now() - start;
        if (parts) s.body = Buffer.concat(parts).toString('utf8');
        resolve(s);
      },
      onResponseError(_c, err) {
        s.total = performance.now() - start;
        s.status = 0;
        s.error = err.message;
        resolve(s);
      },
    };
    pool.dispatch(
      { path: spec.path, method: 'POST', headers: spec.headers ?? HEADERS, body: spec.body },
      handler,
    );
  });
}

/** Seeded exponential inter-arrival times (mulberry32), so every path sees the same schedule. */
function exponential(ratePerSec: number, seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return (-Math.log(1 - u) / ratePerSec) * 1000;
  };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if ((opts.closed === undefined) === (opts.open === undefined))
    throw new Error('runLoad: give exactly one of closed, open');
  const conns = opts.closed?.concurrency ?? opts.open?.maxInFlight ?? 1024;
  const pools = opts.origins.map((o) => new Pool(o, { connections: conns, pipelining: 1 }));
  const counted = opts.count !== undefined;
  const warmupMs = counted ? 0 : (opts.warmupMs ?? 1000);
  const t0 = performance.now();
  const windowStart = t0 + warmupMs;
  const windowEnd = counted ? Infinity : windowStart + (opts.durationMs ?? 3000);
  const samples: Sample[] = [];
  const gaps = new SampleBuffer();
  let events = 0;
  const onEvent = (at: number, gap: number): void => {
    if (at < windowStart || at > windowEnd) return;
    events++;
    if (!Number.isNaN(gap)) gaps.push(gap);
  };
  let next = 0;
  let inFlight = 0;
  let dropped = 0;
  const one = async (): Promise<void> => {
    const index = next++;
    const k = index % pools.length;
    inFlight++;
    const s = await send(
      pools[k] as Pool,
      opts.origins[k] ?? '',
      index,
      opts.request(index),
      opts.keepBody === true,
      onEvent,
    );
    inFlight--;
    const end = s.start + s.total;
    if (end >= windowStart && end <= windowEnd) samples.push(s);
  };

  // Window edges run on timers so that CPU readings bracket exactly the counted interval.
  let cpuStart = selfCpuSeconds();
  let cpuEnd = NaN;
  let realEnd = windowEnd;
  const markStart = (): void => {
    cpuStart = selfCpuSeconds();
    opts.onWindowStart?.();
  };
  const startTimer = warmupMs > 0 ? setTimeout(markStart, warmupMs) : undefined;
  if (warmupMs === 0) markStart();
  let ended = false;
  const markEnd = (): void => {
    if (ended) return;
    ended = true;
    cpuEnd = selfCpuSeconds();
    realEnd = Math.min(performance.now(), windowEnd);
    opts.onWindowEnd?.();
  };
  const endTimer = Number.isFinite(windowEnd) ? setTimeout(markEnd, windowEnd - t0) : undefined;

  try {
    if (opts.closed) {
      // Clients start spread over half the warm-up: started together, equal-length streams would
      // stay in phase and finish in waves, which makes completions per window lumpy.
      const n = opts.closed.concurrency;
      const loop = async (k: number): Promise<void> => {
        await new Promise((r) => setTimeout(r, (k * warmupMs) / 2 / n));
        while (performance.now() < windowEnd) await one();
      };
      await Promise.all(Array.from({ length: n }, (_, k) => loop(k)));
    } else if (opts.open) {
      const { ratePerSec, seed = 1, maxInFlight = 1024 } = opts.open;
      const gap = exponential(ratePerSec, seed);
      const pending = new Set<Promise<void>>();
      let due = t0;
      const stopAt = counted ? Infinity : windowEnd;
      let issued = 0;
      const limit = opts.count ?? Infinity;
      while (issued < limit && due < stopAt) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        // Timers fire late by up to a millisecond; send every arrival already due.
        while (issued < limit && due <= performance.now() && due < stopAt) {
          issued++;
          due += gap();
          if (inFlight >= maxInFlight) {
            dropped++;
            next++;
            continue;
          }
          const p = one();
          pending.add(p);
          void p.then(() => pending.delete(p));
        }
      }
      await Promise.all(pending);
    }
    // The last clients can finish before a late end timer fires: mark the edge here then.
    markEnd();
  } finally {
    if (startTimer) clearTimeout(startTimer);
    if (endTimer) clearTimeout(endTimer);
    await Promise.all(pools.map((p) => p.close()));
  }
  return {
    samples,
    windowMs: realEnd - (counted ? t0 : windowStart),
    gaps: gaps.values(),
    events,
    clientCpuSeconds: cpuEnd - cpuStart,
    dropped,
  };
}

export interface LoadSummary {
  requests: number;
  errors: number;
  dropped: number;
  reqPerSec: number;
  /** SSE events per second inside the window (0 for plain JSON). */
  eventsPerSec: number;
  /** Mean SSE events per successful response. */
  eventsPerRequest: number;
  /** Whole response, ms. */
  latency: Distribution;
  /** First body byte, ms. */
  ttfb: Distribution;
  /** First complete SSE event, ms (streams only). */
  ttft: Distribution;
  /** Gaps between consecutive events of a stream, ms. */
  gap: Distribution;
  clientCpuSeconds: number;
  /** Client CPU seconds per wall second: ~1.0 means the load generator itself was saturated. */
  clientCpuShare: number;
}

/** Percentiles over successful samples; errors (status 0 or >= 400) are only counted. */
export function summarize(r: LoadResult, samples: readonly Sample[] = r.samples): LoadSummary {
  const ok = samples.filter((s) => s.status >= 200 && s.status < 400);
  const pick = (f: (s: Sample) => number): number[] => ok.map(f).filter((v) => Number.isFinite(v));
  return {
    requests: samples.length,
    errors: samples.length - ok.length,
    dropped: r.dropped,
    reqPerSec: (ok.length * 1000) / r.windowMs,
    eventsPerSec: (r.events * 1000) / r.windowMs,
    eventsPerRequest: ok.length > 0 ? ok.reduce((n, s) => n + s.events, 0) / ok.length : 0,
    latency: distribution(pick((s) => s.total)),
    ttfb: distribution(pick((s) => s.firstByte)),
    ttft: distribution(pick((s) => s.firstEvent)),
    gap: distribution(r.gaps),
    clientCpuSeconds: r.clientCpuSeconds,
    clientCpuShare: (r.clientCpuSeconds * 1000) / r.windowMs,
  };
}
