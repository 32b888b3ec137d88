// One simulated gRPC worker: a grpc-js server on host:port serving only its runtime's engine
// service (the gateway detects the runtime by which HealthCheck answers; the other two services
// are UNIMPLEMENTED), with the same engines, faults and stats as an HTTP worker. Token ids in,
// token ids out: answers are text encoded with the worker's tokenizer (sim-tokenizer.ts).
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '@switchyard/kit';
import { engineService, ENGINE_PROTOS } from '@switchyard/protos';
import type { SimEngine } from './engine.js';
import type {
  ResolvedSimOptions,
  SimEngineKind,
  SimFaults,
  SimGrpcAbort,
  SimGrpcRecords,
  SimRole,
  SimRuntime,
  SimStats,
  SimWorker,
} from './options.js';
import type { SimTokenizer } from './sim-tokenizer.js';
import { ScaledClock } from './clock.js';
import { createEngine } from './engine-factory.js';
import { FaultInjector } from './faults.js';
import { planChoices } from './grpc-answer.js';
import * as info from './grpc-info.js';
import { GrpcGenerateSession } from './grpc-session.js';
import { parseAbort, parseGenerate } from './grpc-wire.js';
import { blockKeys } from './prefix-cache.js';
import { loadSimTokenizer } from './sim-tokenizer.js';
import { StatsRecorder } from './stats.js';

type Msg = Record<string, unknown>;
type Unary = grpc.ServerUnaryCall<Msg, Msg>;
type Reply = grpc.sendUnaryData<Msg>;
type Stream = grpc.ServerWritableStream<Msg, Msg>;

/** GetTokenizer chunk size (SMG's servicer streams 64 KiB). */
const CHUNK_BYTES = 64 * 1024;
const MAX_RECORDS = 10_000;

class Records implements SimGrpcRecords {
  requests: Msg[] = [];
  aborts: SimGrpcAbort[] = [];

  add<T>(list: 'requests' | 'aborts', item: T): void {
    const arr = this[list] as T[];
    arr.push(item);
    if (arr.length > MAX_RECORDS) arr.splice(0, arr.length - MAX_RECORDS);
  }
}

class SimGrpcWorker implements SimWorker {
  /** Set by listening(), before the worker is handed out. */
  url = '';
  port = 0;
  name = '';
  readonly protocol = 'grpc';
  readonly grpc = new Records();
  readonly model: string;
  readonly runtime: SimRuntime;
  readonly role: SimRole = 'regular';
  readonly engine: SimEngineKind;
  readonly bootstrapPort = undefined;
  kvEngineId = '';
  private readonly stats_: StatsRecorder;
  private readonly faults: FaultInjector;
  /** In-flight Generate calls by request id (several when a client reuses an id). */
  private readonly live = new Map<string, Set<GrpcGenerateSession>>();
  private readonly startedAtMs = Date.now();
  private lastReceiveMs = Date.now();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: grpc.Server,
    private readonly opts: ResolvedSimOptions,
    private readonly sim: SimEngine,
    private readonly clock: Clock,
    private readonly tokenizer: SimTokenizer,
  ) {
    this.model = opts.model;
    this.runtime = opts.runtime;
    this.engine = opts.engine;
    this.stats_ = new StatsRecorder(() => ({
      waiting: sim.load().waiting,
      roomsOpen: 0,
      kvPinned: 0,
    }));
    this.faults = new FaultInjector(opts.seed, opts.faults, clock, (f) =>
      sim.setSlowdown(f.slowdown ?? 1),
    );
  }

  listening(port: number): void {
    this.port = port;
    this.name = this.opts.workerName ?? `sim-${port}`;
    this.kvEngineId = this.opts.kvEngineId ?? this.name;
    this.url = `grpc://${bracketed(this.opts.host)}:${port}`;
  }

  /** The handlers of the runtime's service; RPCs not listed answer UNIMPLEMENTED. */
  implementation(): grpc.UntypedServiceImplementation {
    const counted = <A extends unknown[]>(rpc: string, fn: (...args: A) => void) => {
      return (...args: A): void => {
        this.stats_.countRequest(path(this.runtime, rpc));
        fn(...args);
      };
    };
    const unimplemented = (call: { emit(e: string, v: unknown): void } | Unary, cb?: Reply) => {
      const status = { code: grpc.status.UNIMPLEMENTED, details: 'sim: not simulated' };
      if (cb !== undefined) cb(status);
      else call.emit('error', status);
    };
    const impl: grpc.UntypedServiceImplementation = {
      Generate: counted('Generate', this.generate),
      HealthCheck: counted('HealthCheck', this.healthCheck),
      Abort: counted('Abort', this.abortRpc),
      GetModelInfo: counted('GetModelInfo', (_c: Unary, cb: Reply) =>
        cb(null, info.modelInfo(this.opts, this.tokenizer)),
      ),
      GetServerInfo: counted('GetServerInfo', (_c: Unary, cb: Reply) =>
        cb(
          null,
          info.serverInfo(this.opts, this.tokenizer, {
            kvEngineId: this.kvEngineId,
            load: this.sim.load(),
            active: this.stats_.running,
            startedAtMs: this.startedAtMs,
            lastReceiveMs: this.lastReceiveMs,
          }),
        ),
      ),
      GetLoads: counted('GetLoads', (_c: Unary, cb: Reply) =>
        cb(null, info.loads(this.opts, this.sim.load())),
      ),
      GetTokenizer: counted('GetTokenizer', this.getTokenizer),
      SubscribeKvEvents: unimplemented,
    };
    if (this.runtime !== 'tokenspeed') impl['Embed'] = unimplemented;
    if (this.runtime !== 'vllm') {
      for (const rpc of ['FlushCache', 'StartProfile', 'StopProfile']) impl[rpc] = unimplemented;
    }
    return impl;
  }

  stats(): SimStats {
    return this.stats_.snapshot();
  }

  setFaults(f: SimFaults): void {
    this.faults.set(f);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.sim.shutdown();
      this.faults.close();
      // Cancels every open call; each session then settles as aborted.
      this.server.forceShutdown();
    })();
    return this.closing;
  }

  private readonly generate = (call: Stream): void => {
    this.lastReceiveMs = Date.now();
    const req = call.request;
    this.grpc.add('requests', req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(call.metadata.getMap())) headers[k] = String(v);
    this.stats_.recordPost(path(this.runtime, 'Generate'), headers, req);
    const parsed = parseGenerate(this.runtime, req, this.tokenizer);
    if (!parsed.ok) {
      call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: parsed.message });
      return;
    }
    const gen = parsed.value;
    const room = this.opts.maxContextLength - gen.inputIds.length;
    if (room < 1) {
      call.emit('error', {
        code: grpc.status.INVALID_ARGUMENT,
        details: `input of ${gen.inputIds.length} tokens exceeds max_req_input_len ${this.opts.maxContextLength - 1}`,
      });
      return;
    }
    if (call.cancelled) {
      this.stats_.aborted++;
      return;
    }
    const decision = this.faults.decide();
    if (decision === 'error') {
      this.stats_.faultsFired++;
      call.emit('error', this.faults.grpcStartError());
      return;
    }
    const malformed = decision === 'none' && this.faults.takeMalformed();
    const drop = malformed ? 'malformed' : decision === 'none' ? this.faults.takeDrop() : undefined;
    const plans = planChoices(this.opts, this.tokenizer, gen.inputIds, gen.n, {
      maxNewTokens: Math.min(gen.maxNewTokens ?? room, room),
      stopTokenIds: new Set(gen.stopTokenIds),
      ignoreEos: gen.ignoreEos,
    });
    const cache = this.opts.engine === 'realistic' && this.opts.prefixCache;
    const prompt = cache
      ? { tokens: gen.inputIds.length, keys: blockKeys(gen.inputIds, this.opts.blockSize) }
      : undefined;
    const session = new GrpcGenerateSession(
      call,
      {
        runtime: this.runtime,
        engine: this.sim,
        stats: this.stats_,
        failAfter: drop,
        streamError: () => this.faults.grpcStreamError(),
        onEnd: this.forget,
      },
      gen,
      plans,
      prompt,
    );
    let set = this.live.get(gen.requestId);
    if (set === undefined) this.live.set(gen.requestId, (set = new Set()));
    set.add(session);
    if (decision === 'hang') {
      this.stats_.faultsFired++;
      session.hold();
    } else {
      session.run();
    }
  };

  private readonly forget = (s: GrpcGenerateSession): void => {
    const set = this.live.get(s.requestId);
    set?.delete(s);
    if (set?.size === 0) this.live.delete(s.requestId);
  };

  private readonly healthCheck = (_call: Unary, cb: Reply): void => {
    if (this.closing !== undefined) {
      cb(null, { healthy: false, message: 'Server is shutting down' });
      return;
    }
    const status = this.faults.healthStatus();
    if (status !== undefined) cb(null, { healthy: false, message: `sim: unhealthy (${status})` });
    else cb(null, { healthy: true, message: 'ok' });
  };

  private readonly abortRpc = (call: Unary, cb: Reply): void => {
    const { requestIds, reason } = parseAbort(this.runtime, call.request);
    const record: SimGrpcAbort = { requestIds, reason, matched: 0 };
    this.grpc.add('aborts', record);
    const finish = (): void => {
      for (const id of requestIds) {
        for (const s of [...(this.live.get(id) ?? [])]) {
          s.abort();
          record.matched++;
        }
      }
      if (this.runtime === 'vllm') cb(null, {});
      else cb(null, { success: true, message: record.matched > 0 ? 'aborted' : 'not found' });
    };
    const delay = this.faults.abortDelayMs();
    if (delay > 0) this.clock.setTimer(delay, finish);
    else finish();
  };

  private readonly getTokenizer = (call: Stream): void => {
    const f = this.faults.tokenizerFaults();
    const send = async (): Promise<void> => {
      const { zip, sha256 } = await this.tokenizer.bundle();
      if (call.cancelled) return;
      let sha = sha256;
      if (f.noSha) sha = '';
      else if (f.badSha) sha = (sha256[0] === '0' ? '1' : '0') + sha256.slice(1);
      for (let off = 0; off < zip.length; off += CHUNK_BYTES) {
        const last = off + CHUNK_BYTES >= zip.length;
        call.write({ data: zip.subarray(off, off + CHUNK_BYTES), sha256: last ? sha : '' });
      }
      call.end();
    };
    const start = (): void => {
      send().catch((err: unknown) =>
        call.emit('error', { code: grpc.status.INTERNAL, details: (err as Error).message }),
      );
    };
    if (f.delayMs > 0) {
      // A client that gives up (or a closing gateway) ends the wait: no timer outlives it.
      const timer = this.clock.setTimer(f.delayMs, start, { keepAlive: false });
      call.on('cancelled', () => this.clock.clearTimer(timer));
    } else start();
  };
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function path(runtime: SimRuntime, rpc: string): string {
  return `/${ENGINE_PROTOS[runtime].service}/${rpc}`;
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err === null) resolve(port);
      else reject(err);
    });
  });
}

/**
 * Starts one gRPC worker: loads its tokenizer (once per directory per process), binds, and
 * serves `opts.runtime`'s service only. Public callers use startSimWorker / startSimGrpcWorker.
 */
export async function startGrpcServer(
  opts: ResolvedSimOptions,
  clock: Clock = new ScaledClock(opts.timeScale),
): Promise<SimWorker> {
  const tokenizer = await loadSimTokenizer(opts.tokenizerDir, opts.eosTokenId);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  const worker = new SimGrpcWorker(server, opts, createEngine(opts, clock), clock, tokenizer);
  server.addService(engineService(opts.runtime).service, worker.implementation());
  worker.listening(await bind(server, `${bracketed(opts.host)}:${opts.port}`));
  return worker;
}
