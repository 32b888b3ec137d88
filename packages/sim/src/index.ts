// Public API of the engine simulator (`switchyard sim`, `switchyard demo` and the gateway's tests).
// The simulator imports no gateway code and runs standalone.
//
// Starting workers:
//   startSimWorker(opts)            one worker (SimWorkerOptions; engine 'canned' by default);
//                                   protocol 'grpc' serves the runtime's gRPC engine service,
//                                   PD roles included (worker.bootstrapPort is the HTTP bootstrap)
//   startSimGrpcWorker(opts)        the same with protocol 'grpc'; worker.grpc records the
//                                   GenerateRequests and Aborts received
//   startSimFleet(count, opts)      `count` identical workers on consecutive or ephemeral ports
//   startSimFleetFromSpec(spec)     a mixed fleet (roles, runtimes, windows); returns a SimFleet
//   simDemoFleetSpec(shape)         the demo's PD-shaped spec: 2 regular + 1 prefill + 1 decode
//                                   SGLang workers on the realistic engine, e.g.
//                                     const fleet = await startSimFleetFromSpec(simDemoFleetSpec());
//                                     const [p] = fleet.byRole('prefill'); // p.url, p.bootstrapPort
//   loadSimFleetFile(path)          reads a JSON or YAML fleet file into a spec
//   runSimCommand(argv, io)         the `switchyard sim` command
// Test helpers (waitForStats, parseSseData, parseSseEvents, simPost) are in
// '@switchyard/sim/testing', so they do not ship in the product's entry point. Every worker
// serves GET /sim/stats and POST /sim/faults.
export type {
  SimEngineKind,
  SimFaults,
  SimGrpcAbort,
  SimGrpcRecords,
  SimKvConnector,
  SimProtocol,
  SimRole,
  SimRuntime,
  SimStats,
  SimWorker,
  SimWorkerOptions,
} from './options.js';
export type { SimFleetOptions } from './fleet.js';
export type { SimDemoShape, SimFleet, SimFleetGroup, SimFleetSpec } from './fleet-spec.js';
export type { SimCommandIo } from './cli.js';
export { startSimGrpcWorker, startSimWorker } from './start-worker.js';
export { startSimFleet } from './fleet.js';
export {
  loadSimFleetFile,
  parseFleetSpec,
  simDemoFleetSpec,
  startSimFleetFromSpec,
} from './fleet-spec.js';
export { runSimCommand } from './cli.js';
export { ScaledClock } from './clock.js';
