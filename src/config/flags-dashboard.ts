/**
 * The live dashboard page (Switchyard-only): where the metrics listener serves it, or that it is
 * not served at all.
 */
import type { CoreFlag } from './core-flag.js';

export const DASHBOARD_FLAGS: readonly CoreFlag[] = [
  {
    name: 'dashboard-path',
    key: 'dashboardPath',
    kind: 'string',
    default: '/dashboard',
    metavar: '<path>',
    help: 'Path of the live dashboard page on the --prometheus-port listener; behind --api-key when one is set (Switchyard-only)',
    status: 'switchyard-only',
  },
  {
    name: 'disable-dashboard',
    key: 'disableDashboard',
    kind: 'bool',
    default: false,
    help: 'Do not serve the live dashboard page (Switchyard-only)',
    status: 'switchyard-only',
  },
];
