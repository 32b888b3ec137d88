/** A PD gateway in front of simulated prefill and decode workers, for the PD integration tests. */
import { startSimWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { startTestGateway, waitForReadyWorkers } from './gateway.js';

export interface PdSetup {
  prefills: SimWorker[];
  decodes: SimWorker[];
  gateway: Gateway;
  close(): Promise<void>;
}

export interface PdSetupOptions {
  prefills?: number;
  decodes?: number;
  prefill?: SimWorkerOptions;
  decode?: SimWorkerOptions;
  flags?: string[];
  /** Register through /workers with these extra spec fields per prefill (vLLM connectors). */
  prefillSpec?: Record<string, unknown>;
}

export async function startPdSetup(opts: PdSetupOptions = {}): Promise<PdSetup> {
  const prefills = await Promise.all(
    Array.from({ length: opts.prefills ?? 1 }, () =>
      startSimWorker({ role: 'prefill', ttftMs: 2, itlMs: 2, ...opts.prefill }),
    ),
  );
  const decodes = await Promise.all(
    Array.from({ length: opts.decodes ?? 1 }, () =>
      startSimWorker({ role: 'decode', ttftMs: 2, itlMs: 2, ...opts.decode }),
    ),
  );
  const prefillFlags = opts.prefillSpec
    ? []
    : prefills.flatMap((p) => ['--prefill', p.url, String(p.bootstrapPort ?? 'none')]);
  const decodeFlags = opts.prefillSpec ? [] : decodes.flatMap((d) => ['--decode', d.url]);
  const gateway = await startTestGateway([
    '--pd-disaggregation',
    '--policy',
    'round_robin',
    ...(opts.flags ?? []),
    ...prefillFlags,
    ...decodeFlags,
  ]);
  if (opts.prefillSpec) {
    for (const p of prefills) {
      await fetch(`${gateway.url}/workers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: p.url, worker_type: 'prefill', ...opts.prefillSpec }),
      });
    }
    for (const d of decodes) {
      await fetch(`${gateway.url}/workers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: d.url, worker_type: 'decode' }),
      });
    }
  }
  await waitForReadyWorkers(gateway, prefills.length + decodes.length);
  return {
    prefills,
    decodes,
    gateway,
    close: async () => {
      await gateway.close();
      await Promise.all([...prefills, ...decodes].map((w) => w.close()));
    },
  };
}
