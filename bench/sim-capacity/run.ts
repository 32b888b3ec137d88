// How much simulated fleet one core sustains, so that benchmarks know the simulator is not their
// bottleneck. The fleet runs in a child process (one Node main thread = one core); this driver
// streams completions at it over loopback from its own process, counts the tokens that arrive,
// and reads the child's CPU time. "est. tokens/s per core" = tokens/s ÷ the child's CPU share:
// when the clients cannot push the child to 100 % (a small or busy machine), it extrapolates
// linearly, which is what the CPU share column is there to qualify.
// Run: node --import tsx bench/sim-capacity/run.ts   (about 45 s; writes bench/results/sim-capacity.json)
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { SimFleetSpec } from '@switchyard/sim';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECONDS = Number(process.env['SIM_BENCH_SECONDS'] ?? 4);

interface Scenario {
  name: string;
  engine: 'canned' | 'realistic';
  workers: number;
  /** Concurrent streaming clients, spread over the workers. */
  clients: number;
  maxTokens: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'canned, light', engine: 'canned', workers: 8, clients: 32, maxTokens: 64 },
  { name: 'canned, heavy', engine: 'canned', workers: 16, clients: 256, maxTokens: 64 },
  { name: 'realistic, light', engine: 'realistic', workers: 8, clients: 32, maxTokens: 64 },
  { name: 'realistic, heavy', engine: 'realistic', workers: 16, clients: 256, maxTokens: 64 },
];

// Worker counts for the idle-fleet measurement: start time and memory per worker.
const FLEET_SIZES = [100, 500];

/** Canned workers at the SMG mock worker's speeds, so that clients are never starved of tokens. */
function spec(s: { engine: 'canned' | 'realistic'; workers: number }): SimFleetSpec {
  return {
    defaults: { engine: s.engine, ttftMs: 5, itlMs: 5 },
    workers: [{ count: s.workers }],
  };
}

class Host {
  private readonly child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/sim-capacity/sim-host.ts'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  private readonly lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();

  async call<T>(command: string): Promise<T> {
    this.child.stdin.write(`${command}\n`);
    const next = await this.lines.next();
    if (next.done === true) throw new Error('sim host exited');
    return JSON.parse(next.value) as T;
  }

  async stop(): Promise<void> {
    this.child.stdin.write('stop\n');
    await new Promise((resolve) => this.child.once('exit', resolve));
  }
}

interface Cpu {
  cpuMs: number;
  wallMs: number;
  rssMb: number;
}

/** One client: streams completions back to back until `deadline`; returns tokens received. */
async function client(agent: Agent, url: string, maxTokens: number, deadline: number, id: number) {
  let tokens = 0;
  let requests = 0;
  for (let i = 0; performance.now() < deadline; i++) {
    const res = await request(`${url}/v1/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        prompt: `client ${id} request ${i} about freight`,
        max_tokens: maxTokens,
        stream: true,
      }),
    });
    for await (const chunk of res.body) {
      const text = (chunk as Buffer).toString('latin1');
      for (let at = text.indexOf('"text":'); at !== -1; at = text.indexOf('"text":', at + 7))
        tokens++;
    }
    requests++;
  }
  return { tokens, requests };
}

async function runScenario(host: Host, s: Scenario) {
  const { urls } = await host.call<{ urls: string[] }>(`start ${JSON.stringify(spec(s))}`);
  const agent = new Agent({ connections: s.clients, pipelining: 1 });
  const warm = performance.now() + 500;
  await Promise.all(urls.map((u, i) => client(agent, u, 4, warm, i)));
  const before = await host.call<Cpu>('cpu');
  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: s.clients }, (_, i) =>
      client(agent, urls[i % urls.length] ?? '', s.maxTokens, start + SECONDS * 1000, i),
    ),
  );
  const wall = (performance.now() - start) / 1000;
  const after = await host.call<Cpu>('cpu');
  await agent.close();
  const tokens = results.reduce((n, r) => n + r.tokens, 0);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const cpuShare = (after.cpuMs - before.cpuMs) / (after.wallMs - before.wallMs);
  return {
    ...s,
    tokensPerSec: Math.round(tokens / wall),
    requestsPerSec: Math.round(requests / wall),
    simCpuPercent: Math.round(cpuShare * 100),
    tokensPerSecPerCore: Math.round(tokens / wall / Math.max(cpuShare, 0.01)),
    rssMb: after.rssMb,
  };
}

function table(head: string[], rows: (string | number)[][]): void {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: (string | number)[]) =>
    cells
      .map((v, c) =>
        c === 0 ? String(v).padEnd(widths[c] ?? 0) : String(v).padStart(widths[c] ?? 0),
      )
      .join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<void> {
  const host = new Host();
  const throughput = [];
  for (const s of SCENARIOS) throughput.push(await runScenario(host, s));
  await host.stop();
  // Idle fleets, each in a fresh process so that the memory figure is the fleet's own.
  const fleets = [];
  for (const workers of FLEET_SIZES) {
    const fresh = new Host();
    const base = await fresh.call<Cpu>('cpu');
    const r = await fresh.call<{ urls: string[]; startMs: number; rssMb: number }>(
      `start ${JSON.stringify(spec({ engine: 'realistic', workers }))}`,
    );
    await fresh.stop();
    const deltaMb = r.rssMb - base.rssMb;
    fleets.push({
      workers,
      startMs: Math.round(r.startMs),
      rssMb: r.rssMb,
      kbPerWorker: Math.round((deltaMb * 1024) / workers),
    });
  }

  const realistic = throughput.filter((t) => t.engine === 'realistic');
  const perCore = Math.max(...realistic.map((t) => t.tokensPerSecPerCore));
  // A realistic worker decoding a full default window (256 sequences) emits
  // 256 tokens per (6 + 0.35 × 256) ms step ≈ 2700 tokens/s; at 64 sequences ≈ 2200 tokens/s.
  const fullWorker = 256 / ((6 + 0.35 * 256) / 1000);
  const summary = {
    realisticTokensPerSecPerCore: perCore,
    busyRealisticWorkersPerCore: Math.floor(perCore / fullWorker),
    note: 'busy = decoding a full 256-sequence window at the default speeds',
  };

  console.log('\nsim-capacity: one simulator process (one core), loopback clients in another\n');
  table(
    [
      'scenario',
      'workers',
      'clients',
      'tokens/s',
      'req/s',
      'sim CPU',
      'est. tokens/s/core',
      'RSS MB',
    ],
    throughput.map((t) => [
      t.name,
      t.workers,
      t.clients,
      t.tokensPerSec,
      t.requestsPerSec,
      `${t.simCpuPercent}%`,
      t.tokensPerSecPerCore,
      t.rssMb,
    ]),
  );
  console.log('');
  table(
    ['idle realistic fleet', 'workers', 'start ms', 'RSS MB', 'KB/worker'],
    fleets.map((f) => ['', f.workers, f.startMs, f.rssMb, f.kbPerWorker]),
  );
  console.log(
    `\none core sustains ~${perCore} realistic tokens/s, i.e. ~${summary.busyRealisticWorkersPerCore} fully busy realistic workers\n`,
  );

  const out = new URL('../results/sim-capacity.json', import.meta.url);
  await mkdir(new URL('.', out), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, seconds: SECONDS, throughput, fleets, summary }, null, 2)}\n`,
  );
  console.log(`wrote ${fileURLToPath(out)}`);
}

await main();
