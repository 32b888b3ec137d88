/**
 * A PD gateway in front of simulated gRPC prefill and decode engines of one runtime, serving the
 * real Qwen3 tokenizer, ready to serve (its tokenizer loaded from the engines).
 */
import type { SimRuntime, SimWorkerOptions } from '@switchyard/sim';
import { QWEN3_DIR, waitForReadiness } from './grpc.js';
import { startPdSetup, type PdSetup, type PdSetupOptions } from './pd-fleet.js';

export interface GrpcPdSetupOptions extends PdSetupOptions {
  runtime: SimRuntime;
}

export async function startGrpcPdSetup(opts: GrpcPdSetupOptions): Promise<PdSetup> {
  const engine: SimWorkerOptions = {
    protocol: 'grpc',
    runtime: opts.runtime,
    model: 'qwen3',
    tokenizerDir: QWEN3_DIR,
    seed: 1,
  };
  const setup = await startPdSetup({
    ...opts,
    prefill: { ...engine, ...opts.prefill },
    decode: { ...engine, ...opts.decode },
  });
  try {
    await waitForReadiness(setup.gateway);
  } catch (err) {
    await setup.close();
    throw err;
  }
  return setup;
}
