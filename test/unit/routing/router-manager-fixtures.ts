/** Fixtures for the router-manager unit tests: fake routers, a real registry, fleets by shape. */
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { bufferAnswer, type Answer } from '../../../src/routing/answer.js';
import type { Endpoint } from '../../../src/routing/endpoint.js';
import type { RequestContext } from '../../../src/routing/request-context.js';
import type { RouterType } from '../../../src/routing/router.js';
import { RouterManager, type ManagedRouter } from '../../../src/routing/router-manager.js';
import type { PdWeightMode, RouterWeights } from '../../../src/routing/router-weights.js';
import { seededRandom } from '@switchyard/kit';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import type { Worker, WorkerInit, WorkerType } from '../../../src/workers/worker.js';
import { testWorker } from '../../helpers/workers.js';

/** Records what it was asked to route; answers an empty 200. */
export class FakeRouter implements ManagedRouter {
  readonly routed: RequestContext[] = [];
  readonly supports?: (endpoint: Endpoint) => boolean;

  constructor(
    readonly type: RouterType,
    supports?: (endpoint: Endpoint) => boolean,
  ) {
    if (supports !== undefined) this.supports = supports;
  }

  async route(ctx: RequestContext): Promise<Answer> {
    this.routed.push(ctx);
    return bufferAnswer(200, {}, Buffer.alloc(0), {
      midStreamError: () => new GatewayError('internal_error', 'unused'),
    });
  }
}

export interface RequestShape {
  model?: string;
  endpoint?: Endpoint;
  routingKey?: string;
}

export function ctxFor(shape: RequestShape = {}): RequestContext {
  return {
    endpoint: shape.endpoint ?? 'chat',
    endpointLabel: 'chat',
    path: '/v1/chat/completions',
    body: {},
    upstreamBody: Buffer.alloc(0),
    model: shape.model ?? 'm',
    modelLabel: shape.model ?? 'm',
    stream: false,
    requestId: 'r',
    headers: {},
    clientAuthorization: undefined,
    via: '1.1 switchyard-test',
    signal: new AbortController().signal,
    startTime: 0,
    routingKey: shape.routingKey,
    targetWorker: undefined,
    tokens: undefined,
    rid: undefined,
  };
}

export interface Harness {
  registry: WorkerRegistry;
  manager: RouterManager;
  regular: FakeRouter;
  pd: FakeRouter;
  choices: { type: RouterType; model: string }[];
  weights: { model: string; weights: RouterWeights }[];
  /** Adds `n` ready workers of a type serving `model`; returns them. */
  add(type: WorkerType, n: number, model?: string, init?: Partial<WorkerInit>): Worker[];
  /** How many of `n` requests the manager sends to PD. */
  pdShare(n: number, shape?: RequestShape): number;
}

let serial = 0;

export function harness(
  opts: { mode?: PdWeightMode; seed?: number; pd?: FakeRouter | null; regular?: FakeRouter } = {},
): Harness {
  const registry = new WorkerRegistry(new GatewayMetrics());
  const regular = opts.regular ?? new FakeRouter('http-regular');
  const pd = opts.pd ?? new FakeRouter('http-pd');
  const choices: Harness['choices'] = [];
  const weights: Harness['weights'] = [];
  const manager = new RouterManager({
    registry,
    regular,
    pd: opts.pd === null ? undefined : pd,
    weightMode: opts.mode ?? 'paired',
    random: seededRandom(opts.seed ?? 42),
    metrics: {
      onChoice: (type, model) => choices.push({ type, model }),
      onWeights: (model, w) => weights.push({ model, weights: w }),
    },
  });
  return {
    registry,
    manager,
    regular,
    pd,
    choices,
    weights,
    add(type, n, model = 'm', init = {}) {
      return Array.from({ length: n }, () => {
        const name = `${type}-${++serial}`;
        const w = testWorker(name, { type, models: [model], ...init });
        registry.add(w);
        return w;
      });
    },
    pdShare(n, shape = {}) {
      let pdCount = 0;
      for (let i = 0; i < n; i++) {
        if (manager.choose(ctxFor(shape)).router.type === 'http-pd') pdCount += 1;
      }
      return pdCount;
    },
  };
}
