// The PD burst of SMG PR #2466, full size: 64 TokenSpeed-style PD requests at one decode whose
// running window is 16, with TokenSpeed's 120 s bootstrap deadline and the 300 s decode deadline,
// run on the simulator at time scale 0.01 (every duration 100x shorter; the table reports simulated
// seconds). Decode admission off (what SMG does) vs on, side by side in one run, over HTTP and over
// gRPC. The gRPC rows run at time scale 0.1: there the gateway detokenizes every streamed token,
// and at 0.01 the burst's ~137 000 tokens per wall second would outrun one gateway core, so the
// rows would measure the gateway's CPU instead of admission. `--pd-admission-wait-secs` is
// wall-clock, so it is scaled with the rows (30 s at 0.01, 300 s at 0.1): every row then has the
// same budget in simulated seconds.
//
//   node --import tsx bench/pd-burst/run.ts [--burst 64] [--window 16] [--tokens 12000]
//     [--transport both|http|grpc]
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startPdGateway } from '../lib/in-process-pd.js';
import { startSimWorker } from '@switchyard/sim';
import { writeResult } from '../lib/results.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/table.js';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '64' },
    window: { type: 'string', default: '16' },
    tokens: { type: 'string', default: '12000' },
    transport: { type: 'string', default: 'both' },
  },
});
const BURST = Number(values.burst);
const WINDOW = Number(values.window);
// Long enough that one wave of 16 decodes (tokens x (6 + 0.35 x 16) ms) outlasts the 120 s
// bootstrap deadline: rooms beyond the first window cannot be joined in time without admission.
const TOKENS = Number(values.tokens);
type Transport = 'http' | 'grpc';
const SCALES: Record<Transport, number> = { http: 0.01, grpc: 0.1 };
/** The admission wait budget at time scale 0.01, in wall seconds: 3000 simulated seconds. */
const WAIT_SECS_AT_HUNDREDTH = 30;
const TRANSPORTS: Transport[] =
  values.transport === 'both' ? ['http', 'grpc'] : [values.transport as Transport];

interface Outcome {
  transport: Transport;
  timeScale: number;
  admission: string;
  ok: number;
  failed: number;
  totalSimSecs: number;
  ttftP50SimSecs: number;
  ttftP99SimSecs: number;
  roomsExpired: number;
  decodeMaxRunning: number;
}

/** Polls /readiness: a gRPC gateway serves once it has loaded the model's tokenizer. */
async function ready(url: string): Promise<void> {
  for (;;) {
    const res = await request(`${url}/readiness`);
    await res.body.dump();
    if (res.statusCode === 200) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run(transport: Transport, admission: boolean): Promise<Outcome> {
  const SCALE = SCALES[transport];
  const common = {
    engine: 'realistic',
    timeScale: SCALE,
    runtime: 'tokenspeed',
    outputTokens: TOKENS,
    protocol: transport,
  } as const;
  const prefill = await startSimWorker({ ...common, role: 'prefill', bootstrapTimeoutSecs: 120 });
  const decode = await startSimWorker({
    ...common,
    role: 'decode',
    maxRunningRequests: WINDOW,
    waitingTimeoutSecs: 300,
  });
  const gateway = await startPdGateway(
    [prefill],
    [decode],
    [
      '--disable-retries',
      '--request-timeout-secs',
      '600',
      '--pd-admission-wait-secs',
      String(Math.round((WAIT_SECS_AT_HUNDREDTH * SCALE) / 0.01)),
      ...(admission ? [] : ['--disable-pd-decode-admission']),
    ],
  );
  try {
    await ready(gateway.url);
    let maxRunning = 0;
    const sampler = setInterval(
      () => (maxRunning = Math.max(maxRunning, decode.stats().running)),
      5,
    );
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const sent = performance.now();
        // OpenAI completions stream deltas; SGLang's /generate streams the cumulative text, which
        // at 12 000 tokens would make the benchmark measure string copying.
        const res = await request(`${gateway.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'sim-model',
            prompt: `mmlu style question ${i} with a short prompt`,
            max_tokens: TOKENS,
            stream: true,
          }),
        });
        let ttft = Number.NaN;
        let tail = '';
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          if (Number.isNaN(ttft) && chunk.length > 0) ttft = performance.now() - sent;
          tail = (tail + chunk.toString('utf8')).slice(-1024);
        }
        // A stream that reports an error event (expired room, aborted leg) failed, whatever its status.
        const ok =
          res.statusCode === 200 && tail.endsWith('data: [DONE]\n\n') && !tail.includes('"error"');
        return { ok, ttft };
      }),
    );
    clearInterval(sampler);
    const wallMs = performance.now() - start;
    const ttfts = results.filter((r) => r.ok).map((r) => r.ttft / 1000 / SCALE);
    return {
      transport,
      timeScale: SCALE,
      admission: admission ? 'on' : 'off',
      ok: results.filter((r) => r.ok).length,
      failed: results.filter((r) => !r.ok).length,
      totalSimSecs: Math.round(wallMs / 1000 / SCALE),
      ttftP50SimSecs: Math.round(percentile(ttfts, 50) * 10) / 10,
      ttftP99SimSecs: Math.round(percentile(ttfts, 99) * 10) / 10,
      roomsExpired: prefill.stats().bootstrapTimeouts,
      decodeMaxRunning: maxRunning,
    };
  } finally {
    await gateway.close();
    await Promise.all([prefill.close(), decode.close()]);
  }
}

const outcomes: Outcome[] = [];
for (const transport of TRANSPORTS) {
  outcomes.push(await run(transport, false), await run(transport, true));
}
console.log(
  `\nPD burst: ${BURST} requests, decode window ${WINDOW}, ${TOKENS} output tokens, deadlines 120 s / 300 s (simulated seconds)\n`,
);
console.log(
  markdownTable(
    [
      'transport',
      'time scale',
      'decode admission',
      'ok',
      'failed',
      'total (sim s)',
      'TTFT p50 (sim s)',
      'TTFT p99 (sim s)',
      'rooms expired',
      'decode max in flight',
    ],
    outcomes.map((o) => [
      o.transport,
      o.timeScale,
      o.admission,
      o.ok,
      o.failed,
      o.totalSimSecs,
      o.ttftP50SimSecs,
      o.ttftP99SimSecs,
      o.roomsExpired,
      o.decodeMaxRunning,
    ]),
  ),
);
console.log(
  `results: ${writeResult('pd-burst', { burst: BURST, window: WINDOW, tokens: TOKENS, outcomes })}`,
);
