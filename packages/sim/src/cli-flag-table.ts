// The flag table of `switchyard sim`: every flag, its type and range, the SimWorkerOptions or
// SimFaults field it sets, and its help line (the usage text is generated from it).
import { MAX_TIMER_MS, MAX_TIMER_SECS } from '@switchyard/kit';
import type { SimEngineKind, SimFaults, SimWorkerOptions } from './options.js';
import { SIM_ENGINES, SIM_KV_CONNECTORS, SIM_ROLES, SIM_RUNTIMES } from './options.js';

export type FlagKind = 'string' | 'number' | 'int' | 'bool' | 'enum';

export interface FlagSpec {
  kind: FlagKind;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** Target field: a worker option, a fault, or a fleet-level setting. */
  to?: { option: keyof SimWorkerOptions } | { fault: keyof SimFaults };
  arg?: string;
  /** The one engine this flag has an effect on; on the other one it is refused. */
  engine?: SimEngineKind;
  help: string;
}

const opt = (option: keyof SimWorkerOptions) => ({ option });
const fault = (f: keyof SimFaults) => ({ fault: f });

export const FLAGS: Readonly<Record<string, FlagSpec>> = {
  runtime: {
    kind: 'enum',
    choices: SIM_RUNTIMES,
    to: opt('runtime'),
    help: 'HTTP surface to imitate (default sglang)',
  },
  engine: {
    kind: 'enum',
    choices: SIM_ENGINES,
    to: opt('engine'),
    help: 'timing model (default canned)',
  },
  role: {
    kind: 'enum',
    choices: SIM_ROLES,
    to: opt('role'),
    help: 'PD role, SGLang/TokenSpeed protocol (default regular)',
  },
  host: {
    kind: 'string',
    arg: 'H',
    to: opt('host'),
    help: 'interface to bind (default 127.0.0.1)',
  },
  port: {
    kind: 'int',
    min: 0,
    max: 65_535,
    arg: 'P',
    help: 'first worker port (default 31000; 0 = ephemeral)',
  },
  'base-port': { kind: 'int', min: 0, max: 65_535, arg: 'P', help: 'same as --port' },
  count: {
    kind: 'int',
    min: 1,
    max: 10_000,
    arg: 'N',
    help: 'workers on consecutive ports (default 1)',
  },
  fleet: {
    kind: 'string',
    arg: 'FILE',
    help: 'fleet file (JSON or YAML); other flags become its defaults',
  },
  model: {
    kind: 'string',
    arg: 'NAME',
    to: opt('model'),
    help: 'served model name (default sim-model)',
  },
  seed: {
    kind: 'int',
    arg: 'N',
    to: opt('seed'),
    help: 'seed for output text and fault draws (default 0)',
  },
  'time-scale': {
    kind: 'number',
    min: 1e-6,
    arg: 'X',
    to: opt('timeScale'),
    help: 'simulated time per wall time; 0.01 = 100x faster (default 1)',
  },
  'ttft-ms': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: opt('ttftMs'),
    engine: 'canned',
    help: 'canned: time to first token (default 20)',
  },
  'itl-ms': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: opt('itlMs'),
    engine: 'canned',
    help: 'canned: inter-token latency (default 5)',
  },
  'output-tokens': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('outputTokens'),
    help: 'output length without max_tokens (default 16)',
  },
  'eos-length': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('eosLength'),
    help: 'natural EOS after N tokens unless ignore_eos (default none)',
  },
  'max-running-requests': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('maxRunningRequests'),
    help: 'running window in sequences; beyond it requests queue (default 256)',
  },
  'prefill-tps': {
    kind: 'number',
    min: 1e-6,
    arg: 'N',
    to: opt('prefillTps'),
    engine: 'realistic',
    help: 'realistic: prefill tokens/s (default 8000)',
  },
  'prefill-chunk': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('prefillChunk'),
    engine: 'realistic',
    help: 'realistic: prefill tokens per step (default 2048)',
  },
  'decode-base-ms': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: opt('decodeBaseMs'),
    engine: 'realistic',
    help: 'realistic: decode step base time (default 6.0)',
  },
  'decode-per-req-ms': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: opt('decodePerReqMs'),
    engine: 'realistic',
    help: 'realistic: decode step time per sequence (default 0.35)',
  },
  'kv-tokens': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('kvTokens'),
    help: 'KV pool in tokens (default 524288)',
  },
  'block-size': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('blockSize'),
    help: 'KV/prefix-cache block size (default 16)',
  },
  'prefix-cache': {
    kind: 'enum',
    choices: ['true', 'false'],
    to: opt('prefixCache'),
    engine: 'realistic',
    help: 'realistic: prefix caching (default true)',
  },
  'bootstrap-port': {
    kind: 'int',
    min: 0,
    max: 65_535,
    arg: 'P',
    to: opt('bootstrapPort'),
    help: 'prefill: bootstrap server port (default 0 = ephemeral)',
  },
  'bootstrap-timeout-secs': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_SECS,
    arg: 'S',
    to: opt('bootstrapTimeoutSecs'),
    help: 'prefill: wait for the decode peer (300; tokenspeed 120)',
  },
  'waiting-timeout-secs': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_SECS,
    arg: 'S',
    to: opt('waitingTimeoutSecs'),
    help: 'decode: wait for the KV once admitted (default 300)',
  },
  'kv-connector': {
    kind: 'enum',
    choices: SIM_KV_CONNECTORS,
    to: opt('kvConnector'),
    help: 'vllm: KV connector for PD (default none)',
  },
  'kv-engine-id': {
    kind: 'string',
    arg: 'ID',
    to: opt('kvEngineId'),
    help: 'vllm: remote_engine_id (default the worker name)',
  },
  'kv-abort-timeout-secs': {
    kind: 'number',
    min: 0,
    max: MAX_TIMER_SECS,
    arg: 'S',
    to: opt('kvAbortTimeoutSecs'),
    help: 'vllm: pinned KV lifetime (default 480)',
  },
  'dp-size': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('dpSize'),
    help: 'reported dp_size (default 1)',
  },
  'tp-size': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: opt('tpSize'),
    help: 'reported tp_size (default 1)',
  },
  'worker-name': {
    kind: 'string',
    arg: 'NAME',
    to: opt('workerName'),
    help: 'x-sim-worker name (default sim-PORT; -N suffix per worker)',
  },
  'error-rate': {
    kind: 'number',
    min: 0,
    max: 1,
    arg: 'R',
    to: fault('errorRate'),
    help: 'fault: probability 0..1 of answering --error-status',
  },
  'error-status': {
    kind: 'int',
    min: 100,
    max: 599,
    arg: 'S',
    to: fault('errorStatus'),
    help: 'fault: status for --error-rate (default 500)',
  },
  'health-status': {
    kind: 'int',
    min: 100,
    max: 599,
    arg: 'S',
    to: fault('healthStatus'),
    help: 'fault: status answered by /health',
  },
  hang: { kind: 'bool', to: fault('hang'), help: 'fault: never answer inference requests' },
  'drop-after-chunks': {
    kind: 'int',
    min: 0,
    arg: 'N',
    to: fault('dropAfterChunks'),
    help: 'fault: drop the connection after N SSE events',
  },
  'drop-after-head': {
    kind: 'bool',
    to: fault('dropAfterHead'),
    help: 'fault: send a 200 head, then drop the connection before the body',
  },
  'slow-start-ms': {
    kind: 'number',
    min: 1e-6,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: fault('slowStartMs'),
    help: 'fault: /health answers 503 for MS after start',
  },
  'flap-period-ms': {
    kind: 'number',
    min: 1e-6,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: fault('flapPeriodMs'),
    help: 'fault: /health alternates 503/200 every MS',
  },
  slowdown: {
    kind: 'number',
    min: 0.01,
    max: 1000,
    arg: 'X',
    to: fault('slowdown'),
    help: 'fault: multiply engine durations by X',
  },
  'fault-duration-ms': {
    kind: 'number',
    min: 1e-6,
    max: MAX_TIMER_MS,
    arg: 'MS',
    to: fault('durationMs'),
    help: 'fault: clear every fault after MS',
  },
  'fault-max-fires': {
    kind: 'int',
    min: 1,
    arg: 'N',
    to: fault('maxFires'),
    help: 'fault: request faults clear after N fires',
  },
  help: { kind: 'bool', help: 'print this help' },
};
