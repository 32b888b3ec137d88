/**
 * An IGW gateway (`--enable-igw`) in front of simulated workers of several models and roles, for
 * the igw-* integration tests. Workers join and leave through the worker API, as an operator's
 * would.
 */
import type { PdWeightMode } from '../../src/routing/router-weights.js';
import type { Gateway } from '../../src/server/gateway.js';
import {
  startSimWorker,
  type SimRole,
  type SimWorker,
  type SimWorkerOptions,
} from '@switchyard/sim';
import { seededRandom } from '@switchyard/kit';
import { startTestGateway, waitFor } from './gateway.js';

export interface IgwOptions {
  mode?: PdWeightMode;
  seed?: number;
  flags?: string[];
}

export async function startIgwGateway(opts: IgwOptions = {}): Promise<Gateway> {
  const random = seededRandom(opts.seed ?? 1);
  return startTestGateway(
    [
      '--enable-igw',
      '--pd-weight-mode',
      opts.mode ?? 'paired',
      '--policy',
      'round_robin',
      ...(opts.flags ?? []),
    ],
    { random },
  );
}

/** Simulated workers by URL, with the role each was registered as. */
export class IgwFleet {
  readonly sims = new Map<string, SimWorker>();

  constructor(private readonly gateway: Gateway) {}

  /** Starts a simulated worker and registers it through POST /workers; resolves once ready. */
  async add(role: SimRole, model: string, opts: SimWorkerOptions = {}): Promise<SimWorker> {
    const sim = await startSimWorker({ role, model, ttftMs: 1, itlMs: 1, ...opts });
    this.sims.set(sim.url, sim);
    const spec: Record<string, unknown> = { url: sim.url, worker_type: role };
    if (role === 'prefill') spec.bootstrap_port = sim.bootstrapPort;
    const res = await fetch(`${this.gateway.url}/workers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
    if (res.status !== 202)
      throw new Error(`POST /workers answered ${res.status}: ${await res.text()}`);
    await waitFor(
      () => this.gateway.internals.registry.getByUrl(sim.url)?.isHealthy === true,
      `${sim.url} ready`,
    );
    return sim;
  }

  async addMany(role: SimRole, model: string, n: number): Promise<SimWorker[]> {
    return Promise.all(Array.from({ length: n }, () => this.add(role, model)));
  }

  /** Deregisters through DELETE /workers/{id}; resolves once the registry has let it go. */
  async remove(sim: SimWorker): Promise<void> {
    const id = this.gateway.internals.registry.idForUrl(sim.url);
    const res = await fetch(`${this.gateway.url}/workers/${id ?? ''}`, { method: 'DELETE' });
    await res.arrayBuffer();
    await waitFor(
      () => this.gateway.internals.registry.getByUrl(sim.url) === undefined,
      `${sim.url} removed`,
    );
  }

  /** The role of the worker that answered: the decode worker's for a PD request. */
  roleOf(res: Response): SimRole | undefined {
    const url = res.headers.get('x-smg-routed-worker-id');
    return url === null ? undefined : this.sims.get(url)?.role;
  }

  async close(): Promise<void> {
    await this.gateway.close();
    await Promise.all([...this.sims.values()].map((s) => s.close()));
  }
}

/** One small chat request for `model`; the caller reads or drains the body. */
export async function chat(
  gateway: Gateway,
  model: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 2 }),
  });
}

/** Sends `n` chat requests for `model`, ten at a time, and counts those a PD pair answered. */
export async function pdAnswers(
  fleet: IgwFleet,
  gateway: Gateway,
  model: string,
  n: number,
): Promise<number> {
  let pd = 0;
  for (let sent = 0; sent < n; sent += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, n - sent) }, () => chat(gateway, model)),
    );
    for (const res of batch) {
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`a request for ${model} answered ${res.status}`);
      if (fleet.roleOf(res) === 'decode') pd += 1;
    }
  }
  return pd;
}
