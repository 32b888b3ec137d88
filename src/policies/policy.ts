/**
 * The routing-policy seam. A policy is handed the available candidates (already filtered to
 * routable workers) and the request's selection info, and returns one worker or none. It must
 * not await: selection and the lease that follows run in one synchronous step.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Worker } from '../workers/worker.js';
import type { PolicyName } from './names.js';

/** Which leg a selection is for: regular routing, or one side of a PD pair. */
export type Leg = 'single' | 'prefill' | 'decode';

export interface SelectInfo {
  readonly model: string;
  readonly headers: IncomingHttpHeaders;
  readonly leg: Leg;
}

export interface Policy {
  readonly name: PolicyName;
  select(workers: readonly Worker[], info: SelectInfo): Worker | undefined;
  /** Forget anything held about a worker that left the registry. */
  onWorkerRemoved?(worker: Worker): void;
}
