/** What every HTTP handler may use: the gateway's parts, wired once at startup. */
import type { Components } from './components.js';

/**
 * The handler-facing subset of the gateway's parts (`Gateway.internals`): the same objects, so
 * `draining` set on the internals at shutdown is what readiness reads.
 */
export type AppContext = Readonly<
  Pick<
    Components,
    | 'config'
    | 'registry'
    | 'engineClients'
    | 'tokenizers'
    | 'tokenizerCatalog'
    | 'tokenizerLoads'
    | 'workers'
    | 'router'
    | 'pools'
    | 'workerDispatcher'
    | 'metrics'
    | 'logger'
    | 'clock'
    | 'aliases'
    | 'auth'
    | 'hop'
    | 'limiter'
    | 'bodyBudget'
    | 'tracer'
    | 'history'
  >
> &
  Pick<Components, 'draining'>;
