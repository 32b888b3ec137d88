/**
 * Micro-benchmarks for per-request helpers outside routing: metric updates through prom-client
 * and through the cached children of observability/label-cache.ts, the routing selection info,
 * where the edge decision is kept, request ids and the header helpers.
 *
 *   node --import tsx bench/micro/request-path.bench.ts            (about 30 s)
 *   node --import tsx bench/micro/request-path.bench.ts 'child'    (only benches whose name matches)
 *
 * Compare rows within one group of one run; absolute numbers move with the machine.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { bench, do_not_optimize, group, run, summary } from 'mitata';
import { Counter, Histogram, Registry } from 'prom-client';
import { counterChild, histogramChild } from '../../src/observability/label-cache.js';
import { DURATION_BUCKETS } from '../../src/observability/metrics.js';
import type { SelectInfo } from '../../src/policies/policy.js';
import { selectInfoFor, type RequestContext } from '../../src/routing/request-context.js';
import { generateRequestId } from '../../src/server/request-id.js';
import {
  buildUpstreamHeaders,
  dropConnectionNominated,
  relayResponseHeaders,
} from '../../src/upstream/headers.js';

const registry = new Registry();
const responses = new Counter({
  name: 'responses_total',
  help: 'h',
  labelNames: ['path', 'status_code', 'error_code'],
  registers: [registry],
});
const duration = new Histogram({
  name: 'duration_seconds',
  help: 'h',
  labelNames: ['method', 'path'],
  buckets: DURATION_BUCKETS,
  registers: [registry],
});
const RESPONSE = { path: '/v1/completions', status_code: '200', error_code: '' };
const ROUTE = { method: 'POST', path: '/v1/completions' };

group('metric: counter increment', () => {
  summary(() => {
    bench('prom-client inc(labels)', () =>
      responses.inc({ path: '/v1/completions', status_code: '200', error_code: '' }),
    );
    const promChild = responses.labels(RESPONSE);
    bench('prom-client labels() child', () => promChild.inc());
    const child = counterChild(responses, RESPONSE);
    bench('counterChild', () => child.inc());
  });
});

group('metric: histogram observation', () => {
  summary(() => {
    bench('prom-client observe(labels)', () =>
      duration.observe({ method: 'POST', path: '/v1/completions' }, 0.0004),
    );
    const promChild = duration.labels(ROUTE);
    bench('prom-client labels() child', () => promChild.observe(0.0004));
    const child = histogramChild(duration, ROUTE);
    bench('histogramChild', () => child.observe(0.0004));
  });
});

const ctx = {
  endpoint: 'completion',
  body: { prompt: 'Say hello' },
  model: 'm',
  headers: {},
  routingKey: undefined,
  targetWorker: undefined,
  tokens: undefined,
  rid: undefined,
} as unknown as RequestContext;

/** selectInfoFor as an object literal with a getter, as it was before it became a class. */
function literalSelectInfo(c: RequestContext): SelectInfo {
  return {
    model: c.model,
    headers: c.headers,
    leg: 'single',
    get text(): string {
      return c.model;
    },
    routingKey: c.routingKey,
    targetWorker: c.targetWorker,
    tokens: c.tokens,
    rid: c.rid,
  };
}

group('selection info per leg', () => {
  summary(() => {
    bench('object literal with a getter', () => do_not_optimize(literalSelectInfo(ctx)));
    bench('selectInfoFor (class)', () => do_not_optimize(selectInfoFor(ctx, 'single')));
  });
});

const DECIDED = Symbol('decided');
const decisions = new WeakMap<object, string>();
interface FakeRequest {
  url: string;
  [DECIDED]?: string;
}
// Requests are kept a while, as a server keeps them in flight, so none is optimized away.
const inFlight: FakeRequest[] = new Array<FakeRequest>(1024);
let next = 0;

group('per-request record on the request object', () => {
  summary(() => {
    bench('WeakMap set + get', () => {
      const req: FakeRequest = { url: '/' };
      inFlight[next++ & 1023] = req;
      decisions.set(req, 'id');
      do_not_optimize(decisions.get(req));
    });
    bench('symbol property set + get', () => {
      const req: FakeRequest = { url: '/' };
      inFlight[next++ & 1023] = req;
      req[DECIDED] = 'id';
      do_not_optimize(req[DECIDED]);
    });
  });
});

const CLIENT: IncomingHttpHeaders = {
  host: '127.0.0.1:8080',
  connection: 'keep-alive',
  'content-type': 'application/json',
  'content-length': '80',
  'x-request-id': 'abc',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
const UPSTREAM = {
  'content-type': 'application/json',
  'content-length': '300',
  connection: 'keep-alive',
  'keep-alive': 'timeout=5',
  date: 'Tue, 01 Dec 2026 15:00:00 GMT',
};
const REQUEST = { headers: CLIENT, via: '1.1 switchyard-x', requestId: 'cmpl-1' };

group('headers', () => {
  bench('generateRequestId', () => do_not_optimize(generateRequestId('/v1/completions')));
  bench('dropConnectionNominated (keep-alive)', () =>
    do_not_optimize(dropConnectionNominated(CLIENT)),
  );
  bench('buildUpstreamHeaders', () => do_not_optimize(buildUpstreamHeaders(REQUEST, 'k', 80)));
  bench('relayResponseHeaders', () =>
    do_not_optimize(relayResponseHeaders(UPSTREAM, { 'x-request-id': 'cmpl-1' })),
  );
});

await run({ filter: new RegExp(process.argv[2] ?? '.') });
