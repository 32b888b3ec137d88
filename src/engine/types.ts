/**
 * The one interface the gateway uses to talk to a gRPC engine, whatever its runtime. One client
 * (grpc-engine-client.ts) serves all three through a per-runtime profile (runtime-profile.ts:
 * the request builder, the abort shape, the token-count style), so the pipeline never sees a
 * runtime's field numbering, its abort shape or its token-count style.
 */
import type { EngineRuntime } from '@switchyard/protos';
import type { TraceHeaders } from '../observability/trace-context.js';

export type { EngineRuntime };

/** A structured-output constraint, as the request asked for it. */
export type Constraint =
  | { kind: 'json_schema'; value: string }
  | { kind: 'json_object' }
  | { kind: 'regex'; value: string }
  | { kind: 'ebnf'; value: string }
  | { kind: 'structural_tag'; value: string };

/**
 * Sampling as the client asked for it: a field the client left out is undefined, and each
 * runtime's builder applies that runtime's defaults (SGLang and TokenSpeed send every value;
 * vLLM leaves temperature unset).
 */
export interface SamplingInput {
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  minP?: number | undefined;
  frequencyPenalty?: number | undefined;
  presencePenalty?: number | undefined;
  repetitionPenalty?: number | undefined;
  maxNewTokens?: number | undefined;
  minNewTokens?: number | undefined;
  /** Stop strings; the SGLang builder strips them (the gateway's stop decoder enforces them). */
  stop: readonly string[];
  stopTokenIds: readonly number[];
  ignoreEos: boolean;
  noStopTrim: boolean;
  n: number;
  skipSpecialTokens: boolean;
  spacesBetweenSpecialTokens: boolean;
  constraint?: Constraint | undefined;
  /** Token id (as a decimal string) to bias. */
  logitBias?: Readonly<Record<string, number>> | undefined;
  seed?: number | undefined;
}

/** Everything one `Generate` call needs; `kind` picks the runtime's chat vs completion defaults. */
export interface GenerateInput {
  kind: 'chat' | 'completion' | 'generate';
  requestId: string;
  inputIds: readonly number[];
  /** The rendered prompt, sent as `original_text` (cosmetic for the engine). */
  originalText: string;
  stream: boolean;
  sampling: SamplingInput;
  /**
   * Output logprobs: `topLogprobs` alternatives per token (0 = the chosen token only); undefined
   * when the client named no count, so each runtime applies SMG's default (vLLM 1, others 0).
   */
  logprobs?: { topLogprobs?: number | undefined } | undefined;
  dataParallelRank?: number | undefined;
  /** PD bootstrap rendezvous (SGLang room < 2^31, TokenSpeed room < 2^63). */
  bootstrap?: { host: string; port: number; room: bigint } | undefined;
  /** vLLM PD: the exact JSON string to send as `kv_transfer_params_json`. */
  kvTransferParamsJson?: string | undefined;
}

export interface OutputLogprobs {
  tokenLogprobs: readonly number[];
  tokenIds: readonly number[];
  /** Per position: the alternatives' ids and logprobs. */
  top: readonly { tokenIds: readonly number[]; logprobs: readonly number[] }[];
}

/**
 * One streamed step of one sample. Counts are normalised to running totals by the client (vLLM
 * sends deltas and its client sums them), so the pipeline reads them the same way for all.
 */
export interface EngineChunk {
  kind: 'chunk';
  index: number;
  tokenIds: readonly number[];
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  logprobs?: OutputLogprobs | undefined;
}

/**
 * The end of one sample. In a stream, `outputIds` repeats only the last delta (the real
 * servicers do that) and must not be decoded again; without a stream it holds every output id.
 */
export interface EngineComplete {
  kind: 'complete';
  index: number;
  outputIds: readonly number[];
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  /** A token id (number) or a stop string, when the engine says what stopped it. */
  matchedStop?: number | string | undefined;
  logprobs?: OutputLogprobs | undefined;
  /** vLLM PD prefill: the params JSON exactly as the engine returned it. */
  kvTransferParamsJson?: string | undefined;
}

export type EngineOutput = EngineChunk | EngineComplete;

/** A gRPC failure: the status code (grpc-js `status` numbering) and the server's message. */
export class EngineCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    /** True when the call failed before it started (no headers or message arrived). */
    readonly beforeStart: boolean,
  ) {
    super(details);
    this.name = 'EngineCallError';
  }
}

/**
 * An engine message that is not a valid `GenerateResponse` (neither a chunk nor a complete). It
 * arrives after the call started, so `beforeStart` is false; the pipeline answers it as a
 * 502-class failure (the engine, not the gateway, is at fault) rather than by its gRPC code.
 */
export class MalformedEngineOutputError extends EngineCallError {
  constructor(details: string) {
    // 13 = grpc status INTERNAL, for code that only maps codes to HTTP.
    super(13, details, false);
    this.name = 'MalformedEngineOutputError';
  }
}

/**
 * One running `Generate`. Iterate it for outputs (a failure is thrown as `EngineCallError`).
 * Unless `markCompleted()` was called, `dispose()` cancels the call and sends the engine's
 * `Abort` (10 s deadline); a deferred call that has yielded nothing yet waits for its first
 * item (at most 30 s) before aborting, so a PD decode leg is not torn down mid-handoff.
 */
export interface GenerateCall extends AsyncIterable<EngineOutput> {
  readonly requestId: string;
  /** Resolves when the engine answered (headers or a first message); rejects if it failed first. */
  readonly started: Promise<void>;
  /**
   * Resolves when the engine has let go of the request: it ended the stream (done or failed), or
   * it answered the `Abort` the gateway sent (or that RPC gave up after its 10 s deadline). A
   * cancel alone does not count, since a servicer need not pass it on to its scheduler; a call
   * cancelled after its last terminal response (completed) or refused before it started needs no
   * Abort and resolves at once. A deferred call disposed before its first item resolves only
   * once that item (or the 30 s cap) has come and its Abort was answered. Whatever admission the
   * call holds (a prefill slot, a decode room) is held until then.
   */
  readonly closed: Promise<void>;
  markCompleted(): void;
  deferAbortUntilFirstItem(): this;
  /**
   * Bounds the call's whole life from now (`--request-timeout-secs`): a started call still open
   * then fails with DEADLINE_EXCEEDED and its owner aborts it. The start is bounded by the start
   * wait with the same deadline.
   */
  expireAfter(ms: number): this;
  dispose(): void;
  /**
   * Ends the call and aborts it at once, even when its abort was deferred (or a deferred abort
   * is already waiting): for a PD decode leg retired because its prefill failed, whose KV will
   * never come. A completed call is only closed.
   */
  disposeNow(): void;
}

export interface HealthReport {
  healthy: boolean;
  message: string;
}

/** One data-parallel rank's load report, with SMG's folding of the PD queues. */
export interface EngineLoad {
  dpRank: number;
  numRunningReqs: number;
  numWaitingReqs: number;
  numUsedTokens: number;
  maxTotalNumTokens: number;
  maxRunningRequests: number;
  tokenUsage: number;
  /** prefill prealloc + inflight (SGLang's disaggregation section), else 0. */
  prefillQueue: number;
  /** decode prealloc + transfer + retracted, else 0. */
  decodeQueue: number;
}

/** A tokenizer bundle: the ZIP bytes and the SHA-256 the engine sent on the last chunk. */
export interface TokenizerBundle {
  data: Buffer;
  sha256: string;
}

export interface EngineClient {
  readonly runtime: EngineRuntime;
  /** `host:port` the channel dials. */
  readonly target: string;
  /** `trace` rides as call metadata (`traceparent`, `tracestate`): see observability/trace-context.ts. */
  generate(input: GenerateInput, trace?: TraceHeaders): GenerateCall;
  abort(requestId: string, reason: string): Promise<void>;
  healthCheck(timeoutMs: number): Promise<HealthReport>;
  /** The raw GetModelInfoResponse fields (snake_case), for labels. */
  getModelInfo(timeoutMs: number): Promise<Record<string, unknown>>;
  /** The raw GetServerInfoResponse fields, Structs turned into plain objects. */
  getServerInfo(timeoutMs: number): Promise<Record<string, unknown>>;
  getLoads(timeoutMs: number): Promise<EngineLoad[]>;
  /** `signal` cancels the stream (shutdown, or the registry giving up on the load). */
  getTokenizer(timeoutMs: number, signal?: AbortSignal): Promise<TokenizerBundle>;
  close(): void;
}
