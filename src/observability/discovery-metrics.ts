/**
 * SMG's service-discovery families (observability/metrics.rs, "Layer 4: Discovery metrics"),
 * with its names, labels and label values. They live on the gateway's registry
 * (`GatewayMetrics.registry`) but are registered only when discovery runs, as SMG's series
 * appear only once discovery records them.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DURATION_BUCKETS } from './metrics.js';

/** SMG's `source` label values; Switchyard discovers from Kubernetes only. */
export type DiscoverySource = 'kubernetes';
/** `result` of a registration: submitted, or refused before it could start. */
export type RegistrationResult = 'success' | 'failed';
/** `reason` of a deregistration: the reconciler found the pod gone, terminating or replaced. */
export type DeregistrationReason = 'reconciled';

export class DiscoveryMetrics {
  readonly registrations: Counter<'source' | 'result'>;
  readonly deregistrations: Counter<'source' | 'reason'>;
  readonly syncDuration: Histogram<'source'>;
  readonly workersDiscovered: Gauge<'source'>;

  constructor(registry: Registry) {
    this.registrations = new Counter({
      name: 'smg_discovery_registrations_total',
      help: 'Worker registration attempts by source and result',
      labelNames: ['source', 'result'],
      registers: [registry],
    });
    this.deregistrations = new Counter({
      name: 'smg_discovery_deregistrations_total',
      help: 'Worker deregistration events by source and reason',
      labelNames: ['source', 'reason'],
      registers: [registry],
    });
    // SMG gives every `*duration_seconds` histogram the same buckets.
    this.syncDuration = new Histogram({
      name: 'smg_discovery_sync_duration_seconds',
      help: 'Discovery sync duration by source',
      labelNames: ['source'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.workersDiscovered = new Gauge({
      name: 'smg_discovery_workers_discovered',
      help: 'Workers known via discovery by source',
      labelNames: ['source'],
      registers: [registry],
    });
  }
}
