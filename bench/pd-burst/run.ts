// The PD burst of SMG PR #2466, full size: 64 TokenSpeed-style PD requests at one decode whose
// running window is 16, with TokenSpeed's 120 s bootstrap deadline and the 300 s decode deadline,
// run on the simulator at time scale 0.01 (every duration 100x shorter; the table reports simulated
// seconds). Decode admission off (what SMG does) vs on, side by side in one run.
//
//   node --import tsx bench/pd-burst/run.ts [--burst 64] [--window 16] [--tokens 12000]
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
  },
});
const BURST = Number(values.burst);
const WINDOW = Number(values.window);
// Long enough that one wave of 16 decodes (tokens x (6 + 0.35 x 16) ms) outlasts the 120 s
// bootstrap deadline: rooms beyond the first window cannot be joined in time without admission.
const TOKENS = Number(values.tokens);
const SCALE = 0.01;

interface Outcome {
  admission: string;
  ok: number;
  failed: number;
  totalSimSecs: number;
  ttftP50SimSecs: number;
  ttftP99SimSecs: number;
  roomsExpired: number;
  decodeMaxRunning: number;
}

async function run(admission: boolean): Promise<Outcome> {
  const common = {
    engine: 'realistic',
    timeScale: SCALE,
    runtime: 'tokenspeed',
    outputTokens: TOKENS,
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
      ...(admission ? [] : ['--disable-pd-decode-admission']),
    ],
  );
  try {
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

const outcomes = [await run(false), await run(true)];
console.log(
  `\nPD burst: ${BURST} requests, decode window ${WINDOW}, ${TOKENS} output tokens, deadlines 120 s / 300 s (simulated; time scale ${SCALE})\n`,
);
console.log(
  markdownTable(
    [
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
  `results: ${writeResult('pd-burst', { burst: BURST, window: WINDOW, tokens: TOKENS, timeScale: SCALE, outcomes })}`,
);
