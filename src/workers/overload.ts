/**
 * SMG's worker overload veto: a worker whose engine reports too many waiting requests or too
 * much KV-cache usage is skipped by every policy until its load falls below the thresholds.
 */
import type { GatewayConfig } from '../config/schema.js';
import { meanTokenUsage, sumWaitingReqs, type WorkerLoadSnapshot } from './load-snapshot.js';

/**
 * The KV usage `--worker-overload-protection` vetoes at (an explicit `--worker-overload-token-usage`
 * wins). SMG hard-codes this ceiling for the flag; the same number keeps the veto where an SMG
 * operator expects it, and `--help` prints it from here.
 */
export const OVERLOAD_PROTECTION_TOKEN_USAGE = 0.9;

/** Either threshold, when set, enables the veto. */
export interface OverloadThresholds {
  waitingRequests?: number | undefined;
  tokenUsage?: number | undefined;
}

/** SMG: either explicit threshold enables the veto; `--worker-overload-protection` adds the 0.9 KV ceiling. */
export function overloadThresholdsFrom(
  c: Pick<
    GatewayConfig,
    'workerOverloadWaitingRequests' | 'workerOverloadTokenUsage' | 'workerOverloadProtection'
  >,
): OverloadThresholds {
  return {
    waitingRequests: c.workerOverloadWaitingRequests,
    tokenUsage:
      c.workerOverloadTokenUsage ??
      (c.workerOverloadProtection ? OVERLOAD_PROTECTION_TOKEN_USAGE : undefined),
  };
}

/** Whether any threshold is set, so loads must be polled. */
export function overloadVetoOn(t: OverloadThresholds): boolean {
  return t.waitingRequests !== undefined || t.tokenUsage !== undefined;
}

/** SMG's veto: either signal at or above its threshold (`>=`). */
export function isOverloaded(s: WorkerLoadSnapshot, t: OverloadThresholds): boolean {
  if (t.waitingRequests !== undefined && sumWaitingReqs(s) >= t.waitingRequests) return true;
  if (t.tokenUsage !== undefined && meanTokenUsage(s) >= t.tokenUsage) return true;
  return false;
}
