// Everything one simulated worker's request handlers share, built once per worker by
// createWorkerContext for both surfaces (http-server.ts, grpc-server.ts): handlers in
// inference.ts, kv-routes.ts and the gRPC Generate take it instead of reaching into a worker class,
// so each stays a plain function and both surfaces count PD the same way.
import type { Clock } from '@switchyard/kit';
import type { SimEngine } from './engine.js';
import type { ResolvedSimOptions } from './options.js';
import type { SideChannel } from './vllm-pd.js';
import { FaultInjector } from './faults.js';
import { KvClient } from './kv-client.js';
import { KvPins } from './kv-pins.js';
import { RoomTable } from './room-table.js';
import { StatsRecorder } from './stats.js';

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

/** What only the worker knows: its name and port once bound, its engine and its state. */
export interface WorkerParts {
  opts: ResolvedSimOptions;
  name: string;
  kvEngineId: string;
  /** Where decodes read pinned KV until a bootstrap listener takes over (`side.port`). */
  sidePort: number;
  clock: Clock;
  engine: SimEngine;
  isClosing: () => boolean;
}

export function createWorkerContext(p: WorkerParts): WorkerContext {
  const { opts, clock, engine } = p;
  const rooms = new RoomTable();
  let n = 0;
  // The gauges read the tables at snapshot time, so /sim/stats and stats() show live PD state.
  const stats: StatsRecorder = new StatsRecorder(() => ({
    waiting: engine.load().waiting,
    roomsOpen: rooms.size,
    kvPinned: pins.pinned,
  }));
  const pins = new KvPins(
    p.kvEngineId,
    engine,
    clock,
    opts.kvAbortTimeoutSecs,
    opts.blockSize,
    stats,
  );
  return {
    opts,
    name: p.name,
    clock,
    engine,
    stats,
    faults: new FaultInjector(opts.seed, opts.faults, clock, (f) =>
      engine.setSlowdown(f.slowdown ?? 1),
    ),
    rooms,
    pins,
    kv: new KvClient(),
    // The advertised KV side channel: a wildcard bind is reached through loopback.
    side: {
      host: /^(0\.0\.0\.0|::)$/.test(opts.host) ? '127.0.0.1' : opts.host,
      port: p.sidePort,
    },
    nextRequestNumber: () => ++n,
    isClosing: p.isClosing,
  };
}
