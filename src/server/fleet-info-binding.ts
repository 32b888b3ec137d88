/**
 * Binds the fleet-info gauges (observability/fleet-info-metrics.ts) to the worker registry and the
 * admission configuration. Here, in the composition layer, because observability may not import
 * workers or admission.
 */
import { windowOf } from '../admission/decode-window.js';
import type { FleetInfoMetrics, WorkerInfo } from '../observability/fleet-info-metrics.js';
import type { WorkerRegistry } from '../workers/registry.js';

export function bindFleetInfo(
  fleetInfo: FleetInfoMetrics,
  registry: WorkerRegistry,
  admission: { decodeGated: boolean; prefillLimit: number },
): void {
  fleetInfo.bind({
    *workers(): Iterable<WorkerInfo> {
      for (const w of registry.all()) {
        yield {
          worker: w.key,
          workerType: w.type,
          runtime: w.runtime,
          connectionMode: w.connectionMode,
          model: registry.modelLabel(w.modelId),
        };
      }
    },
    *decodeWindows() {
      if (!admission.decodeGated) return;
      for (const w of registry.ofType('decode')) {
        const window = windowOf(w);
        if (window !== undefined) yield [w.key, window] as const;
      }
    },
    prefillLimit: () => admission.prefillLimit,
  });
}
