/**
 * A router kind (regular, or PD) when HTTP and gRPC workers may both be registered: a request
 * goes to the HTTP router or the gRPC one by the model's available workers of each kind, in
 * proportion, so a model can move from HTTP to gRPC serving (or back) by adding and removing
 * workers. A PD pool's capacity in one connection mode is its scarcer leg, min(prefill, decode),
 * since a pair never mixes modes. While no gRPC worker of the pool is registered at all, which
 * is the common case, the choice costs one integer test per request.
 */
import type { Random } from '@switchyard/kit';
import type { Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import type { Router, RouterType } from '../routing/router.js';
import { connectionModeOf, type ConnectionMode } from '../routing/select-regular.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker, WorkerType } from '../workers/worker.js';

/** The worker types of each pool: one type for regular routing, two legs for PD. */
const POOL_TYPES: Record<RouterType, readonly WorkerType[]> = {
  'http-regular': ['regular'],
  'http-pd': ['prefill', 'decode'],
};

export class ConnectionSplitRouter implements Router {
  #grpcWorkers = 0;
  readonly #types: readonly WorkerType[];

  constructor(
    /** The router kind this stands for: which worker types it counts. */
    readonly type: RouterType,
    private readonly registry: WorkerRegistry,
    private readonly http: Router,
    private readonly grpc: { route(ctx: RequestContext): Promise<Answer> },
    private readonly random: Random,
    /** Whether a model's tokenizer is loaded: until it is, its gRPC workers cannot answer. */
    private readonly hasTokenizer: (model: string) => boolean = () => true,
  ) {
    this.#types = POOL_TYPES[type];
    const count = (w: Worker, d: number) => {
      if (this.#types.includes(w.type) && connectionModeOf(w) === 'grpc') this.#grpcWorkers += d;
    };
    for (const w of registry.all()) count(w, 1);
    registry.on('added', (w: Worker) => count(w, 1));
    registry.on('removed', (w: Worker) => count(w, -1));
    registry.on('replaced', (previous: Worker, w: Worker) => {
      count(previous, -1);
      count(w, 1);
    });
  }

  route(ctx: RequestContext): Promise<Answer> {
    if (this.#grpcWorkers === 0) return this.http.route(ctx);
    const grpc = this.#capacity(ctx, 'grpc');
    const http = this.#capacity(ctx, 'http');
    if (http === 0) return grpc > 0 ? this.grpc.route(ctx) : this.#byRegistered(ctx);
    if (grpc === 0) return this.http.route(ctx);
    // A model moving to gRPC keeps its HTTP workers until its tokenizer has loaded, instead of
    // answering a share of its requests with 503 tokenizer_not_found meanwhile.
    if (ctx.model !== 'unknown' && !this.hasTokenizer(ctx.model)) return this.http.route(ctx);
    return this.random.next() * (grpc + http) < grpc ? this.grpc.route(ctx) : this.http.route(ctx);
  }

  /** Available workers of `mode` for the model: of the pool's scarcer worker type. */
  #capacity(ctx: RequestContext, mode: ConnectionMode): number {
    let least = Infinity;
    for (const type of this.#types) {
      let n = 0;
      for (const w of this.registry.forModel(ctx.model, type)) {
        if (w.isAvailable() && connectionModeOf(w) === mode) n++;
      }
      least = Math.min(least, n);
    }
    return least;
  }

  /** No pool of the model is available: let the router of the registered kind answer why. */
  #byRegistered(ctx: RequestContext): Promise<Answer> {
    for (const type of this.#types) {
      const any = this.registry.forModel(ctx.model, type)[0];
      if (any !== undefined && connectionModeOf(any) === 'grpc') return this.grpc.route(ctx);
    }
    return this.http.route(ctx);
  }
}
