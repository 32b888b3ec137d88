// What one admission claim (a take and its give-back) costs on each store, measured on the store
// objects themselves, without HTTP: InProcessStore in a loop; ClusterStore over a real IPC channel
// to an AdmissionPrimary in a forked child (primary-child.ts); RedisStore against a real
// redis-server. Every take is on one key with a limit far above the concurrency, so every take is
// granted and the figures are the round trip, not waiting.
//
// Concurrency for the asynchronous stores is the number of loops each awaiting its own take. The
// in-process store answers synchronously, so its "in flight" is the number of tickets held at
// once (a ring: give back the oldest, take a new one), and only every 64th take is timed (timing
// each one would cost more than the take).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ClusterStore, type PrimaryChannel } from '../../src/admission/store/cluster-store.js';
import { InProcessStore } from '../../src/admission/store/in-process-store.js';
import { RedisStore } from '../../src/admission/store/redis-store.js';
import type { AdmissionStore, StoreKind, StoreTicket } from '../../src/admission/store/types.js';
import { groupCpuSeconds } from '../lib/proc.js';
import { percentile, SampleBuffer } from '../lib/stats.js';
import type { BenchRedis } from './redis.js';

/** Far above any concurrency here: every take fits. */
const LIMIT = 1_000_000;
const SYNC_TIMED_EVERY = 64;

export interface ClaimRun {
  store: StoreKind;
  /** Takes awaiting an answer at once (in-process: tickets held at once). */
  concurrency: number;
  claims: number;
  refused: number;
  windowMs: number;
  claimsPerSec: number;
  takeP50Us: number;
  takeP99Us: number;
  /** CPU of this process (the gateway process's side of the store) per claim. */
  gatewayCpuUsPerClaim: number;
  /** CPU of the shared side per claim: the primary, or redis-server; NaN for in-process. */
  sharedCpuUsPerClaim: number;
  /** Who the shared CPU belongs to. */
  shared: string;
}

export interface ClaimOptions {
  concurrencies: readonly number[];
  warmupMs: number;
  windowMs: number;
  redis: BenchRedis;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface Window {
  claims: number;
  refused: number;
  windowMs: number;
  cpuUs: number;
  sharedUs: number;
  latUs: Float64Array;
}

/** N loops, each awaiting its take before giving it back and taking again. */
async function driveAsync(
  store: AdmissionStore,
  key: string,
  concurrency: number,
  opts: ClaimOptions,
  sharedCpuUs: () => number | Promise<number>,
): Promise<Window> {
  let counting = false;
  let stop = false;
  let claims = 0;
  let refused = 0;
  const lat = new SampleBuffer();
  const loop = async (): Promise<void> => {
    while (!stop) {
      const t0 = performance.now();
      const { ticket } = await store.tryTake(key, 1, LIMIT);
      const us = (performance.now() - t0) * 1000;
      if (ticket === undefined) {
        if (counting) refused++;
        continue;
      }
      store.giveBack(ticket, 1);
      if (counting) {
        claims++;
        lat.push(us);
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  await sleep(opts.warmupMs);
  const shared0 = await sharedCpuUs();
  const cpu0 = cpuMicros();
  const t0 = performance.now();
  counting = true;
  await sleep(opts.windowMs);
  counting = false;
  const windowMs = performance.now() - t0;
  const cpuUs = cpuMicros() - cpu0;
  const shared1 = await sharedCpuUs();
  stop = true;
  await Promise.all(loops);
  return { claims, refused, windowMs, cpuUs, sharedUs: shared1 - shared0, latUs: lat.values() };
}

/** A ring of `held` tickets on a synchronous store: give back the oldest, take a new one. */
async function driveSync(
  store: InProcessStore,
  key: string,
  held: number,
  opts: ClaimOptions,
): Promise<Window> {
  const ring: StoreTicket[] = [];
  for (let i = 0; i < held; i++) {
    const { ticket } = store.tryTake(key, 1, LIMIT);
    if (ticket) ring.push(ticket);
  }
  const lat = new SampleBuffer();
  const run = (ms: number, timed: boolean): number => {
    const end = performance.now() + ms;
    let n = 0;
    let slot = 0;
    // Time checked every 1024 claims; a claim is well under a microsecond.
    while ((n & 1023) !== 0 || performance.now() < end) {
      const old = ring[slot] as StoreTicket;
      store.giveBack(old, 1);
      let ticket: StoreTicket | undefined;
      if (timed && n % SYNC_TIMED_EVERY === 0) {
        const t0 = performance.now();
        ticket = store.tryTake(key, 1, LIMIT).ticket;
        lat.push((performance.now() - t0) * 1000);
      } else ticket = store.tryTake(key, 1, LIMIT).ticket;
      if (ticket === undefined) throw new Error('in-process take refused under its limit');
      ring[slot] = ticket;
      slot = (slot + 1) % ring.length;
      n++;
    }
    return n;
  };
  run(opts.warmupMs, false);
  const cpu0 = cpuMicros();
  const t0 = performance.now();
  const claims = run(opts.windowMs, true);
  const windowMs = performance.now() - t0;
  const cpuUs = cpuMicros() - cpu0;
  for (const t of ring) store.giveBack(t, 1);
  await sleep(0);
  return { claims, refused: 0, windowMs, cpuUs, sharedUs: Number.NaN, latUs: lat.values() };
}

function toRun(store: StoreKind, concurrency: number, shared: string, w: Window): ClaimRun {
  return {
    store,
    concurrency,
    claims: w.claims,
    refused: w.refused,
    windowMs: w.windowMs,
    claimsPerSec: (w.claims * 1000) / w.windowMs,
    takeP50Us: percentile(w.latUs, 50),
    takeP99Us: percentile(w.latUs, 99),
    gatewayCpuUsPerClaim: w.cpuUs / w.claims,
    sharedCpuUsPerClaim: w.sharedUs / w.claims,
    shared,
  };
}

/** The child's end of the channel as a ClusterStore's PrimaryChannel (what processChannel is in a worker). */
function childChannel(child: ChildProcess): PrimaryChannel {
  return {
    get connected() {
      return child.connected;
    },
    send(msg) {
      if (child.connected) child.send(msg, undefined, undefined, () => undefined);
    },
    onMessage(listener) {
      child.on('message', listener);
      return () => child.off('message', listener);
    },
    onClose(listener) {
      child.on('disconnect', listener);
      return () => child.off('disconnect', listener);
    },
  };
}

interface Primary {
  child: ChildProcess;
  /** The primary's own CPU so far (user + system), µs, asked over the channel. */
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

async function forkPrimary(): Promise<Primary> {
  const child = fork(fileURLToPath(new URL('./primary-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const onMessage = (msg: unknown): void => {
      if ((msg as { t?: unknown }).t !== 'bench-ready') return;
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    void exited.then(() => reject(new Error('the primary child exited before it was ready')));
  });
  let nextAsk = 1;
  return {
    child,
    cpuUs: () =>
      new Promise((resolve) => {
        const id = nextAsk++;
        const onMessage = (msg: unknown): void => {
          const m = msg as { t?: unknown; id?: unknown; user?: number; system?: number };
          if (m.t !== 'bench-cpu' || m.id !== id) return;
          child.off('message', onMessage);
          resolve((m.user ?? 0) + (m.system ?? 0));
        };
        child.on('message', onMessage);
        child.send({ t: 'bench-cpu', id });
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.disconnect();
        await exited;
      }
    },
  };
}

/** Claims/s, take latency and CPU per claim for each store at each concurrency. */
export async function measureClaims(opts: ClaimOptions): Promise<ClaimRun[]> {
  const runs: ClaimRun[] = [];
  let k = 0;
  const key = (): string => `decode:http://bench-claims-${k++}`;

  const local = new InProcessStore();
  for (const c of opts.concurrencies)
    runs.push(toRun('in-process', c, '–', await driveSync(local, key(), c, opts)));

  const primary = await forkPrimary();
  const cluster = new ClusterStore(childChannel(primary.child));
  try {
    for (const c of opts.concurrencies)
      runs.push(
        toRun(
          'cluster',
          c,
          'primary',
          await driveAsync(cluster, key(), c, opts, () => primary.cpuUs()),
        ),
      );
  } finally {
    await cluster.close();
    await primary.stop();
  }

  const redis = await RedisStore.open({ url: opts.redis.url, leaseMs: 30_000 });
  if (!redis.up) throw new Error(`RedisStore did not come up on ${opts.redis.url}`);
  const redisCpuUs = (): number => groupCpuSeconds(opts.redis.proc.pid) * 1e6;
  try {
    for (const c of opts.concurrencies) {
      runs.push(
        toRun('redis', c, 'redis-server', await driveAsync(redis, key(), c, opts, redisCpuUs)),
      );
      // The give-backs of the last window are fire and forget: let them land before the next.
      await sleep(100);
    }
  } finally {
    await redis.close();
  }
  return runs;
}
