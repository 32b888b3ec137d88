// Where a gRPC-mode gateway's CPU goes: the grpc-l0 path of the gRPC benchmark under
// `node --cpu-prof`, one gateway process per workload, samples inside the measurement window
// summed by function and by owner (bench/overhead/profile.ts's method, with the gRPC transport,
// protobuf, tokenizer and template libraries told apart), scaled to the CPU /proc charged.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { runLoad, summarize } from '../lib/loadgen.js';
import { groupCpuSeconds } from '../lib/proc.js';
import { RESULTS_DIR, ROOT, writeResult } from '../lib/results.js';
import { startGateway } from '../lib/services.js';
import { fmt, printTable } from '../lib/table.js';
import { category, selfTimes, type CpuProfile } from '../overhead/profile.js';
import { L0_FLAGS, STREAM_TOKENS, WORKLOADS } from './workloads.js';

const SECONDS = Number(process.env['PROFILE_SECONDS'] ?? 6);
const PROFILED = (process.env['GRPC_PROFILE_WORKLOADS'] ?? 'chat,stream').split(',');
// V8 samples every 1 ms; a longer gap is time the thread waited for a core on a busy machine.
const MAX_SAMPLE_US = 1500;

/** The overhead benchmark's categories, with the libraries only gRPC mode runs named first. */
export function grpcCategory(url: string, fn: string): string {
  if (url.includes('node_modules/@grpc/')) return 'grpc-js (gRPC client)';
  if (url.includes('node_modules/protobufjs/') || url.includes('node_modules/@protobufjs/'))
    return 'protobufjs (messages)';
  if (url.includes('node_modules/@huggingface/tokenizers/')) return 'tokenizers (encode/decode)';
  if (url.includes('node_modules/@huggingface/jinja/')) return 'jinja (chat template)';
  // protobufjs's generated (eval'd) coders have no script URL: `Type$encode`, `Type$decode`.
  if (url === '' && /\$(encode|decode|fromObject|toObject|verify)$/.test(fn))
    return 'protobufjs (messages)';
  if (/^node:(internal\/)?http2/.test(url)) return 'node:http2 (gRPC transport)';
  if (url.includes('/dist/tokenizer/')) return 'Switchyard tokenizer (ours)';
  if (url.includes('/dist/grpc/') || url.includes('/dist/engine/'))
    return 'Switchyard gRPC pipeline (ours)';
  return category(url, fn);
}

export async function profileGrpcGateway(
  grpcUrls: readonly string[],
  cpus: string | undefined,
): Promise<void> {
  const dir = `${ROOT}.tmp/bench-grpc-profile-${process.pid}`;
  const results: Record<string, unknown> = {};
  try {
    for (const w of WORKLOADS.filter((x) => PROFILED.includes(x.name))) {
      const profDir = `${dir}/prof-${w.name}`;
      mkdirSync(profDir, { recursive: true });
      const gw = await startGateway({
        workerUrls: grpcUrls,
        policy: 'round_robin',
        cpus,
        cpuProfDir: profDir,
        extraFlags: L0_FLAGS,
        readyTimeoutMs: 60_000,
      });
      let from = 0n;
      let to = 0n;
      let c0 = 0;
      let c1 = 0;
      const r = await runLoad({
        origins: [gw.url],
        request: w.requestAt ?? (() => w.request),
        closed: w.closed,
        ...(w.open ? { open: { ...w.open, seed: 7, maxInFlight: 512 } } : {}),
        warmupMs: 1500,
        durationMs: SECONDS * 1000,
        onWindowStart: () => {
          from = process.hrtime.bigint();
          c0 = groupCpuSeconds(gw.proc.pid);
        },
        onWindowEnd: () => {
          to = process.hrtime.bigint();
          c1 = groupCpuSeconds(gw.proc.pid);
        },
      });
      await gw.proc.stop(10_000);
      const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
      if (file === undefined) throw new Error(`no .cpuprofile in ${profDir}`);
      mkdirSync(RESULTS_DIR, { recursive: true });
      copyFileSync(`${profDir}/${file}`, `${RESULTS_DIR}grpc-${w.name}.cpuprofile`);
      const profile = JSON.parse(readFileSync(`${profDir}/${file}`, 'utf8')) as CpuProfile;
      const s = summarize(r);
      const fns = selfTimes(
        profile,
        Number(from / 1000n),
        Number(to / 1000n),
        grpcCategory,
        MAX_SAMPLE_US,
      ).filter((f) => f.category !== 'idle');
      const busyUs = fns.reduce((n, f) => n + f.selfUs, 0);
      // Shares from the profile, scaled to the CPU /proc charged the process per request (and per
      // streamed token for streams), as bench/overhead/profile.ts does.
      const unit = w.stream ? STREAM_TOKENS : 1;
      const procUs = ((c1 - c0) * 1e6) / Math.max(1, s.requests) / unit;
      const per = (us: number): number => (us / busyUs) * procUs;
      const perName = w.stream ? '≈ µs / streamed token' : '≈ µs / request';
      const cats = new Map<string, number>();
      for (const f of fns) cats.set(f.category, (cats.get(f.category) ?? 0) + f.selfUs);
      const catRows = [...cats.entries()].sort((a, b) => b[1] - a[1]);
      console.log(
        `\n${w.name}: ${s.requests} requests in ${fmt(r.windowMs / 1000, 1)} s (${fmt(s.reqPerSec, 0)} req/s, ${s.errors} errors); ` +
          `gateway CPU ${fmt(procUs, 1)} ${w.stream ? 'µs per streamed token' : 'µs per request'} (/proc, all threads); ` +
          `main-thread samples ${fmt(busyUs / Math.max(1, s.requests) / unit, 1)}`,
      );
      printTable(
        `Gateway CPU by category, grpc-l0, ${w.title}`,
        ['category', 'share', perName],
        catRows.map(([c, us]) => [c, `${fmt((us / busyUs) * 100, 1)}%`, fmt(per(us), 2)]),
      );
      printTable(
        `Top self-time functions, grpc-l0, ${w.title}`,
        ['function', 'where', 'category', 'share', perName],
        fns
          .slice(0, 25)
          .map((f) => [
            f.name,
            f.where,
            f.category,
            `${fmt((f.selfUs / busyUs) * 100, 1)}%`,
            fmt(per(f.selfUs), 2),
          ]),
      );
      results[w.name] = {
        requests: s.requests,
        reqPerSec: s.reqPerSec,
        procCpuUs: procUs,
        sampledUs: busyUs / Math.max(1, s.requests) / unit,
        unit: w.stream ? 'streamed token' : 'request',
        categories: Object.fromEntries(catRows.map(([c, us]) => [c, per(us)])),
        top: fns.slice(0, 40).map((f) => ({ ...f, us: per(f.selfUs) })),
      };
    }
    console.log(`\nwrote ${writeResult('grpc-profile', { seconds: SECONDS, results })}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
