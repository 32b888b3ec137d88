/**
 * A minimal engine for load-report tests: answers /health, /v1/models and /v1/loads (or only
 * /metrics) with values the test sets, plus a trivial /v1/completions. The simulator reports
 * its real queue; this stub lets a test dictate the numbers exactly.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubLoad {
  running: number;
  waiting: number;
  tokenUsage: number;
}

export interface StubEngine {
  url: string;
  load: StubLoad;
  /** When false, /v1/loads is 404 and loads come from /metrics only. */
  loadsEndpoint: boolean;
  completions: number;
  close(): Promise<void>;
}

export async function startStubEngine(model = 'stub-model'): Promise<StubEngine> {
  const engine: StubEngine = {
    url: '',
    load: { running: 0, waiting: 0, tokenUsage: 0 },
    loadsEndpoint: true,
    completions: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const l = engine.load;
    if (path === '/health') return json(200, {});
    if (path === '/v1/models')
      return json(200, {
        object: 'list',
        data: [{ id: model, object: 'model', owned_by: 'sglang' }],
      });
    if (path === '/v1/loads' && engine.loadsEndpoint) {
      return json(200, {
        timestamp: new Date().toISOString(),
        dp_rank_count: 1,
        loads: [
          {
            dp_rank: 0,
            num_running_reqs: l.running,
            num_waiting_reqs: l.waiting,
            num_waiting_uncached_tokens: 0,
            num_total_reqs: l.running + l.waiting,
            num_used_tokens: 0,
            max_total_num_tokens: 1000,
            token_usage: l.tokenUsage,
            gen_throughput: 100,
            cache_hit_rate: 0,
            utilization: 0,
            max_running_requests: 64,
          },
        ],
      });
    }
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(
        `sglang:num_running_reqs ${l.running}\nsglang:num_queue_reqs ${l.waiting}\nsglang:token_usage ${l.tokenUsage}\n`,
      );
    }
    if (path === '/v1/completions') {
      engine.completions += 1;
      req.resume();
      return json(200, {
        id: 'c',
        object: 'text_completion',
        choices: [{ index: 0, text: 'ok', finish_reason: 'stop' }],
      });
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  engine.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return engine;
}
