// The replica burst per admission store: one simulated PD pair whose decode runs at most `window`
// requests (TokenSpeed runtime, realistic engine, time scale 0.1, the prefill's rendezvous
// deadline 2 simulated seconds: one wave of decodes outlasts it, as in
// test/helpers/replica-fleet.ts), and `burst` non-streamed /generate requests sent at once, spread
// round robin over the gateway processes. The built binary runs each gateway; the simulators run
// in this process, so the decode's running count can be sampled every 2 ms.
import { startSimWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import { request } from 'undici';
import type { Managed } from '../lib/proc.js';
import type { GatewayProcess } from '../lib/services.js';
import { percentile } from '../lib/stats.js';
import { startLaunch } from './launch.js';
import type { BenchRedis } from './redis.js';

export const BURST_SIM: SimWorkerOptions = {
  engine: 'realistic',
  timeScale: 0.1,
  runtime: 'tokenspeed',
};
const MAX_NEW_TOKENS = 400;

export type BurstStore = 'in-process' | 'cluster' | 'redis';

export interface BurstOutcome {
  store: BurstStore;
  /** What served the burst, e.g. "3 replicas" or "1 primary + 3". */
  processes: string;
  ok: number;
  failed: number;
  /** Failed requests by x-smg-error-code (or HTTP status, or transport error). */
  failures: Record<string, number>;
  /** The first error body of each failure code. */
  failureMessages: Record<string, string>;
  decodeMaxRunning: number;
  roomsExpired: number;
  wallSecs: number;
  simSecs: number;
  latencyP50SimSecs: number;
  latencyP99SimSecs: number;
}

export interface BurstOptions {
  burst: number;
  window: number;
  replicas: number;
  redis: BenchRedis;
}

/** The flags of every gateway, and how many gateway processes each case starts. */
function caseOf(
  store: BurstStore,
  opts: BurstOptions,
): { gateways: number; perGateway: number; flags: string[]; processes: string } {
  const n = opts.replicas;
  switch (store) {
    case 'in-process':
      return { gateways: n, perGateway: 1, flags: [], processes: `${n} replicas` };
    case 'cluster':
      return { gateways: 1, perGateway: n, flags: [], processes: `1 primary + ${n}` };
    case 'redis':
      return {
        gateways: n,
        perGateway: 1,
        flags: ['--admission-store', opts.redis.url, '--admission-replicas', String(n)],
        processes: `${n} replicas + redis-server`,
      };
  }
}

async function send(
  url: string,
  i: number,
): Promise<{ code: string; ms: number; message?: string }> {
  const t0 = performance.now();
  try {
    // A connection of its own (reset): with --workers the primary deals connections round robin.
    const res = await request(`${url}/generate`, {
      method: 'POST',
      reset: true,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        text: `replica burst ${i}`,
        sampling_params: { max_new_tokens: MAX_NEW_TOKENS },
      }),
    });
    const body = await res.body.text();
    const errorCode = res.headers['x-smg-error-code'];
    const code =
      res.statusCode === 200
        ? 'ok'
        : typeof errorCode === 'string'
          ? errorCode
          : String(res.statusCode);
    const ms = performance.now() - t0;
    return code === 'ok' ? { code, ms } : { code, ms, message: body.slice(0, 300) };
  } catch (err) {
    return { code: `transport: ${(err as Error).message}`, ms: performance.now() - t0 };
  }
}

export async function runBurst(store: BurstStore, opts: BurstOptions): Promise<BurstOutcome> {
  const c = caseOf(store, opts);
  const prefill: SimWorker = await startSimWorker({
    role: 'prefill',
    ...BURST_SIM,
    bootstrapTimeoutSecs: 2,
  });
  const decode: SimWorker = await startSimWorker({
    role: 'decode',
    ...BURST_SIM,
    maxRunningRequests: opts.window,
    // As in replica-fleet.ts: generous, so the failure mode shown is the prefill's deadline.
    waitingTimeoutSecs: 5,
  });
  const gateways: GatewayProcess[] = [];
  const procs: Managed[] = [];
  try {
    const flags = [
      '--pd-disaggregation',
      '--prefill',
      prefill.url,
      String(prefill.bootstrapPort),
      '--decode',
      decode.url,
      '--disable-retries',
      ...c.flags,
    ];
    const started = await Promise.allSettled(
      Array.from({ length: c.gateways }, () =>
        startLaunch(c.perGateway, {
          workerUrls: [],
          policy: 'round_robin',
          extraFlags: flags,
          expectWorkers: 2,
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') gateways.push(s.value);
    procs.push(...gateways.map((g) => g.proc));
    const failedStart = started.find((s) => s.status === 'rejected');
    if (failedStart) throw failedStart.reason;

    let maxRunning = 0;
    const sampler = setInterval(() => {
      maxRunning = Math.max(maxRunning, decode.stats().running);
    }, 2);
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: opts.burst }, (_, i) =>
        send(gateways[i % gateways.length]?.url ?? '', i),
      ),
    ).finally(() => clearInterval(sampler));
    const wallMs = performance.now() - t0;
    const scale = BURST_SIM.timeScale ?? 1;
    const okMs = results.filter((r) => r.code === 'ok').map((r) => r.ms);
    const failures: Record<string, number> = {};
    const failureMessages: Record<string, string> = {};
    for (const r of results) {
      if (r.code === 'ok') continue;
      failures[r.code] = (failures[r.code] ?? 0) + 1;
      failureMessages[r.code] ??= r.message ?? '';
    }
    return {
      store,
      processes: c.processes,
      ok: okMs.length,
      failed: results.length - okMs.length,
      failures,
      failureMessages,
      decodeMaxRunning: maxRunning,
      roomsExpired: prefill.stats().bootstrapTimeouts,
      wallSecs: wallMs / 1000,
      simSecs: wallMs / 1000 / scale,
      latencyP50SimSecs: percentile(okMs, 50) / 1000 / scale,
      latencyP99SimSecs: percentile(okMs, 99) / 1000 / scale,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await Promise.all([prefill.close(), decode.close()]);
  }
}
