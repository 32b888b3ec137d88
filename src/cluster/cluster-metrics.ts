/**
 * The `--prometheus-port` listener of `launch --workers N`, served by the primary: each scrape
 * asks every listening gateway process for its registry over IPC and answers with the aggregate
 * (prom-client's `AggregatorRegistry.aggregate`, with the per-gauge choices of
 * metric-aggregators.ts), followed by the primary's own families.
 *
 * Not prom-client's `clusterMetrics()`: it asks every connected process, including one still
 * starting that has no registry to send yet, and so fails whole scrapes for five seconds at every
 * restart; and it reads module-global registries in the processes. Here only processes that
 * reported listening are asked, and one that exits mid-scrape is no longer waited for.
 *
 * A restarted process starts its counters from zero. So that the fleet's sums never go backwards
 * (Prometheus would read a drop as a counter reset and count the whole remaining sum as new),
 * the counters and histograms of a process that exits are carried into every later scrape, as
 * of the last scrape it answered. Only the increments since that scrape are lost.
 */
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Registry,
  type PrometheusContentType,
} from 'prom-client';
import { isMonotonic, withAggregators } from './metric-aggregators.js';
import { controlToPrimary, type MetricsJson, type MetricsRequest } from './messages.js';

/** A listening gateway process a scrape asks. */
export interface ScrapeTarget {
  readonly workerId: number;
  readonly slot: number;
  send(msg: MetricsRequest): void;
}

interface Scrape {
  /** Slot by worker id, of the processes yet to answer. */
  readonly waiting: Map<number, number>;
  readonly answers: Map<number, MetricsJson>;
  settle(err?: Error): void;
}

/** A scrape that some process did not answer in time fails: a partial sum would look like a reset. */
const SCRAPE_TIMEOUT_MS = 5_000;

export class ClusterMetrics {
  /** The primary's own families. */
  readonly registry = new Registry();
  readonly #restarts = new Counter({
    name: 'smg_cluster_process_restarts_total',
    help: 'Gateway processes of launch --workers restarted after an unexpected exit',
    registers: [this.registry],
  });
  readonly #timeoutMs: number;
  #nextId = 1;
  readonly #scrapes = new Map<number, Scrape>();
  /** Each live process's latest answer, by worker id: what is carried when it exits. */
  readonly #last = new Map<number, MetricsJson>();
  #retired: Promise<MetricsJson> = Promise.resolve([]);

  constructor(opts: {
    /** Gateway processes listening now. */
    processes: () => number;
    /** Admission units the primary holds, by pool key. */
    admissionHeld?: () => ReadonlyMap<string, number>;
    timeoutMs?: number;
  }) {
    this.#timeoutMs = opts.timeoutMs ?? SCRAPE_TIMEOUT_MS;
    new Gauge({
      name: 'smg_cluster_processes',
      help: 'Gateway processes of launch --workers serving (listening)',
      registers: [this.registry],
      collect() {
        this.set(opts.processes());
      },
    });
    new Gauge({
      name: 'smg_cluster_admission_held_units',
      help: 'Decode rooms and prefill slots held at the primary of launch --workers, by pool key',
      labelNames: ['key'],
      registers: [this.registry],
      collect() {
        // Rebuilt at each scrape: a key nobody holds any more leaves the exposition.
        this.reset();
        for (const [key, units] of opts.admissionHeld?.() ?? []) this.set({ key }, units);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  restarted(): void {
    this.#restarts.inc();
  }

  /** The text exposition of the fleet: the processes' aggregate, then the primary's own. */
  async render(targets: readonly ScrapeTarget[]): Promise<string> {
    const answers = await this.#collect(targets);
    const retired = await this.#retired;
    const fleet = AggregatorRegistry.aggregate<PrometheusContentType>(
      [...answers.values(), retired].map(withAggregators),
    );
    return Registry.merge([fleet, perProcessRequests(answers), this.registry]).metrics();
  }

  /** Handles a metrics answer; returns false when the message is not one. */
  onMessage(workerId: number, msg: unknown): boolean {
    const answer = controlToPrimary(msg);
    if (answer?.t !== 'sy-metrics-res') return false;
    const scrape = this.#scrapes.get(answer.id);
    const slot = scrape?.waiting.get(workerId);
    if (scrape === undefined || slot === undefined) return true;
    if (answer.metrics === undefined) {
      scrape.settle(new Error(`gateway process ${slot}: ${answer.error ?? 'no metrics'}`));
      return true;
    }
    this.#last.set(workerId, answer.metrics);
    scrape.answers.set(slot, answer.metrics);
    scrape.waiting.delete(workerId);
    if (scrape.waiting.size === 0) scrape.settle();
    return true;
  }

  /** The process exited: scrapes stop waiting for it, and its counters are carried from now on. */
  retire(workerId: number): void {
    for (const scrape of this.#scrapes.values()) {
      if (scrape.waiting.delete(workerId) && scrape.waiting.size === 0) scrape.settle();
    }
    const last = this.#last.get(workerId);
    this.#last.delete(workerId);
    if (last === undefined) return;
    const monotonic = last.filter((m) => isMonotonic(m.type));
    this.#retired = this.#retired.then((carried) =>
      AggregatorRegistry.aggregate([carried, monotonic].map(withAggregators))
        .getMetricsAsJSON()
        .catch(() => carried),
    );
  }

  #collect(targets: readonly ScrapeTarget[]): Promise<Map<number, MetricsJson>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const waiting = new Map(targets.map((t) => [t.workerId, t.slot]));
      const answers = new Map<number, MetricsJson>();
      const timer = setTimeout(() => {
        const slots = [...waiting.values()].join(', ');
        scrape.settle(
          new Error(`gateway processes ${slots} did not answer in ${this.#timeoutMs} ms`),
        );
      }, this.#timeoutMs);
      const scrape: Scrape = {
        waiting,
        answers,
        settle: (err) => {
          clearTimeout(timer);
          this.#scrapes.delete(id);
          if (err) reject(err);
          else resolve(answers);
        },
      };
      this.#scrapes.set(id, scrape);
      for (const target of targets) target.send({ t: 'sy-metrics-req', id });
      if (waiting.size === 0) scrape.settle();
    });
  }
}

/**
 * Requests each process received, by slot: shows how evenly the primary's round-robin spreads
 * connections (a long keep-alive client stays with one process). Resets when a process restarts.
 */
function perProcessRequests(answers: ReadonlyMap<number, MetricsJson>): Registry {
  const registry = new Registry();
  const requests = new Counter({
    name: 'smg_cluster_process_http_requests_total',
    help: 'HTTP requests received by each gateway process of launch --workers, by slot',
    labelNames: ['process'],
    registers: [registry],
  });
  for (const [slot, metrics] of answers) {
    const family = metrics.find((m) => m.name === 'smg_http_requests_total');
    const total = family?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
    requests.inc({ process: String(slot) }, total);
  }
  return registry;
}
