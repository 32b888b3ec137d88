/** `switchyard launch` (alias `start`): run the gateway until SIGTERM/SIGINT, then drain. */
import { formatHelp } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../config/gateway-flags.js';
import { resolveLaunchFlags } from '../config/launch-flags.js';
import { startGateway, type Gateway } from '../server/gateway.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { killClusterProcesses, runClusterPrimary } from '../cluster/primary.js';
import { isClusterGatewayProcess, runClusterWorker } from '../cluster/worker.js';

export const LAUNCH_HELP =
  formatHelp(
    'switchyard launch: the SMG-compatible inference gateway',
    'switchyard [launch] [options]   (alias: start)',
    GATEWAY_FLAGS.filter((flag) => flag.status !== 'unsupported'),
  ) +
  '\nSMG flags of subsystems Switchyard does not have (mesh, EPD, storage, TLS, JWT, ...)\n' +
  'exit 2 naming the subsystem. Every SMG flag and its status: docs/compat.md\n';

/** Resolves on the first SIGTERM/SIGINT; a second signal exits at once. */
export function untilSignal(onSecond: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let seen = false;
    const handler = (signal: NodeJS.Signals): void => {
      if (seen) onSecond();
      seen = true;
      resolve(signal);
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}

function logNotices(
  logger: Logger,
  noEffect: readonly string[],
  warnings: readonly string[],
): void {
  if (noEffect.length > 0) {
    logger.warn(
      { flags: noEffect },
      `SMG flags accepted with no effect in Switchyard (see docs/compat.md): ${noEffect.join(', ')}`,
    );
  }
  for (const warning of warnings) logger.warn(warning);
}

export async function runLaunch(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(LAUNCH_HELP);
    return 0;
  }
  const { config, noEffect, warnings } = resolveLaunchFlags(argv);
  // A process forked by the primary below: the primary printed the notices and the line.
  if (isClusterGatewayProcess()) return runClusterWorker(config);
  if (config.workers > 1) {
    const logger = createLogger({ level: config.logLevel, json: config.logJson });
    logNotices(logger, noEffect, warnings);
    const stopSignal = untilSignal(() => {
      killClusterProcesses();
      process.exit(1);
    });
    return runClusterPrimary(config, { logger, stopSignal });
  }
  const gateway: Gateway = await startGateway(config);
  const { logger } = gateway.internals;
  logNotices(logger, noEffect, warnings);
  // Listen for signals before announcing readiness: a supervisor that sends SIGTERM as soon as it
  // reads the line must reach the drain, not Node's default of dying at once.
  const stopSignal = untilSignal(() => process.exit(1));
  logger.info(
    {
      url: gateway.url,
      metrics: gateway.metricsUrl,
      dashboard: gateway.dashboardUrl,
      healthCheck: gateway.healthCheckUrl,
      policy: config.policy,
      workers: config.workerUrls.length,
    },
    'switchyard listening',
  );
  const signal = await stopSignal;
  logger.info({ signal, gracePeriodSecs: config.shutdownGracePeriodSecs }, 'shutting down');
  await gateway.shutdown();
  logger.info('stopped');
  return 0;
}
