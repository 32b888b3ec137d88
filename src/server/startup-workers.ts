/**
 * The workers named on the command line (`--worker-urls`, `--prefill`, `--decode`): checked
 * against the address rules before anything is registered, then registered like `POST /workers`.
 */
import { sleep, UsageError, type Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { WorkerService } from '../workers/service.js';
import type { WorkerRegistry } from '../workers/registry.js';
import { parseWorkerSpec, type WorkerSpec } from '../workers/spec.js';
import { redactUrlCredentials } from '../workers/worker-url.js';

/**
 * The startup workers' specs. A URL the address rules refuse is a usage error (the CLI exits 2),
 * as it is for `buildConfig`; a spec that does not parse is logged and skipped.
 */
export async function startupWorkerSpecs(
  config: GatewayConfig,
  workers: Pick<WorkerService, 'refusal'>,
  logger: Logger,
): Promise<WorkerSpec[]> {
  const startup = [
    ...config.workerUrls.map((url) => ({ flag: '--worker-urls', spec: { url } })),
    ...config.prefill.map((p) => ({
      flag: '--prefill',
      spec: { url: p.url, worker_type: 'prefill', bootstrap_port: p.bootstrapPort },
    })),
    ...config.decode.map((url) => ({ flag: '--decode', spec: { url, worker_type: 'decode' } })),
  ];
  const accepted: WorkerSpec[] = [];
  for (const { flag, spec } of startup) {
    const refusal = await workers.refusal(spec.url);
    if (refusal !== undefined) {
      throw new UsageError(`${flag}: ${redactUrlCredentials(spec.url.trim())} ${refusal}`);
    }
    const parsed = parseWorkerSpec(spec);
    if (parsed.ok) accepted.push(parsed.spec);
    else logger.error({ worker: spec.url, err: parsed.message }, 'startup worker rejected');
  }
  return accepted;
}

/**
 * Resolves once every startup worker serves (each URL has a healthy worker), or after
 * `timeoutMs`, whichever is first; true when all serve. A worker that is down does not hold the
 * gateway back for longer than the timeout.
 */
export async function untilStartupWorkersServe(
  registry: Pick<WorkerRegistry, 'all'>,
  specs: readonly WorkerSpec[],
  timeoutMs: number,
  clock: Clock,
): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  const serving = (): boolean => {
    const healthy = new Set(
      registry
        .all()
        .filter((w) => w.isHealthy)
        .map((w) => w.url),
    );
    return specs.every((s) => healthy.has(s.url));
  };
  while (!serving()) {
    if (clock.now() >= deadline) return false;
    await sleep(50, undefined, clock);
  }
  return true;
}
