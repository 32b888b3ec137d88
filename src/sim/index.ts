// Public API of the engine simulator (`switchyard sim`, `switchyard demo` and the gateway's tests).
export type { SimFaults, SimRuntime, SimStats, SimWorker, SimWorkerOptions } from './options.js';
export type { SimFleetOptions } from './fleet.js';
export type { SimCommandIo } from './cli.js';
export { startSimWorker } from './http-server.js';
export { startSimFleet } from './fleet.js';
export { runSimCommand } from './cli.js';
export { parseSseData, waitForStats } from './testing.js';
