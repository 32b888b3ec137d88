// Prefill admission under a burst several times the fleet's prefill limit: 2 SGLang-style
// prefill workers (realistic engine) and 2 decodes, 96 requests at once, with admission
// (limit 4 per prefill worker, queue 200) and without. With admission the excess waits in the
// gateway's visible FIFO queue; without it, it waits inside the engines, where nobody can see or
// bound it. Reported side by side: gateway queue wait, time requests sat waiting inside the
// prefill engines (sampled from their queues), TTFT, throughput, rejections.
//
//   node --import tsx bench/prefill-admission/run.ts [--burst 96] [--limit 4]
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startPdGateway } from '../lib/in-process-pd.js';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { writeResult } from '../lib/results.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/table.js';

const { values } = parseArgs({
  options: { burst: { type: 'string', default: '96' }, limit: { type: 'string', default: '4' } },
});
const BURST = Number(values.burst);
const LIMIT = Number(values.limit);
const SCALE = 0.2;
// ~3000-token prompts: prefill-bound, 0.375 s of prefill each at 8000 tokens/s (simulated).
const PROMPT = 'context '.repeat(3000);

interface Outcome {
  admission: string;
  ok: number;
  rejected: number;
  throughputRps: number;
  ttftP50: number;
  ttftP99: number;
  gatewayWaitP50: number;
  gatewayWaitP99: number;
  engineTimeP50: number;
  engineTimeP99: number;
  engineQueueMax: number;
}

async function run(admission: boolean): Promise<Outcome> {
  const common = {
    engine: 'realistic',
    timeScale: SCALE,
    runtime: 'sglang',
    prefixCache: false,
  } as const;
  const prefills: SimWorker[] = await Promise.all(
    [0, 1].map(() => startSimWorker({ ...common, role: 'prefill', maxRunningRequests: 64 })),
  );
  const decodes: SimWorker[] = await Promise.all(
    [0, 1].map(() => startSimWorker({ ...common, role: 'decode', maxRunningRequests: 128 })),
  );
  const gateway = await startPdGateway(prefills, decodes, [
    '--policy',
    'round_robin',
    '--disable-retries',
    ...(admission
      ? [
          '--prefill-max-inflight-requests-per-worker',
          String(LIMIT),
          '--prefill-queue-size',
          '200',
          '--prefill-queue-timeout-secs',
          '120',
        ]
      : []),
  ]);
  try {
    const queueSamples: number[] = [];
    const sampler = setInterval(
      () => queueSamples.push(prefills.reduce((n, p) => n + p.stats().waiting, 0)),
      10,
    );
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const sent = performance.now();
        const res = await request(`${gateway.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim-model',
            prompt: `${i} ${PROMPT}`,
            max_tokens: 8,
            stream: true,
          }),
        });
        let ttft = Number.NaN;
        for await (const chunk of res.body as AsyncIterable<Buffer>)
          if (Number.isNaN(ttft) && chunk.length > 0) ttft = performance.now() - sent;
        return { status: res.statusCode, ttft };
      }),
    );
    clearInterval(sampler);
    const wallSecs = (performance.now() - start) / 1000;
    const ok = results.filter((r) => r.status === 200);
    const ttfts = ok.map((r) => r.ttft / 1000 / SCALE);
    const text = await (await fetch(gateway.metricsUrl)).text();
    const waits = histogramPercentiles(text, 'smg_pd_prefill_admission_wait_seconds');
    // Time inside the prefill engine: the prefill leg from send to its body read.
    const engine = histogramPercentiles(text, 'smg_pd_prefill_duration_seconds');
    return {
      admission: admission ? `on (limit ${LIMIT})` : 'off',
      ok: ok.length,
      rejected: results.length - ok.length,
      throughputRps: Math.round((ok.length / (wallSecs / SCALE)) * 100) / 100,
      ttftP50: round(percentile(ttfts, 50)),
      ttftP99: round(percentile(ttfts, 99)),
      gatewayWaitP50: admission ? round(waits.p50 / SCALE) : 0,
      gatewayWaitP99: admission ? round(waits.p99 / SCALE) : 0,
      engineTimeP50: round(engine.p50 / SCALE),
      engineTimeP99: round(engine.p99 / SCALE),
      engineQueueMax: Math.max(0, ...queueSamples),
    };
  } finally {
    await gateway.close();
    await Promise.all([...prefills, ...decodes].map((w) => w.close()));
  }
}

const round = (v: number): number => Math.round(v * 100) / 100;

/** p50/p99 of a histogram (summed over its label sets) from its cumulative buckets (upper bounds). */
function histogramPercentiles(text: string, name: string): { p50: number; p99: number } {
  const byLe = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    byLe.set(bound, (byLe.get(bound) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  const buckets = [...byLe].sort((a, b) => a[0] - b[0]);
  const total = buckets.at(-1)?.[1] ?? 0;
  const at = (q: number): number => buckets.find(([, n]) => n >= q * total)?.[0] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

const outcomes = [await run(false), await run(true)];
console.log(
  `\nPrefill admission: ${BURST} requests at once, 2 prefill + 2 decode workers, ~3000-token prompts (simulated seconds; time scale ${SCALE})\n`,
);
console.log(
  markdownTable(
    [
      'admission',
      'ok',
      'rejected',
      'req/s',
      'TTFT p50 (s)',
      'TTFT p99 (s)',
      'gateway queue p50 (s)',
      'gateway queue p99 (s)',
      'in prefill engine p50 (s)',
      'in prefill engine p99 (s)',
      'engine queue max',
    ],
    outcomes.map((o) => [
      o.admission,
      o.ok,
      o.rejected,
      o.throughputRps,
      o.ttftP50,
      o.ttftP99,
      o.gatewayWaitP50,
      o.gatewayWaitP99,
      o.engineTimeP50,
      o.engineTimeP99,
      o.engineQueueMax,
    ]),
  ),
);
console.log(
  'gateway queue and in-engine percentiles are histogram bucket upper bounds (SMG duration buckets).',
);
console.log(
  `results: ${writeResult('prefill-admission', { burst: BURST, limit: LIMIT, timeScale: SCALE, outcomes })}`,
);
