// Everything one simulated worker's request handlers share. Built once per worker by
// http-server.ts; handlers in inference.ts and kv-routes.ts take it instead of reaching into the
// worker class, so each stays a plain function.
import type { Clock } from '@switchyard/kit';
import type { SimEngine } from './engine.js';
import type { FaultInjector } from './faults.js';
import type { KvClient } from './kv-client.js';
import type { KvPins } from './kv-pins.js';
import type { ResolvedSimOptions } from './options.js';
import type { RoomTable } from './room-table.js';
import type { StatsRecorder } from './stats.js';
import type { SideChannel } from './vllm-pd.js';

export interface WorkerContext {
  readonly opts: ResolvedSimOptions;
  readonly name: string;
  readonly clock: Clock;
  readonly engine: SimEngine;
  readonly stats: StatsRecorder;
  readonly faults: FaultInjector;
  /** Prefill: bootstrap rooms served by this worker's bootstrap server. */
  readonly rooms: RoomTable;
  /** vLLM prefill: KV pinned for decodes to read. */
  readonly pins: KvPins;
  /** Decode: client for reaching prefill peers. */
  readonly kv: KvClient;
  /** vLLM NIXL: where decodes read this worker's pinned KV. */
  readonly side: SideChannel;
  /** Next request number, for response ids. */
  nextRequestNumber(): number;
  /** True once close() started: in-flight requests then end as aborted, whatever fails first. */
  readonly isClosing: () => boolean;
}
