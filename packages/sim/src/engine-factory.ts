// Builds a worker's engine from its options; the HTTP and gRPC servers share it.
import type { Clock } from '@switchyard/kit';
import type { SimEngine } from './engine.js';
import type { ResolvedSimOptions } from './options.js';
import { BatchEngine } from './batch-engine.js';
import { FixedLatencyEngine } from './engine.js';

export function createEngine(opts: ResolvedSimOptions, clock: Clock): SimEngine {
  if (opts.engine === 'canned') {
    return new FixedLatencyEngine(
      {
        ttftMs: opts.ttftMs,
        itlMs: opts.itlMs,
        maxRunning: opts.maxRunningRequests,
        maxTotalTokens: opts.kvTokens,
      },
      clock,
    );
  }
  return new BatchEngine(
    {
      maxRunning: opts.maxRunningRequests,
      kvTokens: opts.kvTokens,
      blockSize: opts.blockSize,
      prefixCache: opts.prefixCache,
      prefillTps: opts.prefillTps,
      prefillChunk: opts.prefillChunk,
      decodeBaseMs: opts.decodeBaseMs,
      decodePerReqMs: opts.decodePerReqMs,
      // About 4 ms of wall time: absorbs timer lateness without bursting tokens after a stall.
      maxLagMs: 4 / opts.timeScale,
    },
    clock,
  );
}
