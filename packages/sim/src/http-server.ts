// One simulated worker = one node:http server (plus a bootstrap server on a prefill) + one engine
// + faults + stats. This file assembles them and routes; inference lives in inference.ts, the
// peer-facing KV endpoints in kv-routes.ts, and timing behind the SimEngine interface.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Clock } from '@switchyard/kit';
import type { AddressInfo } from 'node:net';
import type { SimEngine } from './engine.js';
import type { WorkerInfo } from './info.js';
import type {
  ResolvedSimOptions,
  SimEngineKind,
  SimFaults,
  SimRole,
  SimRuntime,
  SimStats,
  SimWorker,
  SimWorkerOptions,
} from './options.js';
import type { Handler, Method, RouteTable } from './routes.js';
import type { WorkerContext } from './worker-context.js';
import { ScaledClock } from './clock.js';
import { createEngine } from './engine-factory.js';
import { parseFaults } from './faults.js';
import { readJsonBody, sendEmpty, sendJson, sendText } from './http-io.js';
import * as bodies from './info.js';
import { handleInference } from './inference.js';
import { handleMooncakeQuery, handleNixlPull, startBootstrapServer } from './kv-routes.js';
import { handleCountTokens } from './messages-count.js';
import { errorBody } from './responses.js';
import { buildRouteTable } from './routes.js';
import { createWorkerContext } from './worker-context.js';

class SimHttpWorker implements SimWorker {
  readonly url: string;
  readonly protocol = 'http';
  readonly grpc = undefined;
  readonly port: number;
  readonly name: string;
  readonly model: string;
  readonly runtime: SimRuntime;
  readonly role: SimRole;
  readonly engine: SimEngineKind;
  readonly kvEngineId: string;
  bootstrapPort: number | undefined;
  bootstrapServer: Server | undefined;
  readonly ctx: WorkerContext;
  private readonly info: WorkerInfo;
  private readonly routes: RouteTable;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    opts: ResolvedSimOptions,
    model: SimEngine,
    clock: Clock,
  ) {
    const address = server.address() as AddressInfo;
    this.port = address.port;
    this.name = opts.workerName ?? `sim-${this.port}`;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `http://${host}:${this.port}`;
    this.model = opts.model;
    this.runtime = opts.runtime;
    this.role = opts.role;
    this.engine = opts.engine;
    this.kvEngineId = opts.kvEngineId ?? this.name;
    this.ctx = createWorkerContext({
      opts,
      name: this.name,
      kvEngineId: this.kvEngineId,
      sidePort: this.port,
      clock,
      engine: model,
      isClosing: () => this.closing !== undefined,
    });
    const stats = this.ctx.stats;
    this.info = {
      runtime: opts.runtime,
      model: opts.model,
      role: opts.role,
      maxRunningRequests: opts.maxRunningRequests,
      dpSize: opts.dpSize,
      tpSize: opts.tpSize,
      bootstrapPort: undefined,
      created: Math.floor(Date.now() / 1000),
    };
    this.routes = buildRouteTable(opts.runtime, {
      health: this.health,
      healthGenerate: this.health,
      models: (_q, res) => sendJson(res, 200, bodies.modelsBody(this.info)),
      chat: (req, res, path) => handleInference(this.ctx, 'chat', req, res, path),
      completions: (req, res, path) => handleInference(this.ctx, 'completion', req, res, path),
      generate: (req, res, path) => handleInference(this.ctx, 'generate', req, res, path),
      messages: (req, res, path) => handleInference(this.ctx, 'messages', req, res, path),
      countTokens: (req, res, path) => handleCountTokens(this.ctx, req, res, path),
      responses: (req, res, path) => handleInference(this.ctx, 'responses', req, res, path),
      loads: (_q, res) => sendJson(res, 200, bodies.loadsBody(this.info, model.load(), this.pd())),
      metrics: (_q, res) =>
        sendText(
          res,
          200,
          bodies.metricsText(this.info, model.load(), this.pd()),
          'text/plain; version=0.0.4',
        ),
      serverInfo: (_q, res) => sendJson(res, 200, bodies.serverInfoBody(this.info, model.load())),
      modelInfo: (_q, res) => sendJson(res, 200, bodies.modelInfoBody(this.info)),
      version: (_q, res) => sendJson(res, 200, bodies.versionBody(this.info)),
      flushCache: (_q, res) => {
        model.flushCache();
        sendText(res, 200, 'Cache flushed.\n');
      },
      simStats: (_q, res) => sendJson(res, 200, stats.snapshot()),
      simFaultsGet: (_q, res) => sendJson(res, 200, this.ctx.faults.current()),
      simFaultsPost: this.postFaults,
      kvPull: (req, res) => handleNixlPull(this.ctx, req, res),
      mooncakeQuery: (req, res) => handleMooncakeQuery(this.ctx, req, res),
    });
    server.on('request', this.dispatch);
  }

  /** Starts the bootstrap listener (which NIXL decodes are then pointed at too). */
  async listenBootstrap(host: string, port: number): Promise<void> {
    this.bootstrapServer = await startBootstrapServer(this.ctx, host, port);
    this.bootstrapPort = (this.bootstrapServer.address() as AddressInfo).port;
    this.info.bootstrapPort = this.bootstrapPort;
  }

  stats(): SimStats {
    return this.ctx.stats.snapshot();
  }

  setFaults(f: SimFaults): void {
    this.ctx.faults.set(f);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const servers = [this.server, this.bootstrapServer].filter((s) => s !== undefined);
      const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      // Streaming, hung and PD-waiting requests would keep close() waiting forever; destroying
      // their sockets fires each session's 'close', which cancels its generation and its rooms.
      for (const s of servers) s.closeAllConnections();
      this.ctx.engine.shutdown();
      this.ctx.faults.close();
      this.ctx.pins.close();
      this.ctx.rooms.clear();
      await Promise.all(closed);
      // Last: by now every session has seen its socket close (aborted) and dropped its calls.
      this.ctx.kv.close();
    })();
    return this.closing;
  }

  private pd(): bodies.PdQueues {
    return { bootstrapping: this.ctx.rooms.bootstrapping() };
  }

  private readonly dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    res.setHeader('x-sim-worker', this.name);
    if (!path.startsWith('/sim/')) this.ctx.stats.countRequest(path);
    const route = this.routes.get(path);
    if (route === undefined) {
      sendJson(res, 404, errorBody(404, `no route for ${path}`, 'not_found'));
      return;
    }
    const method = req.method as Method;
    const handler: Handler | undefined = Object.hasOwn(route, method) ? route[method] : undefined;
    if (handler === undefined) {
      res.setHeader('allow', Object.keys(route).join(', '));
      sendJson(
        res,
        405,
        errorBody(405, `method ${req.method ?? ''} not allowed`, 'method_not_allowed'),
      );
      return;
    }
    const done = handler(req, res, path);
    if (done instanceof Promise) done.catch((err: unknown) => this.fail(res, err));
  };

  private fail(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, 500, errorBody(500, `sim: ${(err as Error).message}`, 'internal_error'));
  }

  private readonly health = (_req: IncomingMessage, res: ServerResponse): void => {
    sendEmpty(res, this.ctx.faults.healthStatus() ?? 200);
  };

  private readonly postFaults = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> => {
    const read = await readJsonBody(req, res);
    if (!read.ok) return;
    const parsed = parseFaults(read.body);
    if (!parsed.ok) {
      sendJson(res, 400, errorBody(400, parsed.message, 'invalid_faults'));
      return;
    }
    this.ctx.faults.set(parsed.faults);
    sendJson(res, 200, this.ctx.faults.current());
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Starts one HTTP worker (and its bootstrap server on a prefill); resolves once listening. */
export async function startSimHttpWorker(
  resolved: ResolvedSimOptions,
  opts?: SimWorkerOptions,
): Promise<SimWorker> {
  const server = createServer();
  await listen(server, resolved.port, resolved.host);
  const clock = opts?.clock ?? new ScaledClock(resolved.timeScale);
  const worker = new SimHttpWorker(server, resolved, createEngine(resolved, clock), clock);
  if (resolved.bootstrapPort !== undefined) {
    try {
      await worker.listenBootstrap(resolved.host, resolved.bootstrapPort);
    } catch (err) {
      await worker.close();
      throw err;
    }
  }
  return worker;
}
