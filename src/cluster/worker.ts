/**
 * One gateway process of `switchyard launch --workers N`: the whole gateway, as a single-process
 * launch runs it, except that it binds no Prometheus listener (the primary serves the aggregate
 * and asks this process for its registry over IPC), claims admission units from the primary
 * through a ClusterStore (unless `--admission-store` names a Redis), and reports where it
 * listens instead of printing the 'switchyard listening' line.
 */
import cluster from 'node:cluster';
import { CLUSTER_SLOT_ENV } from '../admission/store/cluster-store.js';
import type { GatewayConfig } from '../config/schema.js';
import { createLogger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { startGateway } from '../server/gateway.js';
import {
  CLUSTER_METRICS_URL_ENV,
  metricsRequest,
  type ListeningMessage,
  type MetricsAnswer,
} from './messages.js';

/** The longest a process waits for its startup workers before it listens anyway. */
const LISTEN_WAIT_CAP_SECS = 10;

/** True in a process forked by the primary of `launch --workers N`. */
export function isClusterGatewayProcess(): boolean {
  return cluster.isWorker && process.env[CLUSTER_SLOT_ENV] !== undefined;
}

function sendToPrimary(msg: ListeningMessage | MetricsAnswer): void {
  // The callback swallows ERR_IPC_CHANNEL_CLOSED when the primary is already gone.
  if (process.connected) process.send?.(msg, undefined, undefined, () => undefined);
}

/**
 * Resolves on the first SIGTERM/SIGINT and ignores the later ones. A terminal's Ctrl-C reaches
 * every process of the group and the primary forwards it too: the second copy must not cut the
 * drain short. The hard stop is the primary's (it kills processes still draining).
 */
function firstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.on('SIGTERM', resolve);
    process.on('SIGINT', resolve);
  });
}

/** Answers the primary's scrapes with this process's registry. Returns the unsubscribe. */
function serveMetrics(metrics: GatewayMetrics): () => void {
  const onMessage = (msg: unknown): void => {
    const request = metricsRequest(msg);
    if (request === undefined) return;
    metrics.registry.getMetricsAsJSON().then(
      (json) => sendToPrimary({ t: 'sy-metrics-res', id: request.id, metrics: json }),
      (err: unknown) => sendToPrimary({ t: 'sy-metrics-res', id: request.id, error: String(err) }),
    );
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

/** Runs this gateway process until the primary (or a signal) asks it to drain. */
export async function runClusterWorker(config: GatewayConfig): Promise<number> {
  const slot = Number(process.env[CLUSTER_SLOT_ENV]);
  // Every process logs to the same stderr: each line says which process wrote it.
  const logger = createLogger({ level: config.logLevel, json: config.logJson }).child({
    proc: slot,
  });
  const metricsServedAt = process.env[CLUSTER_METRICS_URL_ENV];
  if (metricsServedAt === undefined) throw new Error(`${CLUSTER_METRICS_URL_ENV} is not set`);
  const stop = firstSignal();
  const gateway = await startGateway(config, {
    logger,
    metricsServedAt,
    // The primary hands this process connections once it listens: it listens once its startup
    // workers serve (bounded), so a process restarted after a crash does not answer its share
    // of requests with "no workers" while it probes them.
    listenWhenWorkersServeMs:
      Math.min(config.workerStartupTimeoutSecs, LISTEN_WAIT_CAP_SECS) * 1000,
  });
  const unserve = serveMetrics(gateway.internals.metrics);
  const listening: ListeningMessage =
    gateway.healthCheckUrl === undefined
      ? { t: 'sy-listening', url: gateway.url }
      : { t: 'sy-listening', url: gateway.url, healthCheck: gateway.healthCheckUrl };
  sendToPrimary(listening);
  const signal = await stop;
  logger.debug({ signal }, 'gateway process draining');
  await gateway.shutdown();
  unserve();
  return 0;
}
