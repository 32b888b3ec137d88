/**
 * Switchyard-only gauges that say what the fleet *is*, next to SMG's families that say what it
 * does: each worker's type, runtime and model, each decode worker's running window and the prefill
 * slot limit. The live dashboard and the Grafana dashboard read them to draw "claimed / window"
 * and "in flight / limit" from the metrics alone, which is all a `--workers N` primary holds.
 *
 * Their values are read when the registry is collected (a scrape, a dashboard frame), from a
 * source the composition root binds, so no code path has to remember to keep them in step.
 */
import { Gauge, type Registry } from 'prom-client';

/** One registered worker, as the info gauge labels it. */
export interface WorkerInfo {
  readonly worker: string;
  readonly workerType: string;
  readonly runtime: string;
  readonly connectionMode: string;
  readonly model: string;
}

/** Where the gauges read the fleet from at collection time. */
export interface FleetInfoSource {
  workers(): Iterable<WorkerInfo>;
  /** Decode workers whose claims are gated, with their running window. */
  decodeWindows(): Iterable<readonly [worker: string, window: number]>;
  /** The per-worker prefill slot limit, 0 when prefill admission is off. */
  prefillLimit(): number;
}

export class FleetInfoMetrics {
  #source: FleetInfoSource | undefined;

  constructor(registry: Registry) {
    const source = (): FleetInfoSource | undefined => this.#source;
    new Gauge({
      name: 'smg_worker_info',
      help: 'Registered workers (value 1), labelled with their type, runtime, connection mode and model',
      labelNames: ['worker', 'worker_type', 'runtime', 'connection_mode', 'model'],
      registers: [registry],
      collect() {
        this.reset();
        for (const w of source()?.workers() ?? []) {
          this.set(
            {
              worker: w.worker,
              worker_type: w.workerType,
              runtime: w.runtime,
              connection_mode: w.connectionMode,
              model: w.model,
            },
            1,
          );
        }
      },
    });
    new Gauge({
      name: 'smg_pd_admission_window',
      help: 'Running window of each gated decode worker: the rooms its claims are held against',
      labelNames: ['worker'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [worker, window] of source()?.decodeWindows() ?? [])
          this.set({ worker }, window);
      },
    });
    new Gauge({
      name: 'smg_pd_prefill_admission_limit',
      help: 'Prefill admission slots allowed per prefill worker (0 when prefill admission is off)',
      registers: [registry],
      collect() {
        this.set(source()?.prefillLimit() ?? 0);
      },
    });
  }

  /** Called once by the composition root; until then the gauges collect nothing. */
  bind(source: FleetInfoSource): void {
    this.#source = source;
  }
}
