/**
 * Which admission store a gateway process uses: Redis when `--admission-store` names one (replicas
 * on any host, and then the primary of `launch --workers N` holds nothing); else, in a process
 * forked by `launch --workers N`, the cluster primary; else this process's memory.
 */
import type { Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../../config/schema.js';
import type { Logger } from '../../observability/logger.js';
import { clusterStoreIfWorker } from './cluster-store.js';
import { InProcessStore } from './in-process-store.js';
import type { AdmissionStore } from './types.js';

export interface StoreDeps {
  logger: Logger;
  clock: Clock;
}

export async function admissionStoreFromConfig(
  config: GatewayConfig,
  deps: StoreDeps,
): Promise<AdmissionStore> {
  if (config.admissionStore !== undefined) {
    // Loaded only here: ioredis takes a tenth of a second to import, for every gateway process.
    const { RedisStore } = await import('./redis-store.js');
    const store = await RedisStore.open({
      url: config.admissionStore,
      leaseMs: config.admissionLeaseSecs * 1000,
      replicas: config.admissionReplicas,
      logger: deps.logger,
      clock: deps.clock,
    });
    deps.logger.info(
      { store: 'redis', up: store.up, leaseSecs: config.admissionLeaseSecs },
      'admission claims are shared through Redis',
    );
    return store;
  }
  return clusterStoreIfWorker() ?? new InProcessStore();
}
