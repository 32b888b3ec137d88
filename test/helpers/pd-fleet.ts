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

/**
 * A PD setup with prefill admission (one slot per prefill worker) and a known decode window of
 * 4, so every request holds a prefill slot and a decode room claim that a test can watch come
 * back. `flags` are added after the admission flag.
 */
export function startAdmittedPdSetup(opts: PdSetupOptions = {}): Promise<PdSetup> {
  return startPdSetup({
    ...opts,
    decode: { maxRunningRequests: 4, ...opts.decode },
    flags: ['--prefill-max-inflight-requests-per-worker', '1', ...(opts.flags ?? [])],
  });
}

/**
 * An HTTP PD pair of one runtime's usual protocol: SGLang with its bootstrap rendezvous, or vLLM
 * with the NIXL `kv_transfer_params` relay (registered through /workers with the connector).
 */
export function startRuntimePdSetup(runtime: 'sglang' | 'vllm'): Promise<PdSetup> {
  if (runtime === 'sglang') return startPdSetup();
  const nixl = { runtime: 'vllm', role: 'regular', kvConnector: 'NixlConnector' } as const;
  return startPdSetup({
    prefill: nixl,
    decode: nixl,
    prefillSpec: { kv_connector: 'NixlConnector' },
  });
}

/** Prefill admission slots held, over every prefill worker; throws if admission is off. */
export function prefillSlotsHeld(pd: PdSetup): number {
  const { registry, prefillAdmission } = pd.gateway.internals;
  if (!prefillAdmission) throw new Error('prefill admission is off in this setup');
  return registry.ofType('prefill').reduce((n, w) => n + prefillAdmission.inflight(w), 0);
}

/** Decode rooms claimed, over every decode worker; throws if decode admission is off. */
export function decodeRoomsClaimed(pd: PdSetup): number {
  const { registry, decodeAdmission } = pd.gateway.internals;
  if (!decodeAdmission) throw new Error('decode admission is off in this setup');
  return registry.ofType('decode').reduce((n, w) => n + decodeAdmission.claimed(w), 0);
}
