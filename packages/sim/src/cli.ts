// `switchyard sim`: serve simulated workers until SIGINT/SIGTERM. Either N identical workers on
// consecutive ports (--count, --port) or a mixed fleet from a file (--fleet); flags are in
// cli-flags.ts.
import type { SimFleet, SimFleetSpec } from './fleet-spec.js';
import type { SimWorker } from './options.js';
import { UsageError } from '@switchyard/kit';
import type { FlagValues } from './cli-flags.js';
import {
  checkEngineFlags,
  checkProtocolFlags,
  parseSimFlags,
  toWorkerOptions,
  usage,
} from './cli-flags.js';
import { loadSimFleetFile, startSimFleetFromSpec } from './fleet-spec.js';

/** Where the command writes and what stops it; tests inject these, the CLI uses the process. */
export interface SimCommandIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  /** Stops serving when aborted, like SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** The fleet the flags describe: a file with the flags as defaults, or --count workers. */
async function fleetSpec(values: FlagValues): Promise<SimFleetSpec> {
  const opts = toWorkerOptions(values);
  const port = (values['base-port'] ?? values['port']) as number | undefined;
  const file = values['fleet'] as string | undefined;
  if (file === undefined) {
    // With --fleet the flags are defaults for workers that may run either engine.
    checkEngineFlags(values);
    checkProtocolFlags(values);
    return {
      basePort: port ?? 31_000,
      workers: [{ ...opts, count: (values['count'] as number | undefined) ?? 1 }],
    };
  }
  if (values['count'] !== undefined)
    throw new UsageError('--count cannot be combined with --fleet');
  const spec = await loadSimFleetFile(file);
  return {
    ...spec,
    basePort: port ?? spec.basePort,
    defaults: { ...spec.defaults, ...opts, faults: { ...spec.defaults?.faults, ...opts.faults } },
  };
}

function describe(w: SimWorker): string {
  // The default worker keeps v1's exact line; anything else names its role and engine.
  const extra = [
    w.protocol === 'grpc' ? 'grpc' : '',
    w.role === 'regular' ? '' : w.role,
    w.engine === 'canned' ? '' : w.engine,
  ]
    .filter((s) => s !== '')
    .map((s) => `, ${s}`)
    .join('');
  const bootstrap = w.bootstrapPort === undefined ? '' : ` (bootstrap port ${w.bootstrapPort})`;
  return `sim worker ${w.name} (${w.runtime}, model ${w.model}${extra}) listening on ${w.url}${bootstrap}\n`;
}

/**
 * Runs `switchyard sim` with the arguments after `sim`. Serves until SIGINT/SIGTERM (or
 * `io.signal`), then closes every worker and resolves 0; a bad flag resolves 2, a bad fleet file
 * or a failed start 1.
 */
export async function runSimCommand(argv: string[], io: SimCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let values: FlagValues;
  let spec: SimFleetSpec;
  try {
    values = parseSimFlags(argv);
    if (values['help'] === true) {
      stdout.write(usage());
      return 0;
    }
    spec = await fleetSpec(values);
  } catch (err) {
    if (err instanceof UsageError) {
      stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    stderr.write(`error: bad fleet file: ${(err as Error).message}\n`);
    return 1;
  }
  let fleet: SimFleet;
  try {
    fleet = await startSimFleetFromSpec(spec);
  } catch (err) {
    stderr.write(`error: sim failed to start: ${(err as Error).message}\n`);
    return 1;
  }
  for (const w of fleet.workers) stdout.write(describe(w));
  await untilStopped(io.signal);
  await fleet.close();
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
