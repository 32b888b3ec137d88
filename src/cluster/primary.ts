/**
 * The primary process of `switchyard launch --workers N` (N > 1). It serves no client traffic
 * itself: node:cluster's round-robin scheduling has it accept connections on the shared ports
 * and hand each to the next gateway process. It holds the admission state every process claims
 * from (AdmissionPrimary), serves the aggregated `--prometheus-port`, keeps the N processes
 * running (Supervisor), and on SIGTERM/SIGINT drains them and exits when they all have.
 */
import cluster, { type Worker } from 'node:cluster';
import { AdmissionPrimary } from '../admission/store/admission-primary.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import { createMetricsServer, listen, reachableUrl } from '../server/gateway.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { dashboardFromConfig } from '../dashboard/dashboard.js';
import { systemClock } from '@switchyard/kit';
import { CLUSTER_METRICS_URL_ENV } from './messages.js';
import { StartupFailed, Supervisor } from './supervisor.js';

export interface ClusterPrimaryOptions {
  logger: Logger;
  /** Resolves on the first SIGTERM/SIGINT (installed by the caller before anything starts). */
  stopSignal: Promise<NodeJS.Signals>;
}

/** How long after the grace period a draining process is killed. */
const HARD_STOP_MARGIN_MS = 5_000;

/** A process's channel; sends racing its exit are dropped (its exit releases what it held). */
function portOf(worker: Worker): { send(msg: object): void } {
  return {
    send: (msg: object) => {
      if (worker.isConnected()) worker.send(msg, () => undefined);
    },
  };
}

/** The hard stop (a second signal): kills every gateway process at once. */
export function killClusterProcesses(): void {
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
}

/** Runs the primary until the processes have drained after a signal; returns the exit code. */
export async function runClusterPrimary(
  config: GatewayConfig,
  opts: ClusterPrimaryOptions,
): Promise<number> {
  const { logger } = opts;
  const admission = new AdmissionPrimary();
  const metrics = new ClusterMetrics({
    processes: () => supervisor.live().length,
    admissionHeld: () => admission.held(),
  });
  const render = (): Promise<string> =>
    metrics.render(
      supervisor
        .live()
        .map(({ slot, worker }) => ({ slot, workerId: worker.id, ...portOf(worker) })),
    );
  // The dashboard reads the aggregate, as a scrape does: the processes' own objects are elsewhere.
  const dashboard = dashboardFromConfig(config, { render, clock: systemClock, logger });
  const metricsServer = createMetricsServer(
    { render, contentType: metrics.contentType },
    dashboard,
  );
  // Bound before any fork: the processes are told where their metrics are served.
  const metricsAddr = await listen(metricsServer, config.prometheusPort, config.prometheusHost);
  const metricsUrl = `${reachableUrl(metricsAddr)}/metrics`;
  const supervisor: Supervisor = new Supervisor({
    processes: config.workers,
    env: { [CLUSTER_METRICS_URL_ENV]: metricsUrl },
    logger,
    hooks: {
      onFork: (worker) => admission.attach(worker.id, portOf(worker)),
      onMessage: (worker, msg) => {
        if (!admission.handle(worker.id, msg)) metrics.onMessage(worker.id, msg);
      },
      onExit: (worker) => {
        admission.detach(worker.id);
        metrics.retire(worker.id);
      },
      onRestart: () => metrics.restarted(),
    },
  });
  const closeMetrics = (): Promise<void> => {
    dashboard?.close();
    metricsServer.closeAllConnections();
    return new Promise((resolve) => metricsServer.close(() => resolve()));
  };
  const hardStopMs = config.shutdownGracePeriodSecs * 1000 + HARD_STOP_MARGIN_MS;

  // A signal during startup stops the processes that did start, as a signal later would.
  const first = await Promise.race([
    supervisor.start().then(
      () => ({ up: true as const }),
      (err: unknown) => ({ up: false as const, err }),
    ),
    opts.stopSignal.then((signal) => ({ signal })),
  ]);
  if ('up' in first && !first.up) {
    const err = first.err instanceof Error ? first.err : new Error(String(first.err));
    logger.error({ err: err.message }, 'gateway processes failed to start');
    await supervisor.stop('SIGTERM', hardStopMs);
    await closeMetrics();
    return err instanceof StartupFailed ? err.exitCode : 1;
  }
  const dashboardUrl = dashboard && `${reachableUrl(metricsAddr)}${dashboard.path}`;
  if ('up' in first) announce(config, logger, supervisor, { metricsUrl, dashboardUrl });
  const signal = 'signal' in first ? first.signal : await opts.stopSignal;
  logger.info({ signal, gracePeriodSecs: config.shutdownGracePeriodSecs }, 'shutting down');
  const clean = await supervisor.stop(signal, hardStopMs);
  await closeMetrics();
  logger.info('stopped');
  return clean ? 0 : 1;
}

/** The one 'switchyard listening' line, as a single process prints it, plus the processes. */
function announce(
  config: GatewayConfig,
  logger: Logger,
  supervisor: Supervisor,
  urls: { metricsUrl: string; dashboardUrl: string | undefined },
): void {
  const live = supervisor.live();
  const { url, healthCheck } = live[0]?.listening ?? { url: '', healthCheck: undefined };
  // Every process binds the same shared sockets (with port 0 too: the primary binds each once
  // and hands the same one to every process); a mismatch would mean they are not shared.
  const odd = live.filter((p) => p.listening.url !== url);
  if (odd.length > 0)
    logger.warn({ urls: live.map((p) => p.listening.url) }, 'gateway processes listen apart');
  logger.info(
    {
      url,
      metrics: urls.metricsUrl,
      dashboard: urls.dashboardUrl,
      healthCheck,
      policy: config.policy,
      workers: config.workerUrls.length,
      processes: live.length,
      pids: live.map((p) => p.worker.process.pid),
    },
    'switchyard listening',
  );
}
