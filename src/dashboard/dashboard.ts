/**
 * The live dashboard as the metrics listener mounts it: the feed over this process's metrics
 * text (a gateway's own, or a `--workers N` primary's aggregate), the page's files and its routes.
 */
import type { Clock } from '@switchyard/kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import { loadDashboardAssets, type DashboardAssets } from './assets.js';
import { dashboardRoutes } from './dashboard-routes.js';
import { DashboardFeed } from './feed.js';

export interface Dashboard {
  /** The normalised path the page is served at. */
  readonly path: string;
  /** Answers the request when it is one of the dashboard's; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Stops sampling; open event streams end when their connections are closed. */
  close(): void;
}

export interface DashboardDeps {
  render: () => Promise<string>;
  clock: Clock;
  logger: Logger;
  /** The page's files; read from dist/dashboard-assets/ when not given. */
  assets?: DashboardAssets | undefined;
}

/** The dashboard, unless `--disable-dashboard`. */
export function dashboardFromConfig(
  config: Pick<GatewayConfig, 'dashboardPath' | 'disableDashboard' | 'apiKey'>,
  deps: DashboardDeps,
): Dashboard | undefined {
  if (config.disableDashboard) return undefined;
  const assets = deps.assets ?? loadDashboardAssets();
  if (!assets) {
    deps.logger.warn(
      { path: config.dashboardPath },
      'dashboard page not built (npm run build); its route answers 503',
    );
  }
  let failures = 0;
  const feed = new DashboardFeed({
    render: deps.render,
    clock: deps.clock,
    // Once, then every 60th: a primary whose processes stop answering would log every second.
    onError: (err) => {
      if (failures++ % 60 === 0) deps.logger.warn({ err }, 'dashboard could not read the metrics');
    },
  });
  const handle = dashboardRoutes({
    path: config.dashboardPath,
    feed,
    assets,
    apiKey: config.apiKey,
  });
  return { path: config.dashboardPath, handle, close: () => feed.close() };
}
