/**
 * The `EngineClient` over one grpc-js channel. The runtime's differences live in
 * `RUNTIME_PROFILES` (request builder, abort shape, count style); the RPCs here are the same for
 * all three services.
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock, Timer } from '@switchyard/kit';
import { engineService, type EngineRuntime } from '@switchyard/protos';
import type { Logger } from '../observability/logger.js';
import type { TraceHeaders } from '../observability/trace-context.js';
import { CHANNEL_OPTIONS } from './channel.js';
import { GrpcGenerateCall } from './generate-call.js';
import { LOADS_INCLUDE, normaliseLoads, type WireLoadsResponse } from './loads.js';
import { OutputNormaliser } from './normalise.js';
import { RUNTIME_PROFILES, type RuntimeProfile } from './runtime-profile.js';
import { structToJson } from './struct.js';
import { collectTokenizerBundle } from './tokenizer-download.js';
import {
  EngineCallError,
  type EngineClient,
  type EngineLoad,
  type GenerateCall,
  type GenerateInput,
  type HealthReport,
  type TokenizerBundle,
} from './types.js';

/** SMG's `ABORT_RPC_DEADLINE`: a wedged engine must not pile up abort calls. */
export const ABORT_DEADLINE_MS = 10_000;
/** The reason SMG's drop-abort sends (SGLang and TokenSpeed; vLLM's Abort has no reason). */
export const DROP_ABORT_REASON = 'Stream dropped';

type UnaryCallback = (err: grpc.ServiceError | null, response?: unknown) => void;
type UnaryMethod = (req: object, options: grpc.CallOptions, cb: UnaryCallback) => unknown;
type StreamMethod = (
  req: object,
  metadataOrOptions: grpc.Metadata | grpc.CallOptions,
  options?: grpc.CallOptions,
) => grpc.ClientReadableStream<unknown>;

/** GetServerInfoResponse fields that are google.protobuf.Struct (SGLang, TokenSpeed). */
const STRUCT_FIELDS = ['server_args', 'scheduler_info'];

/** The W3C trace context as gRPC metadata, under the header names (as SMG's trace injector). */
function traceMetadata(trace: TraceHeaders): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (trace.traceparent !== undefined) metadata.set('traceparent', trace.traceparent);
  if (trace.tracestate !== undefined) metadata.set('tracestate', trace.tracestate);
  return metadata;
}

export interface EngineClientDeps {
  clock: Clock;
  logger: Logger;
  /** Channel options over SMG's profile (the guarded resolver's lookup). */
  channelOptions?: grpc.ChannelOptions | undefined;
}

export class GrpcEngineClient implements EngineClient {
  readonly #stub: grpc.Client;
  readonly #profile: RuntimeProfile;
  readonly #deps: EngineClientDeps;
  /** Generate calls not yet ended and Abort RPCs not yet answered: the channel stays open for them. */
  #live = 0;
  #closing = false;
  #closeTimer: Timer | undefined;

  constructor(
    readonly runtime: EngineRuntime,
    readonly target: string,
    credentials: grpc.ChannelCredentials,
    deps: EngineClientDeps,
  ) {
    const Stub = engineService(runtime);
    this.#stub = new Stub(target, credentials, { ...CHANNEL_OPTIONS, ...deps.channelOptions });
    this.#profile = RUNTIME_PROFILES[runtime];
    this.#deps = deps;
  }

  generate(input: GenerateInput, trace?: TraceHeaders): GenerateCall {
    const request = this.#profile.buildGenerate(input);
    // No deadline: SMG sets none on Generate (a long generation is not a failure).
    const generate = this.#streamMethod('Generate');
    const call =
      trace === undefined
        ? generate.call(this.#stub, request, {})
        : generate.call(this.#stub, request, traceMetadata(trace), {});
    this.#live++;
    call.once('status', () => this.#settled());
    const channel = this.#stub.getChannel();
    return new GrpcGenerateCall(
      input.requestId,
      call,
      new OutputNormaliser(this.#profile.deltaCounts),
      {
        clock: this.#deps.clock,
        abort: () => this.#abortOnDrop(input.requestId),
        isConnected: () => channel.getConnectivityState(false) === grpc.connectivityState.READY,
      },
    );
  }

  /** The engine's Abort under a 10 s deadline; rejects with `EngineCallError` on failure. */
  async abort(requestId: string, reason: string): Promise<void> {
    await this.#unary('Abort', this.#profile.abortRequest(requestId, reason), ABORT_DEADLINE_MS);
  }

  /** Rejects with `EngineCallError` when the RPC fails; the caller decides what that means. */
  async healthCheck(timeoutMs: number): Promise<HealthReport> {
    const res = (await this.#unary('HealthCheck', {}, timeoutMs)) as {
      healthy?: boolean;
      message?: string;
    };
    return { healthy: res.healthy ?? false, message: res.message ?? '' };
  }

  async getModelInfo(timeoutMs: number): Promise<Record<string, unknown>> {
    return { ...((await this.#unary('GetModelInfo', {}, timeoutMs)) as object) };
  }

  /** Structs become plain objects; `start_time` (a Timestamp) stays `{seconds, nanos}`. */
  async getServerInfo(timeoutMs: number): Promise<Record<string, unknown>> {
    const res = { ...((await this.#unary('GetServerInfo', {}, timeoutMs)) as object) } as Record<
      string,
      unknown
    >;
    for (const key of STRUCT_FIELDS) {
      const value = res[key];
      if (typeof value === 'object' && value !== null) res[key] = structToJson(value);
    }
    return res;
  }

  async getLoads(timeoutMs: number): Promise<EngineLoad[]> {
    const res = await this.#unary('GetLoads', { include: [...LOADS_INCLUDE] }, timeoutMs);
    return normaliseLoads(res as WireLoadsResponse);
  }

  /** The whole stream, handshake included, runs under `timeoutMs`. */
  getTokenizer(timeoutMs: number, signal?: AbortSignal): Promise<TokenizerBundle> {
    const stream = this.#streamMethod('GetTokenizer').call(
      this.#stub,
      {},
      {
        deadline: Date.now() + timeoutMs,
      },
    );
    // A cancelled stream fails with CANCELLED, which the collection reports as its error.
    const cancel = () => stream.cancel();
    if (signal?.aborted) cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    return collectTokenizerBundle(stream).finally(() =>
      signal?.removeEventListener('abort', cancel),
    );
  }

  /**
   * Closes the channel once the calls still running have ended and their Aborts were answered
   * (at most ABORT_DEADLINE_MS + 5 s later): a worker removed, or a gateway shutting down, while
   * streams run must still be able to abort them, or the engine keeps generating for nobody.
   */
  close(): void {
    if (this.#closing) return;
    this.#closing = true;
    if (this.#live === 0) {
      this.#stub.close();
      return;
    }
    this.#closeTimer = this.#deps.clock.setTimer(
      ABORT_DEADLINE_MS + 5000,
      () => this.#stub.close(),
      {
        keepAlive: false,
      },
    );
  }

  #settled(): void {
    this.#live--;
    if (!this.#closing || this.#live > 0) return;
    if (this.#closeTimer !== undefined) this.#deps.clock.clearTimer(this.#closeTimer);
    this.#stub.close();
  }

  /** Resolves once the engine answered the Abort or it failed (logged); never rejects. */
  #abortOnDrop(requestId: string): Promise<void> {
    this.#live++;
    return this.abort(requestId, DROP_ABORT_REASON)
      .catch((err: unknown) => {
        this.#deps.logger.warn(
          { err, requestId, target: this.target, runtime: this.runtime },
          'engine abort failed',
        );
      })
      .finally(() => this.#settled());
  }

  #unary(method: string, request: object, timeoutMs: number): Promise<unknown> {
    const fn = (this.#stub as unknown as Record<string, UnaryMethod>)[method] as UnaryMethod;
    return new Promise((resolve, reject) => {
      fn.call(this.#stub, request, { deadline: Date.now() + timeoutMs }, (err, response) => {
        if (err) reject(new EngineCallError(err.code, err.details, true));
        else resolve(response ?? {});
      });
    });
  }

  #streamMethod(method: string): StreamMethod {
    return (this.#stub as unknown as Record<string, StreamMethod>)[method] as StreamMethod;
  }
}
