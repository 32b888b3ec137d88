/**
 * `switchyard demo`: a simulated fleet plus the gateway in one process, ready to curl. It sends
 * one request through the gateway itself so the user sees it work, then serves until stopped.
 */
import { request } from 'undici';
import { formatHelp, parseFlags, UsageError, type FlagSpec } from '@switchyard/kit';
import { untilSignal } from './launch.js';
import { startDemoLoad } from './demo-load.js';
import { GATEWAY_FLAGS } from '../config/gateway-flags.js';
import { POLICY_NAMES } from '../policies/names.js';
import { buildConfig } from '../config/validate.js';
import { startGateway, type Gateway } from '../server/gateway.js';
import { simDemoFleetSpec, startSimFleetFromSpec, type SimRuntime } from '@switchyard/sim';

const DEMO_FLAGS: readonly FlagSpec[] = [
  { name: 'host', key: 'host', kind: 'string', default: '127.0.0.1', help: 'Gateway bind address' },
  { name: 'port', key: 'port', kind: 'int', default: 30000, help: 'Gateway port (0 = ephemeral)' },
  {
    name: 'prometheus-port',
    key: 'prometheusPort',
    kind: 'int',
    default: 29000,
    help: 'Metrics port (0 = ephemeral)',
  },
  {
    name: 'shape',
    key: 'shape',
    kind: 'enum',
    choices: ['mixed', 'regular', 'pd'],
    default: 'mixed',
    help: 'Fleet: mixed = regular + PD workers behind one --enable-igw gateway',
  },
  {
    name: 'workers',
    key: 'workers',
    kind: 'int',
    default: 2,
    help: 'Simulated regular workers (shapes mixed, regular)',
  },
  {
    name: 'runtime',
    key: 'runtime',
    kind: 'enum',
    choices: ['sglang', 'vllm', 'tokenspeed'],
    default: 'sglang',
    help: 'Simulated engine (vllm: with --protocol grpc only)',
  },
  {
    name: 'protocol',
    key: 'protocol',
    kind: 'enum',
    choices: ['http', 'grpc'],
    default: 'http',
    help: 'How the gateway talks to the workers: grpc = the gateway tokenizes',
  },
  {
    name: 'model',
    key: 'model',
    kind: 'string',
    default: 'sim-model',
    help: 'Model the workers serve',
  },
  {
    name: 'policy',
    key: 'policy',
    kind: 'enum',
    choices: POLICY_NAMES,
    default: 'round_robin',
    help: 'Load-balancing policy',
  },
  {
    name: 'log-level',
    key: 'logLevel',
    kind: 'enum',
    choices: ['debug', 'info', 'warn', 'error'],
    default: 'info',
    help: 'Log level',
  },
  {
    name: 'load',
    key: 'load',
    kind: 'bool',
    default: false,
    help: 'Send a small varied background load (steady requests, a burst every 20 s, a few errors) so the dashboard moves',
  },
  {
    name: 'load-rps',
    key: 'loadRps',
    kind: 'int',
    default: 4,
    help: 'Steady requests per second of --load',
  },
  {
    name: 'exit-after-check',
    key: 'exitAfterCheck',
    kind: 'bool',
    default: false,
    help: 'Stop after the first request succeeds (smoke test)',
  },
];

/** The demo decode engine's running window: small enough that a --load burst overfills it. */
const DEMO_DECODE_WINDOW = 16;

export const DEMO_HELP = formatHelp(
  'switchyard demo: gateway + simulated fleet',
  'switchyard demo [options]',
  DEMO_FLAGS,
);

async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await request(`${url}/readiness`).catch(() => undefined);
    const status = res?.statusCode;
    await res?.body.dump();
    if (status === 200) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function allRegistered(gateway: Gateway, n: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (gateway.internals.registry.all().filter((w) => w.isHealthy).length < n) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

export async function runDemo(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  const flags = parseFlags(argv, DEMO_FLAGS);
  const runtime = flags.runtime as SimRuntime;
  const model = flags.model as string;
  const protocol = flags.protocol as 'http' | 'grpc';
  const shape = flags.shape as 'mixed' | 'regular' | 'pd';
  if (protocol === 'http' && runtime === 'vllm')
    throw new UsageError(
      '--runtime vllm needs --protocol grpc (over HTTP a vLLM connector cannot be discovered)',
    );
  const loadRps = Number(flags.loadRps);
  if (loadRps < 0 || loadRps > 1000)
    throw new UsageError(`--load-rps must be between 0 and 1000, got ${loadRps}`);
  const count = shape === 'pd' ? 0 : Number(flags.workers);
  if (shape !== 'pd' && (count < 1 || count > 64))
    throw new UsageError(`--workers must be between 1 and 64, got ${count}`);
  const modeFlags =
    shape === 'mixed' ? ['--enable-igw'] : shape === 'pd' ? ['--pd-disaggregation'] : [];
  // Validate the gateway's flags before any worker starts, so a bad flag fails fast. Stand-in
  // URLs give the rules that count workers (power_of_two) the fleet's shape; the real URLs
  // replace them below.
  const standIns = (n: number, from: number): string[] =>
    Array.from({ length: n }, (_, i) => `${protocol}://127.0.0.1:${from + i}`);
  const fleetFlags =
    shape === 'regular'
      ? ['--worker-urls', ...standIns(count, 1)]
      : shape === 'pd'
        ? ['--prefill', standIns(1, 1)[0] ?? '', 'none', '--decode', standIns(1, 2)[0] ?? '']
        : [];
  const base = buildConfig(
    parseFlags(
      [
        '--host',
        String(flags.host),
        '--port',
        String(flags.port),
        '--prometheus-host',
        String(flags.host),
        '--prometheus-port',
        String(flags.prometheusPort),
        '--policy',
        String(flags.policy),
        '--log-level',
        String(flags.logLevel),
        '--health-check-interval-secs',
        '10',
        '--worker-startup-check-interval',
        '1',
        '--drain-settle-secs',
        '0',
        '--shutdown-grace-period-secs',
        '5',
        // The engines' load reports as metrics, for the dashboard's worker table.
        '--engine-metrics',
        // Prefill admission on, so the dashboard has a prefill queue to show.
        ...(shape === 'regular' ? [] : ['--prefill-max-inflight-requests-per-worker', '8']),
        ...modeFlags,
        ...fleetFlags,
      ],
      GATEWAY_FLAGS,
    ),
  );
  // SGLang-style engines on the realistic model (continuous batching, prefix cache, PD rooms).
  const sim = await startSimFleetFromSpec(
    simDemoFleetSpec({
      model,
      runtime,
      protocol,
      regular: count,
      prefill: shape === 'regular' ? 0 : 1,
      decode: shape === 'regular' ? 0 : 1,
      // A window a burst of --load overfills, so decode admission is seen at work.
      decodeWindow: DEMO_DECODE_WINDOW,
    }),
  );
  const fleet = sim.workers;
  const gateway = await startGateway({
    ...base,
    workerUrls: sim.byRole('regular').map((w) => w.url),
    prefill: sim
      .byRole('prefill')
      .map((w) => ({ url: w.url, bootstrapPort: w.bootstrapPort ?? null })),
    decode: sim.byRole('decode').map((w) => w.url),
  });
  const stop = async (): Promise<void> => {
    await gateway.shutdown();
    await sim.close();
  };
  if (
    !(await waitReady(gateway.url, 15_000)) ||
    !(await allRegistered(gateway, fleet.length, 15_000))
  ) {
    process.stderr.write('switchyard demo: workers did not become ready\n');
    await stop();
    return 1;
  }
  const body = JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Hello from the Switchyard demo' }],
    max_tokens: 12,
  });
  const res = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const reply = (await res.body.json()) as { choices?: { message?: { content?: string } }[] };
  const worker = String(res.headers['x-smg-routed-worker-id'] ?? '?');
  const out = process.stdout;
  out.write(
    `\nSwitchyard demo: gateway ${gateway.url} in front of ${fleet.length} simulated ${runtime} ${protocol === 'grpc' ? 'gRPC ' : ''}workers (${shape})\n`,
  );
  for (const w of fleet) out.write(`  ${w.role.padEnd(7)} ${w.url}\n`);
  out.write(`  metrics ${gateway.metricsUrl}\n`);
  if (gateway.dashboardUrl) out.write(`  dashboard ${gateway.dashboardUrl}\n`);
  out.write('\n');
  out.write(
    `First request answered ${res.statusCode} by ${worker}: ${JSON.stringify(reply.choices?.[0]?.message?.content ?? reply)}\n\n`,
  );
  out.write('Try:\n');
  out.write(
    `  curl -s ${gateway.url}/v1/chat/completions -H 'content-type: application/json' \\\n`,
  );
  out.write(
    `    -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}],"max_tokens":16}'\n`,
  );
  out.write(`  curl -sN ${gateway.url}/v1/completions -H 'content-type: application/json' \\\n`);
  out.write(
    `    -d '{"model":"${model}","prompt":"Once upon a time","max_tokens":16,"stream":true}'\n`,
  );
  out.write(`  curl -s ${gateway.url}/workers\n`);
  if (gateway.dashboardUrl) {
    out.write(
      `\nOpen ${gateway.dashboardUrl} in a browser to watch the fleet${flags.load === true ? ' (background load running)' : '; add --load to see it under load'}.\n`,
    );
  }
  out.write('\nPress Ctrl+C to stop.\n');
  const stopLoad =
    flags.load === true && flags.exitAfterCheck !== true
      ? startDemoLoad({
          url: gateway.url,
          model,
          rps: loadRps,
          burst: DEMO_DECODE_WINDOW * 3,
        })
      : undefined;
  if (flags.exitAfterCheck === true) {
    await stop();
    return res.statusCode === 200 ? 0 : 1;
  }
  await untilSignal(() => process.exit(1));
  await stopLoad?.();
  await stop();
  return 0;
}
