/**
 * Where each admission controller's hooks meet their Prometheus families. The controllers know
 * nothing of metrics (they call plain hooks); this file is the one place that says which hook
 * moves which SMG-compatible series.
 */
import type { ConcurrencyLimiterHooks } from '../admission/concurrency-limiter.js';
import type { DecodeAdmissionHooks } from '../admission/decode-admission.js';
import type { PrefillAdmissionHooks } from '../admission/prefill-admission.js';
import type { GatewayMetrics } from '../observability/metrics.js';

export interface AdmissionHooks {
  prefill: PrefillAdmissionHooks;
  decode: DecodeAdmissionHooks;
  limiter: ConcurrencyLimiterHooks;
}

export function admissionHooks(metrics: GatewayMetrics): AdmissionHooks {
  return {
    prefill: {
      onAdmitted: (waitSecs) => metrics.pdPrefillAdmissionWait.observe(waitSecs),
      onReject: (reason) => metrics.pdPrefillAdmissionRejections.inc({ reason }),
      onInflightChange: (worker, n) => metrics.pdPrefillAdmissionInflight.set({ worker }, n),
      onWorkerGone: (worker) => metrics.pdPrefillAdmissionInflight.remove({ worker }),
      onQueuedChange: (n) => metrics.pdPrefillAdmissionQueued.set(n),
    },
    decode: {
      onWait: () => metrics.pdAdmissionWaits.inc(),
      onShed: (_worker, reason) => metrics.pdAdmissionSheds.inc({ reason }),
      onClaimedChange: (worker, claimed) =>
        metrics.pdAdmissionClaimedRooms.set({ worker }, claimed),
      onWorkerGone: (worker) => metrics.pdAdmissionClaimedRooms.remove({ worker }),
    },
    limiter: {
      onAdmit: (result) => metrics.rateLimit.inc({ result }),
      onReject: (reason) => {
        metrics.rateLimit.inc({ result: 'rejected' });
        metrics.admissionRejected.inc({ reason });
      },
      onInflightChange: (n) => metrics.admissionInflight.set(n),
      onQueuedChange: (n) => metrics.admissionQueueDepth.set(n),
    },
  };
}
