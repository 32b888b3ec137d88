// Defaults and validation of SimWorkerOptions. The realistic-engine defaults are SMG's mock
// worker's (`crates/mock_worker`); PD deadlines are SGLang's and vLLM's engine defaults.
import type { ResolvedSimOptions, SimWorkerOptions } from './options.js';
import { SIM_ENGINES, SIM_KV_CONNECTORS, SIM_MAX_TOTAL_NUM_TOKENS, SIM_ROLES } from './options.js';
import { SIM_CONTEXT_LENGTH, SIM_PROTOCOLS, SIM_RUNTIMES } from './options.js';

/** SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT's default; TokenSpeed's is 120 s (SMG PR #2466). */
const BOOTSTRAP_TIMEOUT_SECS = { sglang: 300, tokenspeed: 120, vllm: 300 } as const;

export function resolveSimOptions(opts: SimWorkerOptions = {}): ResolvedSimOptions {
  const runtime = opts.runtime ?? 'sglang';
  const role = opts.role ?? 'regular';
  const protocol = opts.protocol ?? 'http';
  // A prefill always serves a bootstrap server (the decode must reach it). A gRPC vLLM worker
  // with a connector needs one too: any request may make it a prefill, and decodes read its KV
  // over HTTP, which its gRPC port does not speak. Ephemeral by default.
  const bootstrap =
    role === 'prefill' ||
    (protocol === 'grpc' && runtime === 'vllm' && opts.kvConnector !== undefined);
  const r: ResolvedSimOptions = {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    runtime,
    protocol,
    tokenizerDir: opts.tokenizerDir,
    eosTokenId: opts.eosTokenId,
    answerText: opts.answerText,
    maxContextLength: opts.maxContextLength ?? SIM_CONTEXT_LENGTH,
    weightVersion: opts.weightVersion ?? 'default',
    tokenizerPathLabel: opts.tokenizerPathLabel,
    defaultSamplingParamsJson: opts.defaultSamplingParamsJson ?? '',
    model: opts.model ?? 'sim-model',
    seed: opts.seed ?? 0,
    engine: opts.engine ?? 'canned',
    timeScale: opts.timeScale ?? 1,
    ttftMs: opts.ttftMs ?? 20,
    itlMs: opts.itlMs ?? 5,
    outputTokens: opts.outputTokens ?? 16,
    eosLength: opts.eosLength,
    maxRunningRequests: opts.maxRunningRequests ?? 256,
    prefillTps: opts.prefillTps ?? 8000,
    prefillChunk: opts.prefillChunk ?? 2048,
    decodeBaseMs: opts.decodeBaseMs ?? 6,
    decodePerReqMs: opts.decodePerReqMs ?? 0.35,
    kvTokens: opts.kvTokens ?? SIM_MAX_TOTAL_NUM_TOKENS,
    blockSize: opts.blockSize ?? 16,
    prefixCache: opts.prefixCache ?? true,
    role,
    bootstrapPort: opts.bootstrapPort ?? (bootstrap ? 0 : undefined),
    bootstrapTimeoutSecs:
      opts.bootstrapTimeoutSecs ??
      (Object.hasOwn(BOOTSTRAP_TIMEOUT_SECS, runtime) ? BOOTSTRAP_TIMEOUT_SECS[runtime] : 300),
    waitingTimeoutSecs: opts.waitingTimeoutSecs ?? 300,
    kvConnector: opts.kvConnector,
    kvEngineId: opts.kvEngineId,
    kvAbortTimeoutSecs: opts.kvAbortTimeoutSecs ?? 480,
    dpSize: opts.dpSize ?? 1,
    tpSize: opts.tpSize ?? 1,
    workerName: opts.workerName,
    faults: { ...opts.faults },
  };
  oneOf('runtime', r.runtime, SIM_RUNTIMES);
  oneOf('engine', r.engine, SIM_ENGINES);
  oneOf('protocol', r.protocol, SIM_PROTOCOLS);
  if (r.eosTokenId !== undefined) requireInt('eosTokenId', r.eosTokenId, 0, 2 ** 32 - 1);
  requireInt('maxContextLength', r.maxContextLength, 2, 2 ** 31 - 1);
  oneOf('role', r.role, SIM_ROLES);
  if (r.kvConnector !== undefined) oneOf('kvConnector', r.kvConnector, SIM_KV_CONNECTORS);
  requireInt('port', r.port, 0, 65_535);
  requireInt('seed', r.seed, -(2 ** 53), 2 ** 53);
  requireNumber('timeScale', r.timeScale, Number.MIN_VALUE);
  requireNumber('ttftMs', r.ttftMs, 0);
  requireNumber('itlMs', r.itlMs, 0);
  requireInt('outputTokens', r.outputTokens, 1, 1_000_000);
  if (r.eosLength !== undefined) requireInt('eosLength', r.eosLength, 1, 1_000_000);
  requireInt('maxRunningRequests', r.maxRunningRequests, 1, 1_000_000);
  requireNumber('prefillTps', r.prefillTps, Number.MIN_VALUE);
  requireInt('prefillChunk', r.prefillChunk, 1, 1_000_000_000);
  requireNumber('decodeBaseMs', r.decodeBaseMs, 0);
  requireNumber('decodePerReqMs', r.decodePerReqMs, 0);
  requireInt('kvTokens', r.kvTokens, 1, 1e12);
  requireInt('blockSize', r.blockSize, 1, 1_000_000);
  if (typeof r.prefixCache !== 'boolean') throw new TypeError('sim: prefixCache must be a boolean');
  if (r.bootstrapPort !== undefined) requireInt('bootstrapPort', r.bootstrapPort, 0, 65_535);
  requireNumber('bootstrapTimeoutSecs', r.bootstrapTimeoutSecs, 0);
  requireNumber('waitingTimeoutSecs', r.waitingTimeoutSecs, 0);
  requireNumber('kvAbortTimeoutSecs', r.kvAbortTimeoutSecs, 0);
  requireInt('dpSize', r.dpSize, 1, 1024);
  requireInt('tpSize', r.tpSize, 1, 1024);
  return r;
}

function oneOf(name: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) {
    throw new TypeError(`sim: unknown ${name} '${String(value)}' (one of ${allowed.join(', ')})`);
  }
}

function requireNumber(name: string, value: number, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new RangeError(`sim: ${name} must be a finite number >= ${min}, got ${String(value)}`);
  }
}

function requireInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `sim: ${name} must be an integer in [${min}, ${max}], got ${String(value)}`,
    );
  }
}
