/**
 * The admission store's own series (Switchyard-only): whether the shared state is reachable, and
 * how often a store fell back to local limits. Read when scraped, so nothing is pushed per claim.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { AdmissionStore } from '../admission/store/types.js';

/** Registers the store's series on `registry`; returns the unsubscribe of the fallback counter. */
export function registerAdmissionStoreMetrics(
  registry: Registry,
  store: AdmissionStore,
): () => void {
  new Gauge({
    name: 'smg_admission_store_up',
    help: 'Whether admission claims are counted in the shared store (1) or in local fallback limits (0)',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      this.set({ store: store.kind }, store.up ? 1 : 0);
    },
  });
  const fallbacks = new Counter({
    name: 'smg_admission_store_fallbacks_total',
    help: 'Times the shared admission store became unreachable and local fallback limits took over',
    registers: [registry],
  });
  return store.onUpChange((up) => {
    if (!up) fallbacks.inc();
  });
}
