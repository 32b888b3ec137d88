// Public types of the engine simulator and the defaults applied to them. The simulator owns only
// src/sim; nothing here may import gateway code, so that `switchyard sim` runs on its own.

/** The engine whose HTTP surface a simulated worker imitates. */
export type SimRuntime = 'sglang' | 'vllm' | 'tokenspeed';

export const SIM_RUNTIMES: readonly SimRuntime[] = ['sglang', 'vllm', 'tokenspeed'];

/** Injectable faults. Every field is optional; `{}` means a healthy worker. */
export interface SimFaults {
  /** 0..1 probability that an inference request answers `errorStatus` (drawn from the seeded PRNG). */
  errorRate?: number;
  /** Status used by `errorRate`; default 500. */
  errorStatus?: number;
  /** Inference requests never answer (headers are never sent) until the client closes. */
  hang?: boolean;
  /** Streaming: destroy the socket after N SSE data chunks. Non-streaming: destroy before the body. */
  dropAfterChunks?: number;
  /** If set, /health (and /health_generate) answer this status, e.g. 503. */
  healthStatus?: number;
}

/** Options of one simulated worker. */
export interface SimWorkerOptions {
  /** Interface to bind; default '127.0.0.1'. */
  host?: string;
  /** Port to bind; default 0 (ephemeral). */
  port?: number;
  /** HTTP surface to imitate; default 'sglang'. */
  runtime?: SimRuntime;
  /** Served model name; default 'sim-model'. */
  model?: string;
  /** PRNG seed; output text is deterministic per (seed, request content). Default 0. */
  seed?: number;
  /** Time to first token in ms; default 20. */
  ttftMs?: number;
  /** Inter-token latency in ms; default 5. */
  itlMs?: number;
  /** Output length when the request gives no max_tokens; default 16. */
  outputTokens?: number;
  /** Reported as max_running_requests (sglang) or max_num_seqs (vllm, tokenspeed); default 256. */
  maxRunningRequests?: number;
  /** Name sent in the `x-sim-worker` response header; default `sim-${port}`. */
  workerName?: string;
  /** Faults active from the start; default none. */
  faults?: SimFaults;
}

/** Counters exposed by `GET /sim/stats` and `SimWorker.stats()`. */
export interface SimStats {
  /** Requests by path (query string removed); /sim/* introspection calls are not counted. */
  requests: Record<string, number>;
  /** Inference requests whose client closed the connection before the response ended. */
  aborted: number;
  /** Inference requests answered in full with a 2xx. */
  completed: number;
  /** Inference requests in flight (generating, streaming or held by the hang fault). */
  running: number;
  /** Number of times a fault changed a request's outcome. */
  faultsFired: number;
  /** The most recent inference POST with a JSON body: path, headers and parsed body. */
  lastRequest?: {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: unknown;
  };
}

/** A running simulated worker. */
export interface SimWorker {
  readonly url: string;
  readonly port: number;
  readonly name: string;
  stats(): SimStats;
  /** Replaces the active faults (`{}` clears them). */
  setFaults(f: SimFaults): void;
  /** Stops listening and destroys open connections; in-flight requests count as aborted. */
  close(): Promise<void>;
}

/** Options with every default applied (the name is resolved once the port is known). */
export interface ResolvedSimOptions {
  host: string;
  port: number;
  runtime: SimRuntime;
  model: string;
  seed: number;
  ttftMs: number;
  itlMs: number;
  outputTokens: number;
  maxRunningRequests: number;
  workerName: string | undefined;
  faults: SimFaults;
}

/** Capacity figures reported by server_info and /v1/loads; v1 does not enforce them. */
export const SIM_MAX_TOTAL_NUM_TOKENS = 524_288;
export const SIM_CONTEXT_LENGTH = 32_768;

export function resolveSimOptions(opts: SimWorkerOptions = {}): ResolvedSimOptions {
  const resolved: ResolvedSimOptions = {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    runtime: opts.runtime ?? 'sglang',
    model: opts.model ?? 'sim-model',
    seed: opts.seed ?? 0,
    ttftMs: opts.ttftMs ?? 20,
    itlMs: opts.itlMs ?? 5,
    outputTokens: opts.outputTokens ?? 16,
    maxRunningRequests: opts.maxRunningRequests ?? 256,
    workerName: opts.workerName,
    faults: { ...opts.faults },
  };
  if (!SIM_RUNTIMES.includes(resolved.runtime)) {
    throw new TypeError(`sim: unknown runtime '${String(resolved.runtime)}'`);
  }
  requireInt('port', resolved.port, 0, 65_535);
  requireInt('seed', resolved.seed, -(2 ** 53), 2 ** 53);
  requireNumber('ttftMs', resolved.ttftMs, 0);
  requireNumber('itlMs', resolved.itlMs, 0);
  requireInt('outputTokens', resolved.outputTokens, 1, 1_000_000);
  requireInt('maxRunningRequests', resolved.maxRunningRequests, 1, 1_000_000);
  return resolved;
}

function requireNumber(name: string, value: number, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new RangeError(`sim: ${name} must be a finite number >= ${min}, got ${String(value)}`);
  }
}

function requireInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `sim: ${name} must be an integer in [${min}, ${max}], got ${String(value)}`,
    );
  }
}
