/**
 * The regular router when HTTP and gRPC workers may both be registered: a request goes to the
 * HTTP relay or the gRPC pipeline by the model's available workers of each kind, in proportion,
 * so a model can move from HTTP to gRPC serving (or back) by adding and removing workers. While
 * no gRPC worker is registered at all, which is the common case, the choice costs one integer
 * test per request.
 */
import type { Random } from '@switchyard/kit';
import type { Answer } from '../routing/answer.js';
import type { RequestContext } from '../routing/request-context.js';
import type { Router } from '../routing/router.js';
import { connectionModeOf } from '../routing/select-regular.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';

export class ConnectionSplitRouter implements Router {
  readonly type = 'http-regular' as const;
  #grpcWorkers = 0;

  constructor(
    private readonly registry: WorkerRegistry,
    private readonly http: Router,
    private readonly grpc: { route(ctx: RequestContext): Promise<Answer> },
    private readonly random: Random,
    /** Whether a model's tokenizer is loaded: until it is, its gRPC workers cannot answer. */
    private readonly hasTokenizer: (model: string) => boolean = () => true,
  ) {
    const count = (w: Worker, d: number) => {
      if (connectionModeOf(w) === 'grpc') this.#grpcWorkers += d;
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
    let grpc = 0;
    let http = 0;
    for (const w of this.registry.forModel(ctx.model, 'regular')) {
      if (!w.isAvailable()) continue;
      if (connectionModeOf(w) === 'grpc') grpc++;
      else http++;
    }
    if (http === 0) return grpc > 0 ? this.grpc.route(ctx) : this.#byRegistered(ctx);
    if (grpc === 0) return this.http.route(ctx);
    // A model moving to gRPC keeps its HTTP workers until its tokenizer has loaded, instead of
    // answering a share of its requests with 503 tokenizer_not_found meanwhile.
    if (ctx.model !== 'unknown' && !this.hasTokenizer(ctx.model)) return this.http.route(ctx);
    return this.random.next() * (grpc + http) < grpc ? this.grpc.route(ctx) : this.http.route(ctx);
  }

  /** No worker of the model is available: let the router of the registered kind answer why. */
  #byRegistered(ctx: RequestContext): Promise<Answer> {
    const any = this.registry.forModel(ctx.model, 'regular')[0];
    return any !== undefined && connectionModeOf(any) === 'grpc'
      ? this.grpc.route(ctx)
      : this.http.route(ctx);
  }
}
