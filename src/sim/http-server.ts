// One simulated worker = one node:http server + one engine + faults + stats. This file is the HTTP
// layer only: it routes, reads bodies, applies request-level faults and hands inference to a
// session; timing lives behind the SimEngine interface (engine.ts).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimEngine } from './engine.js';
import type {
  ResolvedSimOptions,
  SimFaults,
  SimStats,
  SimWorker,
  SimWorkerOptions,
} from './options.js';
import type { InferenceKind } from './request-parse.js';
import type { Handler, Method, RouteTable } from './routes.js';
import type { SessionContext } from './session.js';
import type { WorkerInfo } from './info.js';
import { FixedLatencyEngine } from './engine.js';
import { FaultInjector, parseFaults } from './faults.js';
import { GenerateSession } from './generate-session.js';
import { readJsonBody, sendEmpty, sendJson, sendText } from './http-io.js';
import * as bodies from './info.js';
import { OpenAiSession } from './openai-session.js';
import { resolveSimOptions } from './options.js';
import { parseInference } from './request-parse.js';
import { errorBody } from './responses.js';
import { buildRouteTable } from './routes.js';
import { StatsRecorder } from './stats.js';

const ID_PREFIX: Record<InferenceKind, string> = {
  chat: 'chatcmpl',
  completion: 'cmpl',
  generate: 'gen',
};

class SimHttpWorker implements SimWorker {
  readonly url: string;
  readonly port: number;
  readonly name: string;
  private readonly faults: FaultInjector;
  private readonly recorder = new StatsRecorder();
  private readonly info: WorkerInfo;
  private readonly routes: RouteTable;
  private nextId = 0;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    private readonly opts: ResolvedSimOptions,
    private readonly engine: SimEngine,
  ) {
    const address = server.address() as AddressInfo;
    this.port = address.port;
    this.name = opts.workerName ?? `sim-${this.port}`;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `http://${host}:${this.port}`;
    this.faults = new FaultInjector(opts.seed, opts.faults);
    this.info = {
      runtime: opts.runtime,
      model: opts.model,
      maxRunningRequests: opts.maxRunningRequests,
      created: Math.floor(Date.now() / 1000),
    };
    this.routes = buildRouteTable(opts.runtime, {
      health: this.health,
      healthGenerate: this.health,
      models: (_q, res) => sendJson(res, 200, bodies.modelsBody(this.info)),
      chat: (req, res, path) => this.inference('chat', req, res, path),
      completions: (req, res, path) => this.inference('completion', req, res, path),
      generate: (req, res, path) => this.inference('generate', req, res, path),
      loads: (_q, res) => sendJson(res, 200, bodies.loadsBody(this.info, this.engine.load())),
      metrics: (_q, res) =>
        sendText(
          res,
          200,
          bodies.metricsText(this.info, this.engine.load()),
          'text/plain; version=0.0.4',
        ),
      serverInfo: (_q, res) => sendJson(res, 200, bodies.serverInfoBody(this.info)),
      modelInfo: (_q, res) => sendJson(res, 200, bodies.modelInfoBody(this.info)),
      version: (_q, res) => sendJson(res, 200, bodies.versionBody(this.info)),
      flushCache: (_q, res) => sendText(res, 200, 'Cache flushed.\n'),
      simStats: (_q, res) => sendJson(res, 200, this.recorder.snapshot()),
      simFaultsGet: (_q, res) => sendJson(res, 200, this.faults.current()),
      simFaultsPost: this.postFaults,
    });
    server.on('request', this.dispatch);
  }

  stats(): SimStats {
    return this.recorder.snapshot();
  }

  setFaults(f: SimFaults): void {
    this.faults.set(f);
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      // Streaming and hung requests would keep close() waiting forever; destroying their sockets
      // fires each session's 'close', which cancels its generation and counts it as aborted.
      this.server.closeAllConnections();
      this.engine.shutdown();
    });
    return this.closing;
  }

  private readonly dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    res.setHeader('x-sim-worker', this.name);
    if (!path.startsWith('/sim/')) this.recorder.countRequest(path);
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
    sendEmpty(res, this.faults.healthStatus() ?? 200);
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
    this.faults.set(parsed.faults);
    sendJson(res, 200, this.faults.current());
  };

  private async inference(
    kind: InferenceKind,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<void> {
    const read = await readJsonBody(req, res);
    if (!read.ok) return;
    this.recorder.recordPost(path, req.headers, read.body);
    const parsed = parseInference(kind, read.body, this.opts);
    if (!parsed.ok) {
      sendJson(res, 400, errorBody(400, parsed.message, 'invalid_request_error'));
      return;
    }
    if (res.destroyed) {
      // The client left between sending its body and now; 'close' has already fired.
      this.recorder.aborted++;
      return;
    }
    const decision = this.faults.decide();
    if (decision === 'error') {
      this.recorder.faultsFired++;
      const status = this.faults.errorStatus();
      sendJson(res, status, errorBody(status, 'sim: injected error', 'sim_fault'));
      return;
    }
    const plan = parsed.plan;
    const ctx: SessionContext = {
      res,
      engine: this.engine,
      stats: this.recorder,
      seed: this.opts.seed,
      meta: {
        id: `${ID_PREFIX[kind]}-${this.name}-${++this.nextId}`,
        created: Math.floor(Date.now() / 1000),
        model: plan.model,
      },
      dropAfterChunks: decision === 'none' ? this.faults.dropAfterChunks() : undefined,
    };
    const session =
      kind === 'generate' ? new GenerateSession(ctx, plan) : new OpenAiSession(ctx, plan);
    if (decision === 'hang') {
      this.recorder.faultsFired++;
      session.hold();
    } else {
      session.run();
    }
  }
}

/** Starts one simulated worker; resolves once it listens. */
export async function startSimWorker(opts?: SimWorkerOptions): Promise<SimWorker> {
  const resolved = resolveSimOptions(opts);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The timing model is the seam a continuous-batching engine will plug into.
  const engine = new FixedLatencyEngine({ ttftMs: resolved.ttftMs, itlMs: resolved.itlMs });
  return new SimHttpWorker(server, resolved, engine);
}
