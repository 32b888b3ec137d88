// `switchyard sim`: serve simulated workers until SIGINT/SIGTERM. Flags are parsed by hand so that
// every error is one line naming the flag (node:util parseArgs words its errors for positionals).
import type { SimFaults, SimRuntime, SimWorker } from './options.js';
import type { SimFleetOptions } from './fleet.js';
import { startSimFleet } from './fleet.js';
import { SIM_RUNTIMES } from './options.js';

/** Where the command writes and what stops it; tests inject these, the CLI uses the process. */
export interface SimCommandIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  /** Stops serving when aborted, like SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

type FlagKind = 'string' | 'number' | 'int' | 'bool' | 'runtime';

interface FlagSpec {
  kind: FlagKind;
  min?: number;
  max?: number;
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  runtime: { kind: 'runtime' },
  host: { kind: 'string' },
  port: { kind: 'int', min: 0, max: 65_535 },
  'base-port': { kind: 'int', min: 0, max: 65_535 },
  count: { kind: 'int', min: 1, max: 10_000 },
  model: { kind: 'string' },
  seed: { kind: 'int' },
  'ttft-ms': { kind: 'number', min: 0 },
  'itl-ms': { kind: 'number', min: 0 },
  'output-tokens': { kind: 'int', min: 1 },
  'max-running-requests': { kind: 'int', min: 1 },
  'error-rate': { kind: 'number', min: 0, max: 1 },
  'error-status': { kind: 'int', min: 100, max: 599 },
  'health-status': { kind: 'int', min: 100, max: 599 },
  hang: { kind: 'bool' },
  'drop-after-chunks': { kind: 'int', min: 0 },
  help: { kind: 'bool' },
};

const USAGE = `usage: switchyard sim [flags]
  --runtime sglang|vllm|tokenspeed  HTTP surface to imitate (default sglang)
  --host H                  interface to bind (default 127.0.0.1)
  --port P, --base-port P   first worker port (default 31000; 0 = ephemeral)
  --count N                 workers on consecutive ports (default 1)
  --model NAME              served model name (default sim-model)
  --seed N                  seed for output text and fault draws (default 0)
  --ttft-ms MS              time to first token (default 20)
  --itl-ms MS               inter-token latency (default 5)
  --output-tokens N         output length without max_tokens (default 16)
  --max-running-requests N  reported running window (default 256)
  --error-rate R            fault: probability 0..1 of answering --error-status
  --error-status S          fault: status for --error-rate (default 500)
  --health-status S         fault: status answered by /health
  --hang                    fault: never answer inference requests
  --drop-after-chunks N     fault: drop the connection after N SSE events
  --help                    print this help
`;

class FlagError extends Error {}

type Values = Map<string, string | number | boolean>;

function parseFlags(argv: readonly string[]): Values {
  const values: Values = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new FlagError(`error: unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = FLAGS[name];
    if (spec === undefined) throw new FlagError(`error: unknown flag --${name}`);
    if (spec.kind === 'bool') {
      if (eq !== -1) throw new FlagError(`error: --${name} takes no value`);
      values.set(name, true);
      continue;
    }
    let raw: string | undefined;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else raw = argv[++i];
    if (raw === undefined) throw new FlagError(`error: --${name} expects a value`);
    values.set(name, convert(name, spec, raw));
  }
  return values;
}

function convert(name: string, spec: FlagSpec, raw: string): string | number {
  if (spec.kind === 'string') return raw;
  if (spec.kind === 'runtime') {
    if (!(SIM_RUNTIMES as readonly string[]).includes(raw)) {
      throw new FlagError(
        `error: --${name} expects one of ${SIM_RUNTIMES.join(', ')}, got '${raw}'`,
      );
    }
    return raw;
  }
  const value = raw.trim() === '' ? Number.NaN : Number(raw);
  const wantInt = spec.kind === 'int';
  if (!Number.isFinite(value) || (wantInt && !Number.isInteger(value))) {
    throw new FlagError(
      `error: --${name} expects ${wantInt ? 'an integer' : 'a number'}, got '${raw}'`,
    );
  }
  if (
    (spec.min !== undefined && value < spec.min) ||
    (spec.max !== undefined && value > spec.max)
  ) {
    const range =
      spec.max === undefined ? `>= ${spec.min}` : `in [${spec.min ?? '-inf'}, ${spec.max}]`;
    throw new FlagError(`error: --${name} expects a value ${range}, got '${raw}'`);
  }
  return value;
}

function toFleetOptions(v: Values): { count: number; opts: SimFleetOptions } {
  const num = (k: string): number | undefined => v.get(k) as number | undefined;
  const str = (k: string): string | undefined => v.get(k) as string | undefined;
  const faults: SimFaults = {};
  if (v.has('error-rate')) faults.errorRate = num('error-rate');
  if (v.has('error-status')) faults.errorStatus = num('error-status');
  if (v.has('health-status')) faults.healthStatus = num('health-status');
  if (v.has('drop-after-chunks')) faults.dropAfterChunks = num('drop-after-chunks');
  if (v.get('hang') === true) faults.hang = true;
  return {
    count: num('count') ?? 1,
    opts: {
      basePort: num('base-port') ?? num('port') ?? 31_000,
      host: str('host'),
      runtime: str('runtime') as SimRuntime | undefined,
      model: str('model'),
      seed: num('seed'),
      ttftMs: num('ttft-ms'),
      itlMs: num('itl-ms'),
      outputTokens: num('output-tokens'),
      maxRunningRequests: num('max-running-requests'),
      faults,
    },
  };
}

/**
 * Runs `switchyard sim` with the arguments after `sim`. Serves until SIGINT/SIGTERM (or
 * `io.signal`), then closes every worker and resolves 0; a bad flag resolves 2, a failed start 1.
 */
export async function runSimCommand(argv: string[], io: SimCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let values: Values;
  try {
    values = parseFlags(argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    stderr.write(`${err.message}\n`);
    return 2;
  }
  if (values.get('help') === true) {
    stdout.write(USAGE);
    return 0;
  }
  const { count, opts } = toFleetOptions(values);
  let workers: SimWorker[];
  try {
    workers = await startSimFleet(count, opts);
  } catch (err) {
    stderr.write(`error: sim failed to start: ${(err as Error).message}\n`);
    return 1;
  }
  const runtime = opts.runtime ?? 'sglang';
  const model = opts.model ?? 'sim-model';
  for (const w of workers) {
    stdout.write(`sim worker ${w.name} (${runtime}, model ${model}) listening on ${w.url}\n`);
  }
  await untilStopped(io.signal);
  await Promise.all(workers.map((w) => w.close()));
  return 0;
}

function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (signal?.aborted === true) stop();
    else signal?.addEventListener('abort', stop);
  });
}
