/**
 * The composition root: builds every part of the gateway from a validated config, starts the
 * client listener and the separate Prometheus listener, registers the startup workers, starts
 * Kubernetes discovery, and owns graceful shutdown. Tests start a real gateway through this on
 * port 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/schema.js';
import { sleep, systemClock } from '@switchyard/kit';
import type { WorkerSpec } from '../workers/spec.js';
import { startupWorkerSpecs, untilStartupWorkersServe } from './startup-workers.js';
import { admissionStoreFromConfig } from '../admission/store/from-config.js';
import { createLogger } from '../observability/logger.js';
import { loadRequestTracer } from '../observability/tracing.js';
import { buildComponents, type ComponentOptions, type Components } from './components.js';
import { createGatewayServer, type GatewayServer } from './http-server.js';
import { createProbeServer } from './probe-server.js';
import { dashboardFromConfig, type Dashboard } from '../dashboard/dashboard.js';
import { loadKubeClient } from '../discovery/kubernetes/kube-client.js';
import type { HistoryStore } from '../storage/history-store.js';
import { historyStoreFromConfig } from '../storage/history-store-from-config.js';

export interface GatewayOptions extends ComponentOptions {
  /**
   * The Prometheus listener belongs to someone else, which serves this gateway's metrics at this
   * URL: the cluster primary of `launch --workers N`, which answers with the aggregate of every
   * gateway process (a process of its own would answer for one process, picked at random).
   * The gateway then binds no metrics listener and reports this URL as `metricsUrl`.
   */
  metricsServedAt?: string;
  /**
   * Register the startup workers and wait up to this long for them to serve before binding the
   * client listener. For the processes of `launch --workers N`: the primary hands a process
   * connections as soon as it listens, so a process restarted after a crash would otherwise
   * answer its share of requests with "no workers" while it probes them. Ports given as 0 are
   * guarded as own addresses only once bound.
   */
  listenWhenWorkersServeMs?: number;
}

export interface Gateway {
  /** Base URL clients use, e.g. http://127.0.0.1:30000 */
  readonly url: string;
  readonly metricsUrl: string;
  /** The live dashboard page on the metrics listener; undefined when this process serves none. */
  readonly dashboardUrl: string | undefined;
  /** Base URL of the `--health-check-port` probe listener, when the flag is given. */
  readonly healthCheckUrl: string | undefined;
  /**
   * Every long-lived part (registry, limiter, load monitor, policies...), for tests and
   * embedding; handlers see the `AppContext` subset of it.
   */
  readonly internals: Components;
  /** Graceful: stop accepting, finish in-flight requests up to the grace period, close. */
  shutdown(graceMs?: number): Promise<void>;
  /** Immediate close (tests). */
  close(): Promise<void>;
}

/** Binds the server; resolves with the bound address (the real port when asked for 0). */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** A URL a client on this host can use for the address (a wildcard bind is reached on loopback). */
export function reachableUrl(addr: AddressInfo): string {
  const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}

/** What the Prometheus listener serves: a gateway's metrics, or the cluster primary's aggregate. */
export interface MetricsSource {
  render(): Promise<string>;
  readonly contentType: string;
}

/** The `--prometheus-port` listener: GET /metrics, and the live dashboard when one is given. */
export function createMetricsServer(metrics: MetricsSource, dashboard?: Dashboard): Server {
  return createServer((req, res) => {
    if (dashboard?.handle(req, res)) return;
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
      metrics.render().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
}

/** How long shutdown waits for the spans of requests it cut before flushing them. */
const SPAN_SETTLE_MS = 1000;

export async function startGateway(
  config: GatewayConfig,
  opts: GatewayOptions = {},
): Promise<Gateway> {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, json: config.logJson });
  const clock = opts.clock ?? systemClock;
  const admissionStore =
    opts.admissionStore ?? (await admissionStoreFromConfig(config, { logger, clock }));
  // Loaded only when asked for: without --enable-trace the OpenTelemetry SDK is never imported.
  const tracer = config.enableTrace
    ? await loadRequestTracer({ endpoint: config.otlpTracesEndpoint, logger })
    : undefined;
  let internals: Components;
  let history: HistoryStore | undefined;
  try {
    history = opts.history ?? (await historyStoreFromConfig(config, { logger }));
    // Imported only when discovery runs (it takes most of a second to load).
    const kubeClient =
      opts.kube?.client ?? (config.serviceDiscovery ? await loadKubeClient() : undefined);
    internals = buildComponents(config, {
      ...opts,
      logger,
      clock,
      admissionStore,
      tracer,
      history,
      kube: { ...opts.kube, client: kubeClient },
    });
  } catch (err) {
    // A Redis store reconnects forever: a gateway that never started must not keep it open.
    await Promise.all([admissionStore.close(), tracer?.shutdown(), history?.close()]);
    throw err;
  }
  const { metrics, workers, pools, health, loadMonitor, limiter, policies, targets } = internals;

  const front: GatewayServer = createGatewayServer(internals);
  let metricsServer: Server | undefined;
  let dashboard: Dashboard | undefined;
  let probeServer: Server | undefined;
  let probeAddr: AddressInfo | undefined;
  let closed: Promise<void> | undefined;
  const teardown = async (graceMs: number): Promise<void> => {
    internals.draining = true;
    // First, so no new registration starts while the others stop.
    await internals.discovery?.stop().catch((err: unknown) => {
      logger.warn({ err }, 'service discovery did not stop cleanly');
    });
    workers.close();
    health.stopAll();
    loadMonitor?.stop();
    limiter?.close();
    internals.prefillAdmission?.close();
    internals.decodeAdmission?.close();
    policies.close();
    front.server.close();
    front.server.closeIdleConnections();
    if (front.inflight() > 0) {
      logger.info({ inflight: front.inflight(), graceMs }, 'draining in-flight requests');
      const grace = new AbortController();
      // Wall time even when the parts run on an injected clock: an operator's grace period, and
      // a test gateway on a manual clock can always be closed.
      const wait = sleep(graceMs, grace.signal, systemClock).catch(() => undefined);
      await Promise.race([front.idle(), wait]);
      grace.abort();
    }
    front.server.closeAllConnections();
    // After the drain, as the HTTP pools: in-flight gRPC streams finish first.
    internals.engineClients.closeAll();
    // Stops tokenizer loads still retrying: their timers would keep the process alive.
    internals.tokenizers.close?.();
    internals.tokenizerLoads.close();
    dashboard?.close();
    metricsServer?.closeAllConnections();
    // Closed only now: probes kept answering (readiness 503 draining) through the drain.
    probeServer?.closeAllConnections();
    await Promise.all([
      new Promise<void>((resolve) =>
        metricsServer ? metricsServer.close(() => resolve()) : resolve(),
      ),
      new Promise<void>((resolve) =>
        probeServer ? probeServer.close(() => resolve()) : resolve(),
      ),
      pools.closeAll(),
      internals.workerDispatcher.destroy().catch(() => undefined),
      // Last: every request has ended and given its claims back, and stored what it stores.
      admissionStore.close(),
      internals.history.close().catch((err: unknown) => {
        logger.warn({ err }, 'history store did not close cleanly');
      }),
    ]);
    if (tracer) {
      // Requests cut when the grace period ran out end their spans in their close handlers, a
      // few turns after their sockets were destroyed; a span ended after the exporter's shutdown
      // would be dropped, so wait for them (briefly) before flushing.
      const cut = new AbortController();
      const wait = sleep(SPAN_SETTLE_MS, cut.signal, systemClock).catch(() => undefined);
      await Promise.race([front.idle(), wait]);
      cut.abort();
      await tracer.shutdown();
    }
  };

  const register = async (): Promise<WorkerSpec[]> => {
    // SMG queues the startup tokenizer before the startup workers register.
    internals.tokenizerLoads.start();
    let accepted: WorkerSpec[];
    try {
      accepted = await startupWorkerSpecs(config, workers, logger);
    } catch (err) {
      await (closed ??= teardown(0));
      throw err;
    }
    loadMonitor?.start();
    for (const spec of accepted) workers.add(spec);
    return accepted;
  };
  if (opts.metricsServedAt !== undefined) {
    const port = Number(new URL(opts.metricsServedAt).port);
    targets.addOwnListener({ name: 'metrics', host: config.prometheusHost, port });
  }
  const waitMs = opts.listenWhenWorkersServeMs;
  if (waitMs !== undefined) {
    // Fixed ports are known before binding; a startup worker at one of them is refused as usual.
    if (config.port !== 0)
      targets.addOwnListener({ name: 'listen', host: config.host, port: config.port });
    if (config.healthCheckPort)
      targets.addOwnListener({
        name: 'health-check',
        host: config.host,
        port: config.healthCheckPort,
      });
    const accepted = await register();
    if (!(await untilStartupWorkersServe(internals.registry, accepted, waitMs, clock)))
      logger.warn({ waitMs }, 'listening before every startup worker serves');
  }

  const addr = await listen(front.server, config.port, config.host).catch(async (err: unknown) => {
    await (closed ??= teardown(0));
    throw err;
  });
  // From here on a registration of the gateway's own address is refused (ports as bound: 0 is common).
  targets.addOwnListener({ name: 'listen', host: config.host, port: addr.port });
  let metricsUrl: string;
  let dashboardUrl: string | undefined;
  if (opts.metricsServedAt !== undefined) {
    metricsUrl = opts.metricsServedAt;
  } else {
    dashboard = dashboardFromConfig(config, { render: () => metrics.render(), clock, logger });
    metricsServer = createMetricsServer(metrics, dashboard);
    let metricsAddr: AddressInfo;
    try {
      metricsAddr = await listen(metricsServer, config.prometheusPort, config.prometheusHost);
    } catch (err) {
      await (closed ??= teardown(0));
      throw err;
    }
    metricsUrl = `${reachableUrl(metricsAddr)}/metrics`;
    if (dashboard) dashboardUrl = `${reachableUrl(metricsAddr)}${dashboard.path}`;
    targets.addOwnListener({
      name: 'metrics',
      host: config.prometheusHost,
      port: metricsAddr.port,
    });
  }
  // SMG binds the probe listener on --host, next to the main port.
  if (config.healthCheckPort !== undefined) {
    probeServer = createProbeServer(internals);
    try {
      probeAddr = await listen(probeServer, config.healthCheckPort, config.host);
    } catch (err) {
      await (closed ??= teardown(0));
      throw err;
    }
    targets.addOwnListener({ name: 'health-check', host: config.host, port: probeAddr.port });
  }

  if (waitMs === undefined) await register();
  // After the listeners are bound: a pod at the gateway's own address is refused like any worker.
  internals.discovery?.start();

  return {
    url: reachableUrl(addr),
    metricsUrl,
    dashboardUrl,
    healthCheckUrl: probeAddr && reachableUrl(probeAddr),
    internals,
    shutdown: (graceMs = config.shutdownGracePeriodSecs * 1000) => (closed ??= teardown(graceMs)),
    close: () => (closed ??= teardown(0)),
  };
}
