// gRPC benchmark: what the gateway's CPU pays per request and per streamed token when it owns the
// tokenizer (gRPC workers: render the chat template, tokenize, call Generate, detokenize, write
// SSE), next to the same requests relayed to HTTP workers, in one run. Paths:
//   http     the gateway in front of canned HTTP simulator workers (the relay);
//   grpc     the gateway in front of canned gRPC workers (SGLang runtime, Qwen3's tokenizer),
//            L0 off (SMG's and our default, so the render cache is off too);
//   grpc-l0  the same with --tokenizer-cache-enable-l0 (exact-match encode + render caches);
//   grpc-parsed  grpc with --reasoning-parser qwen3 (what a Qwen model gets by its name): the
//            answer has no tags, so this is the parsers' cost on plain content.
// The `messages` workloads send the small chat as Anthropic Messages requests, the `responses`
// ones as OpenAI Responses requests (store false): relayed on the http path, rendered and framed
// as Anthropic or Responses events by the gateway on the grpc paths.
// Both fleets answer at once and then one token per millisecond. Pinning, interleaving, medians
// and the CPU reading are those of bench/overhead (see docs/benchmarks.md), except that the
// surfaces compared on one path (chat, Messages and Responses streams; the Messages and Responses
// one-token requests) run back to back on each path: their ratios are within seconds.
//
//   node --import tsx bench/grpc/run.ts              (~6 min; writes bench/results/grpc.json)
//   GRPC_BENCH_REPS=1 GRPC_BENCH_SECONDS=2 ...       (quick look)
//   node --import tsx bench/grpc/run.ts --profile    (grpc-l0 under node --cpu-prof)
import { ownProcessGroup, pinSelf, type Managed } from '../lib/proc.js';
import { ROOT, writeResult } from '../lib/results.js';
import { ensureBuilt, startGateway, startSimFleet, type GatewayProcess } from '../lib/services.js';
import type { RunRecord } from '../overhead/report.js';
import { measure, type PathUnderTest, type Workload } from '../overhead/workloads.js';
import { profileGrpcGateway } from './profile.js';
import { report } from './report.js';
import { ANSWER_TEXT } from './text.js';
import { L0_FLAGS, QWEN3_DIR, runGroups, STREAM_TOKENS, WORKLOADS } from './workloads.js';

const REPS = Number(process.env['GRPC_BENCH_REPS'] ?? 3);
const SECONDS = Number(process.env['GRPC_BENCH_SECONDS'] ?? 2.5);
const WORKERS = 2;
// Same timing on both fleets: first token at once, then one per millisecond.
const TIMING = ['--engine', 'canned', '--ttft-ms', '0', '--itl-ms', '1', '--seed', '1'];

/** One request of each kind through a gateway, checked, before anything is timed. */
async function sanity(name: string, url: string, grpc: boolean): Promise<string> {
  const post = async (w: Workload): Promise<string> => {
    const res = await fetch(`${url}${w.request.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: w.request.body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${name} ${w.name}: ${res.status} ${text}`);
    return text;
  };
  const notes: string[] = [];
  for (const w of WORKLOADS) {
    const text = await post(w);
    if (w.stream) {
      // A chat chunk with content, an Anthropic text_delta, or a Responses output_text delta
      // (its data line: the `event:` line above it names the type too).
      const content = text
        .split('\n')
        .filter(
          (l) =>
            (l.includes('"content":"') && !/"content":""/.test(l)) ||
            l.includes('"text_delta"') ||
            (l.startsWith('data:') && l.includes('"type":"response.output_text.delta"')),
        );
      if (content.length !== STREAM_TOKENS)
        throw new Error(
          `${name} ${w.name}: ${content.length} content events, want ${STREAM_TOKENS}`,
        );
    } else {
      // Chat's usage says prompt_tokens; Anthropic's and the Responses API's say input_tokens.
      const usage = (
        JSON.parse(text) as { usage?: { prompt_tokens?: number; input_tokens?: number } }
      ).usage;
      notes.push(`${w.name} ${usage?.prompt_tokens ?? usage?.input_tokens ?? '?'} prompt tokens`);
    }
  }
  return `${name}: ${grpc ? 'gRPC pipeline' : 'HTTP relay'} ok (${notes.join(', ')}; ${STREAM_TOKENS}-token stream)`;
}

async function main(): Promise<void> {
  const pinned = pinSelf('1');
  const cpuGateway = pinned ? '0' : undefined;
  const cpuSim = pinned ? '1' : undefined;
  const started = performance.now();
  ensureBuilt();
  const procs: Managed[] = [];
  try {
    // An uncapped answer (the Messages stream: `max_tokens` only caps it) runs as long as chat's.
    const httpFleet = await startSimFleet(
      WORKERS,
      [...TIMING, '--output-tokens', String(STREAM_TOKENS)],
      cpuSim,
    );
    procs.push(httpFleet.proc);
    const grpcFleet = await startSimFleet(
      WORKERS,
      [
        ...TIMING,
        '--protocol',
        'grpc',
        '--runtime',
        'sglang',
        '--tokenizer-dir',
        QWEN3_DIR,
        '--answer-text',
        ANSWER_TEXT,
      ],
      cpuSim,
    );
    procs.push(grpcFleet.proc);
    const gateway = async (urls: string[], flags: string[] = []): Promise<GatewayProcess> => {
      const gw = await startGateway({
        workerUrls: urls,
        policy: 'round_robin',
        cpus: cpuGateway,
        extraFlags: flags,
        // Readiness also waits for the tokenizer (Qwen3's loads in ~1.5 s).
        readyTimeoutMs: 60_000,
      });
      procs.push(gw.proc);
      return gw;
    };
    if (process.argv.includes('--profile')) {
      await profileGrpcGateway(grpcFleet.urls, cpuGateway);
      return;
    }
    const http = await gateway(httpFleet.urls);
    const grpc = await gateway(grpcFleet.urls);
    const grpcL0 = await gateway(grpcFleet.urls, L0_FLAGS);
    const grpcParsed = await gateway(grpcFleet.urls, ['--reasoning-parser', 'qwen3']);
    console.log(await sanity('http', http.url, false));
    console.log(await sanity('grpc', grpc.url, true));
    console.log(await sanity('grpc-l0', grpcL0.url, true));
    console.log(await sanity('grpc-parsed', grpcParsed.url, true));

    const paths: PathUnderTest[] = [
      {
        name: 'http',
        origins: [http.url],
        proc: http.proc,
        sim: httpFleet.proc,
        workloads: [
          'chat',
          'chat-open',
          'long',
          'stream',
          'messages',
          'msg-stream',
          'responses',
          'resp-stream',
        ],
      },
      // With L0 off the fixed long chat is tokenized afresh every time: "long" is the miss.
      {
        name: 'grpc',
        origins: [grpc.url],
        proc: grpc.proc,
        sim: grpcFleet.proc,
        workloads: ['chat', 'long', 'stream', 'messages', 'msg-stream', 'responses', 'resp-stream'],
      },
      { name: 'grpc-l0', origins: [grpcL0.url], proc: grpcL0.proc, sim: grpcFleet.proc },
      {
        name: 'grpc-parsed',
        origins: [grpcParsed.url],
        proc: grpcParsed.proc,
        sim: grpcFleet.proc,
        workloads: ['chat', 'stream'],
      },
    ];
    const runsOn = (p: PathUnderTest, w: Workload): boolean =>
      p.workloads === undefined || p.workloads.includes(w.name);
    const ours = new Set([ownProcessGroup(), ...procs.map((p) => p.pid)]);
    // One unrecorded pass: JIT warm-up, connection pools and the caches filled.
    for (const p of paths)
      for (const w of WORKLOADS.filter((x) => runsOn(p, x)))
        await measure(p, w, httpFleet.proc, ours, 0.5, 500);

    const runs: RunRecord[] = [];
    const rotate = <T>(xs: readonly T[], by: number): T[] =>
      xs.map((_, i) => xs[(i + by) % xs.length] as T);
    // rep -> workload (or side-by-side set) -> path -> the set's workloads, orders rotated per rep.
    for (let rep = 0; rep < REPS; rep++) {
      for (const group of runGroups()) {
        for (const p of rotate(paths, rep)) {
          for (const w of rotate(group, rep).filter((x) => runsOn(p, x))) {
            const rec = await measure(p, w, httpFleet.proc, ours, SECONDS);
            runs.push({ rep, ...rec });
            const s = rec.summary;
            const us = (rec.proxyCpuSeconds * 1e6) / Math.max(1, s.requests);
            const other = (rec.otherCpuSeconds * 1000) / rec.windowMs;
            console.log(
              `rep ${rep + 1}/${REPS} ${w.name.padEnd(11)} ${p.name.padEnd(11)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${s.latency.p50.toFixed(2)} ms  ${us.toFixed(0)} µs/req  errors ${s.errors}  other load ${(other * 100).toFixed(0)}%`,
            );
          }
        }
      }
    }
    const out = report(runs, WORKLOADS);
    const path = writeResult('grpc', {
      reps: REPS,
      seconds: SECONDS,
      workers: WORKERS,
      pinned,
      tokenizer: QWEN3_DIR.replace(ROOT, ''),
      streamTokens: STREAM_TOKENS,
      elapsedSeconds: Math.round((performance.now() - started) / 1000),
      ...out,
      runs,
    });
    console.log(`\nwrote ${path} (${Math.round((performance.now() - started) / 1000)} s)`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

await main();
