// One simulated gRPC worker: a grpc-js server on host:port serving only its runtime's engine
// service (the gateway detects the runtime by which HealthCheck answers; the other two services
// are UNIMPLEMENTED), with the same engines, faults and stats as an HTTP worker. Token ids in,
// token ids out: answers are text encoded with the worker's tokenizer (sim-tokenizer.ts).
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '@switchyard/kit';
import { engineService } from '@switchyard/protos';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimEngine } from './engine.js';
import type { GrpcGenerateSession } from './grpc-session.js';
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
import type { WorkerContext } from './worker-context.js';
import { ScaledClock } from './clock.js';
import { createEngine } from './engine-factory.js';
import { handleGenerate } from './grpc-generate.js';
import * as info from './grpc-info.js';
import { parseAbort, rpcPath } from './grpc-wire.js';
import { startBootstrapServer } from './kv-routes.js';
import { loadSimTokenizer } from './sim-tokenizer.js';
import { createWorkerContext } from './worker-context.js';

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
  readonly url: string;
  readonly name: string;
  readonly protocol = 'grpc';
  readonly grpc = new Records();
  readonly model: string;
  readonly runtime: SimRuntime;
  readonly role: SimRole;
  readonly engine: SimEngineKind;
  readonly kvEngineId: string;
  bootstrapPort: number | undefined;
  private bootstrapServer: Server | undefined;
  private readonly ctx: WorkerContext;
  /** In-flight Generate calls by request id (several when a client reuses an id). */
  private readonly live = new Map<string, Set<GrpcGenerateSession>>();
  private readonly startedAtMs = Date.now();
  private lastReceiveMs = Date.now();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: grpc.Server,
    readonly port: number,
    private readonly opts: ResolvedSimOptions,
    private readonly sim: SimEngine,
    clock: Clock,
    private readonly tokenizer: SimTokenizer,
  ) {
    this.name = opts.workerName ?? `sim-${port}`;
    this.url = `grpc://${bracketed(opts.host)}:${port}`;
    this.model = opts.model;
    this.runtime = opts.runtime;
    this.role = opts.role;
    this.engine = opts.engine;
    this.kvEngineId = opts.kvEngineId ?? this.name;
    this.ctx = createWorkerContext({
      opts,
      name: this.name,
      kvEngineId: this.kvEngineId,
      // NIXL reads are HTTP: they go to the bootstrap listener once it is up, never to this port.
      sidePort: port,
      clock,
      engine: sim,
      isClosing: () => this.closing !== undefined,
    });
  }

  /** Starts the HTTP bootstrap listener the decodes join rooms and read KV on. */
  async listenBootstrap(port: number): Promise<void> {
    this.bootstrapServer = await startBootstrapServer(this.ctx, this.opts.host, port);
    this.bootstrapPort = (this.bootstrapServer.address() as AddressInfo).port;
  }

  /** The handlers of the runtime's service; RPCs not listed answer UNIMPLEMENTED. */
  implementation(): grpc.UntypedServiceImplementation {
    const stats = this.ctx.stats;
    const counted = <A extends unknown[]>(rpc: string, fn: (...args: A) => void) => {
      return (...args: A): void => {
        stats.countRequest(rpcPath(this.runtime, rpc));
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
            bootstrapPort: this.bootstrapPort,
            load: this.sim.load(),
            active: stats.running,
            startedAtMs: this.startedAtMs,
            lastReceiveMs: this.lastReceiveMs,
          }),
        ),
      ),
      GetLoads: counted('GetLoads', (_c: Unary, cb: Reply) =>
        cb(
          null,
          info.loads(this.opts, this.sim.load(), { bootstrapping: this.ctx.rooms.bootstrapping() }),
        ),
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
    return this.ctx.stats.snapshot();
  }

  setFaults(f: SimFaults): void {
    this.ctx.faults.set(f);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const bootstrap = this.bootstrapServer;
      const closed = new Promise<void>((resolve) => {
        if (bootstrap === undefined) resolve();
        else bootstrap.close(() => resolve());
      });
      // Cancels every open call; each session then settles as aborted and releases its leg. The
      // joins and KV reads held on the bootstrap listener would keep close() waiting: drop them.
      this.server.forceShutdown();
      // A call whose cancel was ignored (grpcIgnoreCancel) already had its one 'cancelled' event
      // and the engine shutdown below drops handles without a callback, so nothing else would
      // settle it: abort each one left. abort() writes nothing once the client is gone, and grpc-js
      // drops writes to the streams forceShutdown destroyed.
      for (const set of [...this.live.values()]) for (const s of [...set]) s.abort();
      bootstrap?.closeAllConnections();
      this.sim.shutdown();
      this.ctx.faults.close();
      this.ctx.pins.close();
      this.ctx.rooms.clear();
      await closed;
      // Last: a decode's pending join to a peer ends with its session, or here at the latest.
      this.ctx.kv.close();
    })();
    return this.closing;
  }

  private readonly generate = (call: Stream): void => {
    this.lastReceiveMs = Date.now();
    this.grpc.add('requests', call.request);
    handleGenerate(this.ctx, this.tokenizer, this.calls, call);
  };

  private readonly calls = {
    add: (s: GrpcGenerateSession): void => {
      let set = this.live.get(s.requestId);
      if (set === undefined) this.live.set(s.requestId, (set = new Set()));
      set.add(s);
    },
    forget: (s: GrpcGenerateSession): void => {
      const set = this.live.get(s.requestId);
      set?.delete(s);
      if (set?.size === 0) this.live.delete(s.requestId);
    },
  };

  private readonly healthCheck = (_call: Unary, cb: Reply): void => {
    if (this.closing !== undefined) {
      cb(null, { healthy: false, message: 'Server is shutting down' });
      return;
    }
    const status = this.ctx.faults.healthStatus();
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
    const delay = this.ctx.faults.abortDelayMs();
    if (delay > 0) this.ctx.clock.setTimer(delay, finish);
    else finish();
  };

  private readonly getTokenizer = (call: Stream): void => {
    const f = this.ctx.faults.tokenizerFaults();
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
      const timer = this.ctx.clock.setTimer(f.delayMs, start, { keepAlive: false });
      call.on('cancelled', () => this.ctx.clock.clearTimer(timer));
    } else start();
  };
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
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
 * Starts one gRPC worker: loads its tokenizer (once per directory per process), binds, serves
 * `opts.runtime`'s service only, and on a PD worker starts its HTTP bootstrap listener. Public
 * callers use startSimWorker / startSimGrpcWorker.
 */
export async function startGrpcServer(
  opts: ResolvedSimOptions,
  clock: Clock = new ScaledClock(opts.timeScale),
): Promise<SimWorker> {
  const tokenizer = await loadSimTokenizer(opts.tokenizerDir, opts.eosTokenId);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  // Bound before the service is added, so the worker is built knowing its port and name. grpc-js
  // looks handlers up per call, and the service is added in the same tick the bind resolves.
  const port = await bind(server, `${bracketed(opts.host)}:${opts.port}`);
  const worker = new SimGrpcWorker(server, port, opts, createEngine(opts, clock), clock, tokenizer);
  server.addService(engineService(opts.runtime).service, worker.implementation());
  if (opts.bootstrapPort !== undefined) {
    try {
      await worker.listenBootstrap(opts.bootstrapPort);
    } catch (err) {
      await worker.close();
      throw err;
    }
  }
  return worker;
}
