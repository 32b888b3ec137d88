// The flag table of `switchyard sim`: every flag, its type and range, the SimWorkerOptions or
// SimFaults field it sets, and its help line. The flags are kit FlagSpecs, parsed and rendered into
// the usage text by the same code as the gateway's; the fields after them are the simulator's own.
import { MAX_TIMER_MS, MAX_TIMER_SECS, type FlagSpec } from '@switchyard/kit';
import type { SimEngineKind, SimFaults, SimWorkerOptions } from './options.js';
import { SIM_ENGINES, SIM_KV_CONNECTORS, SIM_ROLES, SIM_RUNTIMES } from './options.js';

export interface SimFlagSpec extends FlagSpec {
  /** Target field: a worker option or a fault; none for fleet-level settings (--port, --count). */
  readonly to?: { option: keyof SimWorkerOptions } | { fault: keyof SimFaults };
  /** The one engine this flag has an effect on; on the other one it is refused. */
  readonly engine?: SimEngineKind;
}

/** Choices of an enum flag whose value is a boolean (`--prefix-cache false`). */
export const TRUE_FALSE: readonly string[] = ['true', 'false'];

const opt = (option: keyof SimWorkerOptions) => ({ option });
const fault = (f: keyof SimFaults) => ({ fault: f });

/** The value is read back under the flag's own name, so `key` is the name. */
const flag = (name: string, spec: Omit<SimFlagSpec, 'name' | 'key'>): SimFlagSpec => ({
  name,
  key: name,
  ...spec,
});

/** A numeric range as a kit `check`; runs after the kind has checked the value is a number. */
function range(min: number, max?: number): (value: string) => string | undefined {
  const rule = max === undefined ? `>= ${min}` : `in [${min}, ${max}]`;
  return (value) => {
    const n = Number(value);
    return n < min || (max !== undefined && n > max) ? `expects a value ${rule}` : undefined;
  };
}

export const SIM_FLAGS: readonly SimFlagSpec[] = [
  flag('runtime', {
    kind: 'enum',
    choices: SIM_RUNTIMES,
    to: opt('runtime'),
    help: 'HTTP surface to imitate (default sglang)',
  }),
  flag('engine', {
    kind: 'enum',
    choices: SIM_ENGINES,
    to: opt('engine'),
    help: 'timing model (default canned)',
  }),
  flag('role', {
    kind: 'enum',
    choices: SIM_ROLES,
    to: opt('role'),
    help: 'PD role, SGLang/TokenSpeed protocol (default regular)',
  }),
  flag('host', {
    kind: 'string',
    metavar: '<H>',
    to: opt('host'),
    help: 'interface to bind (default 127.0.0.1)',
  }),
  flag('port', {
    kind: 'int',
    metavar: '<P>',
    check: range(0, 65_535),
    help: 'first worker port (default 31000; 0 = ephemeral)',
  }),
  flag('base-port', {
    kind: 'int',
    metavar: '<P>',
    check: range(0, 65_535),
    help: 'same as --port',
  }),
  flag('count', {
    kind: 'int',
    metavar: '<N>',
    check: range(1, 10_000),
    help: 'workers on consecutive ports (default 1)',
  }),
  flag('fleet', {
    kind: 'string',
    metavar: '<FILE>',
    help: 'fleet file (JSON or YAML); other flags become its defaults',
  }),
  flag('model', {
    kind: 'string',
    metavar: '<NAME>',
    to: opt('model'),
    help: 'served model name (default sim-model)',
  }),
  flag('seed', {
    kind: 'int',
    metavar: '<N>',
    to: opt('seed'),
    help: 'seed for output text and fault draws (default 0)',
  }),
  flag('time-scale', {
    kind: 'float',
    metavar: '<X>',
    check: range(1e-6),
    to: opt('timeScale'),
    help: 'simulated time per wall time; 0.01 = 100x faster (default 1)',
  }),
  flag('ttft-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(0, MAX_TIMER_MS),
    to: opt('ttftMs'),
    engine: 'canned',
    help: 'canned: time to first token (default 20)',
  }),
  flag('itl-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(0, MAX_TIMER_MS),
    to: opt('itlMs'),
    engine: 'canned',
    help: 'canned: inter-token latency (default 5)',
  }),
  flag('output-tokens', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('outputTokens'),
    help: 'output length without max_tokens (default 16)',
  }),
  flag('eos-length', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('eosLength'),
    help: 'natural EOS after N tokens unless ignore_eos (default none)',
  }),
  flag('max-running-requests', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('maxRunningRequests'),
    help: 'running window in sequences; beyond it requests queue (default 256)',
  }),
  flag('prefill-tps', {
    kind: 'float',
    metavar: '<N>',
    check: range(1e-6),
    to: opt('prefillTps'),
    engine: 'realistic',
    help: 'realistic: prefill tokens/s (default 8000)',
  }),
  flag('prefill-chunk', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('prefillChunk'),
    engine: 'realistic',
    help: 'realistic: prefill tokens per step (default 2048)',
  }),
  flag('decode-base-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(0, MAX_TIMER_MS),
    to: opt('decodeBaseMs'),
    engine: 'realistic',
    help: 'realistic: decode step base time (default 6.0)',
  }),
  flag('decode-per-req-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(0, MAX_TIMER_MS),
    to: opt('decodePerReqMs'),
    engine: 'realistic',
    help: 'realistic: decode step time per sequence (default 0.35)',
  }),
  flag('kv-tokens', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('kvTokens'),
    help: 'KV pool in tokens (default 524288)',
  }),
  flag('block-size', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('blockSize'),
    help: 'KV/prefix-cache block size (default 16)',
  }),
  flag('prefix-cache', {
    kind: 'enum',
    choices: TRUE_FALSE,
    to: opt('prefixCache'),
    engine: 'realistic',
    help: 'realistic: prefix caching (default true)',
  }),
  flag('bootstrap-port', {
    kind: 'int',
    metavar: '<P>',
    check: range(0, 65_535),
    to: opt('bootstrapPort'),
    help: 'prefill: bootstrap server port (default 0 = ephemeral)',
  }),
  flag('bootstrap-timeout-secs', {
    kind: 'float',
    metavar: '<S>',
    check: range(0, MAX_TIMER_SECS),
    to: opt('bootstrapTimeoutSecs'),
    help: 'prefill: wait for the decode peer (300; tokenspeed 120)',
  }),
  flag('waiting-timeout-secs', {
    kind: 'float',
    metavar: '<S>',
    check: range(0, MAX_TIMER_SECS),
    to: opt('waitingTimeoutSecs'),
    help: 'decode: wait for the KV once admitted (default 300)',
  }),
  flag('kv-connector', {
    kind: 'enum',
    choices: SIM_KV_CONNECTORS,
    to: opt('kvConnector'),
    help: 'vllm: KV connector for PD (default none)',
  }),
  flag('kv-engine-id', {
    kind: 'string',
    metavar: '<ID>',
    to: opt('kvEngineId'),
    help: 'vllm: remote_engine_id (default the worker name)',
  }),
  flag('kv-abort-timeout-secs', {
    kind: 'float',
    metavar: '<S>',
    check: range(0, MAX_TIMER_SECS),
    to: opt('kvAbortTimeoutSecs'),
    help: 'vllm: pinned KV lifetime (default 480)',
  }),
  flag('dp-size', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('dpSize'),
    help: 'reported dp_size (default 1)',
  }),
  flag('tp-size', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: opt('tpSize'),
    help: 'reported tp_size (default 1)',
  }),
  flag('worker-name', {
    kind: 'string',
    metavar: '<NAME>',
    to: opt('workerName'),
    help: 'x-sim-worker name (default sim-PORT; -N suffix per worker)',
  }),
  flag('error-rate', {
    kind: 'float',
    metavar: '<R>',
    check: range(0, 1),
    to: fault('errorRate'),
    help: 'fault: probability 0..1 of answering --error-status',
  }),
  flag('error-status', {
    kind: 'int',
    metavar: '<S>',
    check: range(100, 599),
    to: fault('errorStatus'),
    help: 'fault: status for --error-rate (default 500)',
  }),
  flag('health-status', {
    kind: 'int',
    metavar: '<S>',
    check: range(100, 599),
    to: fault('healthStatus'),
    help: 'fault: status answered by /health',
  }),
  flag('hang', { kind: 'bool', to: fault('hang'), help: 'fault: never answer inference requests' }),
  flag('drop-after-chunks', {
    kind: 'int',
    metavar: '<N>',
    check: range(0),
    to: fault('dropAfterChunks'),
    help: 'fault: drop the connection after N SSE events',
  }),
  flag('drop-after-head', {
    kind: 'bool',
    to: fault('dropAfterHead'),
    help: 'fault: send a 200 head, then drop the connection before the body',
  }),
  flag('slow-start-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(1e-6, MAX_TIMER_MS),
    to: fault('slowStartMs'),
    help: 'fault: /health answers 503 for MS after start',
  }),
  flag('flap-period-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(1e-6, MAX_TIMER_MS),
    to: fault('flapPeriodMs'),
    help: 'fault: /health alternates 503/200 every MS',
  }),
  flag('slowdown', {
    kind: 'float',
    metavar: '<X>',
    check: range(0.01, 1000),
    to: fault('slowdown'),
    help: 'fault: multiply engine durations by X',
  }),
  flag('fault-duration-ms', {
    kind: 'float',
    metavar: '<MS>',
    check: range(1e-6, MAX_TIMER_MS),
    to: fault('durationMs'),
    help: 'fault: clear every fault after MS',
  }),
  flag('fault-max-fires', {
    kind: 'int',
    metavar: '<N>',
    check: range(1),
    to: fault('maxFires'),
    help: 'fault: request faults clear after N fires',
  }),
  flag('help', { kind: 'bool', help: 'print this help' }),
];
