/**
 * In-test stand-ins for the gRPC engine clients and the tokenizer module (src/engine/ and
 * src/tokenizer/ are built on other branches): a scripted `EngineClient` per URL, a
 * `GrpcConnector` that hands them out, a tokenizer registry with the real one's dedupe, and
 * recording loaders. End-to-end tests against the simulator's gRPC server replace these.
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import {
  EngineCallError,
  type EngineClient,
  type EngineLoad,
  type EngineRuntime,
  type GenerateCall,
  type HealthReport,
  type TokenizerBundle,
} from '../../src/engine/types.js';
import type { GrpcConnector } from '../../src/workers/grpc-connector.js';
import type { ModelTokenizer } from '../../src/tokenizer/types.js';
import type {
  TokenizerLoaders,
  TokenizerLoadOptions,
  TokenizerRegistryLike,
} from '../../src/workers/tokenizer-source.js';

/** grpc-js status codes used by the fakes. */
export const GRPC_STATUS = { UNAVAILABLE: 14, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** What one fake engine answers; each field may be changed while a test runs. */
export interface FakeEngine {
  runtime: EngineRuntime;
  /** Whether `detect` finds it (false: the engine does not answer yet). */
  answering: boolean;
  modelInfo: Record<string, unknown>;
  serverInfo: Record<string, unknown> | Error;
  health: HealthReport | Error;
  loads: EngineLoad[] | Error;
  tokenizer: TokenizerBundle | Error | (() => Promise<TokenizerBundle>);
  calls: { health: number; loads: number; tokenizer: number; detect: number };
}

export function fakeEngine(runtime: EngineRuntime, init: Partial<FakeEngine> = {}): FakeEngine {
  return {
    runtime,
    answering: true,
    modelInfo: { model_path: '/models/m', served_model_name: 'm' },
    serverInfo: {},
    health: { healthy: true, message: '' },
    loads: [],
    tokenizer: new EngineCallError(GRPC_STATUS.UNIMPLEMENTED, 'GetTokenizer unimplemented', true),
    calls: { health: 0, loads: 0, tokenizer: 0, detect: 0 },
    ...init,
  };
}

export function engineLoad(init: Partial<EngineLoad> = {}): EngineLoad {
  return {
    dpRank: 0,
    numRunningReqs: 0,
    numWaitingReqs: 0,
    numUsedTokens: 0,
    maxTotalNumTokens: 0,
    maxRunningRequests: 0,
    tokenUsage: 0,
    prefillQueue: 0,
    decodeQueue: 0,
    ...init,
  };
}

async function answer<T>(value: T | Error | (() => Promise<T>)): Promise<T> {
  if (value instanceof Error) throw value;
  if (typeof value === 'function') return (value as () => Promise<T>)();
  return value;
}

class FakeClient implements EngineClient {
  closed = 0;
  constructor(
    readonly engine: FakeEngine,
    readonly runtime: EngineRuntime,
    readonly target: string,
  ) {}

  generate(): GenerateCall {
    throw new Error('the fake engine client does not generate');
  }
  abort(): Promise<void> {
    return Promise.resolve();
  }
  healthCheck(): Promise<HealthReport> {
    this.engine.calls.health += 1;
    return answer(this.engine.health);
  }
  getModelInfo(): Promise<Record<string, unknown>> {
    return answer(this.engine.modelInfo);
  }
  getServerInfo(): Promise<Record<string, unknown>> {
    return answer(this.engine.serverInfo);
  }
  getLoads(): Promise<EngineLoad[]> {
    this.engine.calls.loads += 1;
    return answer(this.engine.loads);
  }
  getTokenizer(): Promise<TokenizerBundle> {
    this.engine.calls.tokenizer += 1;
    return answer(this.engine.tokenizer);
  }
  close(): void {
    this.closed += 1;
  }
}

/** A connector over fake engines keyed by URL (`grpc://127.0.0.1:1` and so on). */
export class FakeConnector implements GrpcConnector {
  readonly engines = new Map<string, FakeEngine>();
  readonly clients: FakeClient[] = [];
  readonly detectHints: (EngineRuntime | undefined)[] = [];

  add(url: string, engine: FakeEngine): FakeEngine {
    this.engines.set(url, engine);
    return engine;
  }

  connect(url: string, runtime: EngineRuntime): EngineClient {
    const engine = this.engines.get(url);
    if (!engine) throw new Error(`no fake engine at ${url}`);
    const client = new FakeClient(engine, runtime, url.replace(/^grpcs?:\/\//, ''));
    this.clients.push(client);
    return client;
  }

  detect(url: string, hint: EngineRuntime | undefined): Promise<EngineRuntime | undefined> {
    this.detectHints.push(hint);
    const engine = this.engines.get(url);
    if (engine) engine.calls.detect += 1;
    if (!engine?.answering) return Promise.resolve(undefined);
    // As SMG: the hint's HealthCheck answers only when the engine is that runtime; the probe
    // then tries the others in turn and the one that answers wins.
    return Promise.resolve(engine.runtime);
  }

  /** Clients dialled for `url` and how often each was closed. */
  closes(url: string): number[] {
    return this.clients
      .filter((c) => `${c.target}` === url.replace(/^grpcs?:\/\//, ''))
      .map((c) => c.closed);
  }
}

/** A JSON logger whose records a test can read (`records`), at debug level. */
export function capturingLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line !== '') records.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', json: true, destination }), records };
}

/** A tokenizer registry with the real one's dedupe (one load per model) and no retries. */
export class FakeTokenizerRegistry implements TokenizerRegistryLike {
  readonly #loaded = new Map<string, ModelTokenizer>();
  readonly #loading = new Map<string, Promise<ModelTokenizer>>();
  readonly #listeners = new Set<(modelId: string) => void>();
  registerCalls = 0;

  get(modelId: string): ModelTokenizer | undefined {
    return this.#loaded.get(modelId);
  }
  has(modelId: string): boolean {
    return this.#loaded.has(modelId);
  }
  models(): string[] {
    return [...this.#loaded.keys()];
  }
  set(tok: ModelTokenizer): void {
    this.#loaded.set(tok.modelId, tok);
    for (const l of this.#listeners) l(tok.modelId);
  }
  remove(modelId: string): ModelTokenizer | undefined {
    const tok = this.#loaded.get(modelId);
    if (tok !== undefined && this.#loaded.delete(modelId))
      for (const l of this.#listeners) l(modelId);
    return tok;
  }
  readonly #closing = new AbortController();

  register(
    modelId: string,
    load: (signal: AbortSignal) => Promise<ModelTokenizer>,
  ): Promise<ModelTokenizer> {
    this.registerCalls += 1;
    const done = this.#loaded.get(modelId);
    if (done) return Promise.resolve(done);
    let pending = this.#loading.get(modelId);
    if (!pending) {
      pending = load(this.#closing.signal).then(
        (tok) => {
          this.#loading.delete(modelId);
          this.#loaded.set(modelId, tok);
          for (const l of this.#listeners) l(modelId);
          return tok;
        },
        (err: unknown) => {
          this.#loading.delete(modelId);
          throw err;
        },
      );
      this.#loading.set(modelId, pending);
    }
    return pending;
  }
  onChange(listener: (modelId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** A tokenizer that only knows where it came from. */
export function stubTokenizer(modelId: string, source: string): ModelTokenizer {
  const no = (): never => {
    throw new Error('stub tokenizer');
  };
  return {
    modelId,
    source,
    vocabSize: 0,
    baseVocabSize: 0,
    eosTokenIds: [],
    hasChatTemplate: false,
    encode: no,
    decode: no,
    tokenToId: () => undefined,
    idToToken: () => undefined,
    renderChat: no,
    stopDecoder: no,
  };
}

/** Loaders that record each call and build stub tokenizers (or fail, or wait on a gate). */
export class FakeLoaders implements TokenizerLoaders {
  readonly calls: { kind: 'dir' | 'bundle'; where: string; opts: TokenizerLoadOptions }[] = [];
  /** Directories whose load fails with this message. */
  readonly failingDirs = new Map<string, string>();
  /** While set, every load waits for it. */
  gate: Promise<void> | undefined;

  async loadDir(dir: string, opts: TokenizerLoadOptions): Promise<ModelTokenizer> {
    this.calls.push({ kind: 'dir', where: dir, opts });
    await this.gate;
    const failure = this.failingDirs.get(dir);
    if (failure !== undefined) throw new Error(failure);
    return stubTokenizer(opts.modelId, dir);
  }
  async loadBundle(
    bundle: TokenizerBundle,
    opts: TokenizerLoadOptions & { origin: string },
  ): Promise<ModelTokenizer> {
    this.calls.push({ kind: 'bundle', where: opts.origin, opts });
    await this.gate;
    if (bundle.sha256 === 'bad') throw new Error('Bundle fingerprint mismatch');
    return stubTokenizer(opts.modelId, opts.origin);
  }
}
