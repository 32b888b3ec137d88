// Public types of the engine simulator. The simulator is its own package and imports only
// @switchyard/kit, never gateway code, so that `switchyard sim` runs on its own. Defaults live in resolve-options.ts.
import type { Clock } from '@switchyard/kit';

/** The engine whose HTTP surface a simulated worker imitates. */
export type SimRuntime = 'sglang' | 'vllm' | 'tokenspeed';

export const SIM_RUNTIMES: readonly SimRuntime[] = ['sglang', 'vllm', 'tokenspeed'];

/** Wire protocol: the engine's HTTP routes, or its gRPC service (token ids in and out). */
export type SimProtocol = 'http' | 'grpc';

export const SIM_PROTOCOLS: readonly SimProtocol[] = ['http', 'grpc'];

/** Timing model: `canned` (fixed TTFT/ITL, no queue) or `realistic` (continuous batching). */
export type SimEngineKind = 'canned' | 'realistic';

export const SIM_ENGINES: readonly SimEngineKind[] = ['canned', 'realistic'];

/** PD role. vLLM workers take their PD part from each request's kv_transfer_params instead. */
export type SimRole = 'regular' | 'prefill' | 'decode';

export const SIM_ROLES: readonly SimRole[] = ['regular', 'prefill', 'decode'];

/** vLLM KV connector (`--kv-transfer-config kv_connector`). */
export type SimKvConnector = 'NixlConnector' | 'MooncakeConnector';

export const SIM_KV_CONNECTORS: readonly SimKvConnector[] = ['NixlConnector', 'MooncakeConnector'];

/**
 * Injectable faults. Every field is optional; `{}` means a healthy worker. Durations are in
 * simulated ms (divided by the time scale on the wall clock).
 */
export interface SimFaults {
  /** 0..1 probability that an inference request answers `errorStatus` (drawn from the seeded PRNG). */
  errorRate?: number;
  /** Status used by `errorRate`; default 500. */
  errorStatus?: number;
  /** Inference requests never answer (headers are never sent) until the client closes. */
  hang?: boolean;
  /** Streaming: destroy the socket after N SSE data chunks. Non-streaming: destroy before the body. */
  dropAfterChunks?: number;
  /**
   * Send a 200 head at once (SSE or JSON, by the request's `stream`), then close the connection
   * before any body byte: an engine that crashes after accepting a request. Wins over
   * dropAfterChunks.
   */
  dropAfterHead?: boolean;
  /** If set, /health (and /health_generate) answer this status, e.g. 503. */
  healthStatus?: number;
  /** /health answers 503 for this long after the faults are set (an engine still loading). */
  slowStartMs?: number;
  /** /health alternates 503 and 200 every this many ms, starting with 503. */
  flapPeriodMs?: number;
  /** Every engine duration (steps, TTFT, ITL) is multiplied by this factor, 0.01..1000. */
  slowdown?: number;
  /**
   * gRPC: the status code (0..16) a start failure (`errorRate`) ends the call with. Default: the
   * code SMG maps back to `errorStatus` (503 → UNAVAILABLE 14, 400 → INVALID_ARGUMENT 3, 429 →
   * RESOURCE_EXHAUSTED 8, …; anything else INTERNAL 13).
   */
  grpcStatus?: number;
  /** gRPC: the status a mid-stream failure (`dropAfterChunks`, `dropAfterHead`) ends the call with; default INTERNAL 13. */
  grpcStreamStatus?: number;
  /** gRPC: the status message (details) of an injected failure; default 'sim: injected error'. */
  grpcMessage?: string;
  /**
   * gRPC Generate: send the headers, then one GenerateResponse with neither `chunk` nor
   * `complete` (an engine the client cannot read), then end the call OK. Wins over the drop
   * faults.
   */
  grpcMalformed?: boolean;
  /** gRPC: Abort answers (and cancels the sequence) only after this many ms. */
  abortDelayMs?: number;
  /**
   * gRPC Generate: a call the client cancels keeps running until it ends or an Abort arrives, as
   * a Python servicer that does not pass the cancel on to its scheduler (why gateways send Abort).
   */
  grpcIgnoreCancel?: boolean;
  /**
   * gRPC Generate: after this many tokens the engine stops producing and says nothing more, the
   * call left open (a wedged engine); it ends when the client cancels or an Abort arrives.
   */
  grpcStallAfterTokens?: number;
  /** gRPC GetTokenizer: the last chunk carries a wrong sha256. */
  tokenizerBadSha?: boolean;
  /** gRPC GetTokenizer: the last chunk carries no sha256. */
  tokenizerNoSha?: boolean;
  /** gRPC GetTokenizer: wait this many ms before the first chunk. */
  tokenizerDelayMs?: number;
  /** All faults clear themselves this long after being set. */
  durationMs?: number;
  /** The request faults (errorRate, hang, dropAfterChunks, dropAfterHead, grpcMalformed, grpcStallAfterTokens) clear after firing this many times. */
  maxFires?: number;
}

/** Options of one simulated worker. */
export interface SimWorkerOptions {
  /** Interface to bind; default '127.0.0.1'. */
  host?: string;
  /** Port to bind; default 0 (ephemeral). */
  port?: number;
  /** Engine surface to imitate; default 'sglang'. */
  runtime?: SimRuntime;
  /** 'http' (default) or 'grpc': serve only `runtime`'s gRPC service (grpc://host:port). */
  protocol?: SimProtocol;
  /**
   * gRPC: a Hugging Face tokenizer directory (tokenizer.json, tokenizer_config.json, optional
   * config.json / generation_config.json) mapping answer text to token ids and served by
   * GetTokenizer. Default: the tiny byte-level BPE tokenizer shipped in assets/tiny-tokenizer.
   */
  tokenizerDir?: string;
  /**
   * gRPC: the EOS id emitted when an answer ends. Default: `eos_token_id` of config.json /
   * generation_config.json, else tokenizer_config.json's `eos_token` looked up in the tokenizer.
   */
  eosTokenId?: number;
  /**
   * gRPC: the text every answer replays (encoded with the tokenizer, then EOS). Default: the
   * seeded canned words the HTTP surface answers with (`outputTokens` words per choice).
   */
  answerText?: string;
  /** gRPC GetModelInfo max_context_length (max_req_input_len is one less); default 32768. */
  maxContextLength?: number;
  /** gRPC GetModelInfo weight_version; default 'default'. */
  weightVersion?: string;
  /**
   * gRPC: the tokenizer path GetModelInfo and server_args report; default the tokenizer
   * directory itself. An engine on another host reports a path the gateway cannot read, which
   * makes the gateway fetch the tokenizer with GetTokenizer instead.
   */
  tokenizerPathLabel?: string;
  /** gRPC GetModelInfo default_sampling_params_json; default ''. */
  defaultSamplingParamsJson?: string;
  /** Served model name; default 'sim-model'. */
  model?: string;
  /** PRNG seed; output text is deterministic per (seed, request content). Default 0. */
  seed?: number;
  /** Timing model; default 'canned'. */
  engine?: SimEngineKind;
  /** Simulated time per wall time: 0.01 runs every duration 100× faster. Default 1. */
  timeScale?: number;
  /**
   * The clock every simulated duration runs on (engine steps, PD deadlines, fault windows).
   * Default a wall clock scaled by `timeScale`; tests pass a kit ManualClock to drive the worker
   * without sleeping. Code only: a fleet file or flag cannot set it.
   */
  clock?: Clock;
  /** Canned engine: time to first token in ms; default 20. */
  ttftMs?: number;
  /** Canned engine: inter-token latency in ms; default 5. */
  itlMs?: number;
  /** Output length when the request gives no max_tokens; default 16. */
  outputTokens?: number;
  /**
   * Natural output length: streams hit EOS after this many tokens unless the request sets
   * ignore_eos (finish_reason 'stop'). Default: none, so a capped request runs to its cap.
   */
  eosLength?: number;
  /** Running window: max_running_requests (sglang) or max_num_seqs (vllm, tokenspeed); default 256. */
  maxRunningRequests?: number;
  /** Realistic engine: prefill throughput in tokens/s; default 8000. */
  prefillTps?: number;
  /** Realistic engine: prompt tokens prefilled per step (chunked prefill); default 2048. */
  prefillChunk?: number;
  /** Realistic engine: decode step time with an empty batch, ms; default 6.0. */
  decodeBaseMs?: number;
  /** Realistic engine: extra decode step time per running sequence, ms; default 0.35. */
  decodePerReqMs?: number;
  /** KV pool in tokens (enforced by the realistic engine); default 524288. */
  kvTokens?: number;
  /** Prefix-cache and KV block size in tokens; default 16. */
  blockSize?: number;
  /** Realistic engine: prefix caching; default true. */
  prefixCache?: boolean;
  /** PD role (SGLang/TokenSpeed bootstrap protocol), over HTTP or gRPC; default 'regular'. */
  role?: SimRole;
  /**
   * Port of the HTTP bootstrap server (0 = ephemeral). Default 0 for a prefill and for a gRPC vLLM
   * worker with a kvConnector (its decodes read KV over HTTP), none otherwise.
   */
  bootstrapPort?: number | undefined;
  /** Prefill: how long a room waits for its decode peer; default 300 s (tokenspeed 120 s). */
  bootstrapTimeoutSecs?: number;
  /** Decode: how long an admitted room waits for its KV; default 300 s. */
  waitingTimeoutSecs?: number;
  /** vLLM: KV connector enabling NIXL or Mooncake PD; default none. */
  kvConnector?: SimKvConnector;
  /** vLLM: engine id returned as remote_engine_id; default the worker name. */
  kvEngineId?: string;
  /** vLLM: how long a prefill pins KV that nobody pulls; default 480 s. */
  kvAbortTimeoutSecs?: number;
  /** Reported as dp_size / tp_size; default 1. */
  dpSize?: number;
  tpSize?: number;
  /** Name sent in the `x-sim-worker` response header; default `sim-${port}`. */
  workerName?: string | undefined;
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
  /** Inference requests answered with an engine error (PD deadline, aborted room, bad peer). */
  failed: number;
  /** Inference requests in flight (generating, streaming, queued or held by the hang fault). */
  running: number;
  /**
   * The most requests this worker had open at once since it started (gRPC: Generate calls from
   * arrival to their end, Abort or the end of a call whose cancel the servicer ignored).
   */
  peakRunning: number;
  /** Sequences queued in the engine for a slot of the window (decode: pre-allocation queue). */
  waiting: number;
  /** Number of times a fault changed a request's outcome. */
  faultsFired: number;
  /** Open bootstrap rooms on this worker's bootstrap server (prefill). */
  roomsOpen: number;
  /** Every bootstrap_room received, as exact decimal strings, oldest first (last 10 000). */
  roomsSeen: string[];
  /** Prefill rooms whose decode peer did not join within the bootstrap timeout. */
  bootstrapTimeouts: number;
  /** Decode rooms whose KV did not arrive within the waiting timeout. */
  transferTimeouts: number;
  /** Rooms aborted because the other leg closed its connection. */
  roomsAborted: number;
  /** KV transfers received (decode: SGLang room completed, vLLM pull succeeded). */
  kvTransfers: number;
  /** KV transfers sent (prefill: room completed, or pinned vLLM KV pulled). */
  kvTransfersSent: number;
  /** vLLM prefill: KV currently pinned for a decode to pull. */
  kvPinned: number;
  /** vLLM prefill: pins dropped by the abort timeout. */
  kvExpired: number;
  /** vLLM decode: prompts computed locally because the KV handoff was missing or invalid. */
  promptsRecomputed: number;
  /** Prompt tokens served from the prefix cache, summed over requests. */
  cachedTokens: number;
  /** The most recent inference POST with a JSON body: path, headers and parsed body. */
  lastRequest?: {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: unknown;
  };
}

/** One Abort RPC a gRPC worker received. */
export interface SimGrpcAbort {
  /** SGLang/TokenSpeed: `[request_id]`; vLLM: `request_ids`. */
  requestIds: string[];
  /** SGLang/TokenSpeed `reason` (SMG's drop-abort sends 'Stream dropped'); vLLM has none. */
  reason: string | undefined;
  /** How many in-flight Generate calls it ended. */
  matched: number;
}

/** What a gRPC worker received, oldest first (the last 10 000 of each), for tests to assert on. */
export interface SimGrpcRecords {
  /** Every GenerateRequest as decoded by proto-loader (snake_case, int64 as strings). */
  readonly requests: readonly Record<string, unknown>[];
  readonly aborts: readonly SimGrpcAbort[];
}

/** A running simulated worker. */
export interface SimWorker {
  /** `http://host:port`, or `grpc://host:port` for a gRPC worker. */
  readonly url: string;
  readonly protocol: SimProtocol;
  /** gRPC workers: the requests and aborts received; undefined on HTTP workers. */
  readonly grpc: SimGrpcRecords | undefined;
  readonly port: number;
  readonly name: string;
  /** Served model name. */
  readonly model: string;
  readonly runtime: SimRuntime;
  readonly role: SimRole;
  readonly engine: SimEngineKind;
  /**
   * Port of the HTTP bootstrap server (prefill, or gRPC vLLM with a connector), or undefined: what
   * the gateway must send as bootstrap_port, and the port of a Mooncake remote_bootstrap_addr.
   */
  readonly bootstrapPort: number | undefined;
  /** vLLM remote_engine_id of this worker. */
  readonly kvEngineId: string;
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
  protocol: SimProtocol;
  tokenizerDir: string | undefined;
  eosTokenId: number | undefined;
  answerText: string | undefined;
  maxContextLength: number;
  weightVersion: string;
  tokenizerPathLabel: string | undefined;
  defaultSamplingParamsJson: string;
  model: string;
  seed: number;
  engine: SimEngineKind;
  timeScale: number;
  ttftMs: number;
  itlMs: number;
  outputTokens: number;
  eosLength: number | undefined;
  maxRunningRequests: number;
  prefillTps: number;
  prefillChunk: number;
  decodeBaseMs: number;
  decodePerReqMs: number;
  kvTokens: number;
  blockSize: number;
  prefixCache: boolean;
  role: SimRole;
  bootstrapPort: number | undefined;
  bootstrapTimeoutSecs: number;
  waitingTimeoutSecs: number;
  kvConnector: SimKvConnector | undefined;
  kvEngineId: string | undefined;
  kvAbortTimeoutSecs: number;
  dpSize: number;
  tpSize: number;
  workerName: string | undefined;
  faults: SimFaults;
}

/** Context length reported by server_info. */
export const SIM_CONTEXT_LENGTH = 32_768;
/** Default KV pool (SMG mock worker --kv-tokens). */
export const SIM_MAX_TOTAL_NUM_TOKENS = 524_288;
