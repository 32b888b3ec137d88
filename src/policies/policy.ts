/**
 * The routing-policy seam. A policy is handed the candidate set of the request (candidate-set.ts:
 * every worker of the right type and model in registry order, so `x-smg-target-worker` indices
 * are stable, and the `available` and `eligible` subsets the registry keeps current), and returns
 * one worker or none. It chooses among the subset its predicate names, without scanning `all`,
 * so a selection costs the same on four workers as on a thousand. It must not await: the router
 * takes the load lease in the same synchronous step.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CandidateSet } from '../workers/candidate-set.js';
import type { Worker } from '../workers/worker.js';
import type { PolicyName } from './names.js';

/** Which leg a selection is for: regular routing, or one side of a PD pair. */
export type Leg = 'single' | 'prefill' | 'decode';

export interface SelectInfo {
  readonly model: string;
  readonly headers: IncomingHttpHeaders;
  readonly leg: Leg;
  /**
   * The text the engine will see as its prompt prefix, for prefix-affinity policies: the whole
   * conversation for chat (roles and contents in order), the prompt for completions, `text` for
   * generate. Computed lazily on first read; '' when the request has none.
   */
  readonly text: string;
  /** Session key: `x-smg-routing-key` (or the configured headers); non-empty, at most 128 bytes, else undefined. */
  readonly routingKey: string | undefined;
  /** Parsed `x-smg-target-worker` index into the candidate list; `-1` (matches none) when malformed. */
  readonly targetWorker: number | undefined;
  /** `x-smg-routing-tokens`, token ids standing in for text. */
  readonly tokens: readonly number[] | undefined;
  /** Body `rid`, used by `--routing-key-override`. */
  readonly rid: string | undefined;
}

export interface Policy {
  readonly name: PolicyName;
  /**
   * `available`: SMG `get_healthy_worker_indices` (ready, circuit allows, not overloaded), what
   * most policies choose among; `eligible`: ready and not overloaded, the hash policies' choice.
   */
  select(candidates: CandidateSet, info: SelectInfo): Worker | undefined;
  /** Forget anything held about a worker that left the registry (tree tenants, sticky keys). */
  onWorkerRemoved?(worker: Worker): void;
  /** Stop background work (eviction sweeps). */
  close?(): void;
}
