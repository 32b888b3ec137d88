/**
 * The control messages of `launch --workers N` between the cluster primary and its gateway
 * processes (the admission messages are admission/store/cluster-protocol.ts). JSON over IPC,
 * with a `t` discriminant prefixed `sy-`; anything else on the channel is someone else's.
 */
import type { Registry } from 'prom-client';

/** One registry's families as prom-client's `getMetricsAsJSON` gives them. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** Process to primary: the gateway is serving; where. */
export interface ListeningMessage {
  readonly t: 'sy-listening';
  readonly url: string;
  readonly healthCheck?: string;
}

/** Primary to process: send your metrics for scrape `id`. */
export interface MetricsRequest {
  readonly t: 'sy-metrics-req';
  readonly id: number;
}

/** Process to primary: the metrics for scrape `id`, or why there are none. */
export interface MetricsAnswer {
  readonly t: 'sy-metrics-res';
  readonly id: number;
  readonly metrics?: MetricsJson;
  readonly error?: string;
}

type Fields = Readonly<Record<string, unknown>>;

function fields(msg: unknown): Fields | undefined {
  return typeof msg === 'object' && msg !== null ? (msg as Fields) : undefined;
}

/** A control message from a gateway process, or undefined when it is not one. */
export function controlToPrimary(msg: unknown): ListeningMessage | MetricsAnswer | undefined {
  const m = fields(msg);
  if (m?.t === 'sy-listening' && typeof m.url === 'string') {
    const healthCheck = typeof m.healthCheck === 'string' ? m.healthCheck : undefined;
    return healthCheck === undefined
      ? { t: 'sy-listening', url: m.url }
      : { t: 'sy-listening', url: m.url, healthCheck };
  }
  if (m?.t === 'sy-metrics-res' && typeof m.id === 'number') {
    if (Array.isArray(m.metrics))
      return { t: 'sy-metrics-res', id: m.id, metrics: m.metrics as MetricsJson };
    const error = typeof m.error === 'string' ? m.error : 'no metrics';
    return { t: 'sy-metrics-res', id: m.id, error };
  }
  return undefined;
}

/** A metrics request from the primary, or undefined when the message is not one. */
export function metricsRequest(msg: unknown): MetricsRequest | undefined {
  const m = fields(msg);
  return m?.t === 'sy-metrics-req' && typeof m.id === 'number'
    ? { t: 'sy-metrics-req', id: m.id }
    : undefined;
}

/** Set by the primary in each process it forks: the URL where it serves the aggregated metrics. */
export const CLUSTER_METRICS_URL_ENV = 'SWITCHYARD_CLUSTER_METRICS_URL';
