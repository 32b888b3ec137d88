// Fault injection for a simulated worker. Faults are data (SimFaults), replaced as a whole by
// `setFaults` or `POST /sim/faults`, and read once per request, so a change applies to the next
// request and never half-way through one. Every fault is bounded: hang ends when the client
// leaves, slow start and flapping are timed, and `durationMs` / `maxFires` clear any of them.
import type { Clock, Timer } from '@switchyard/kit';
import type { SimFaults } from './options.js';
import { ScaledClock } from './clock.js';
import { Mulberry32, mix32 } from './prng.js';

/** What the injector decided for an inference request before it runs. */
export type FaultDecision = 'none' | 'hang' | 'error';

const FAULT_KEYS: ReadonlySet<string> = new Set([
  'errorRate',
  'errorStatus',
  'hang',
  'dropAfterChunks',
  'dropAfterHead',
  'healthStatus',
  'slowStartMs',
  'flapPeriodMs',
  'slowdown',
  'durationMs',
  'maxFires',
  'grpcStatus',
  'grpcStreamStatus',
  'grpcMessage',
  'grpcMalformed',
  'abortDelayMs',
  'grpcIgnoreCancel',
  'grpcStallAfterTokens',
  'tokenizerBadSha',
  'tokenizerNoSha',
  'tokenizerDelayMs',
]);

/** SMG's gRPC → HTTP table (grpc-mode.md §5.4) read backwards, for `errorStatus` on a gRPC worker. */
const GRPC_CODE_FOR_HTTP: Readonly<Record<number, number>> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  409: 10,
  429: 8,
  501: 12,
  503: 14,
  504: 4,
};
const GRPC_INTERNAL = 13;

// Salt so that the fault stream differs from the text streams drawn under the same seed.
const FAULT_STREAM_SALT = 0x6661756c;

export class FaultInjector {
  private faults: SimFaults = {};
  private readonly rng: Mulberry32;
  private setAt = 0;
  private fires = 0;
  private expiry: Timer | undefined;

  /** `onChange` runs whenever the active faults change (set, expiry, max fires reached). */
  constructor(
    seed: number,
    initial: SimFaults,
    private readonly clock: Clock = new ScaledClock(1),
    private readonly onChange: (f: SimFaults) => void = () => {},
  ) {
    this.rng = new Mulberry32(mix32(seed ^ FAULT_STREAM_SALT));
    this.set(initial);
  }

  set(f: SimFaults): void {
    const checked = checkedFaults(f);
    this.clock.clearTimer(this.expiry);
    this.expiry = undefined;
    this.faults = checked;
    this.setAt = this.clock.now();
    this.fires = 0;
    if (checked.durationMs !== undefined) {
      this.expiry = this.clock.setTimer(checked.durationMs, () => this.set({}));
    }
    this.onChange(this.current());
  }

  current(): SimFaults {
    return { ...this.faults };
  }

  /** Hang wins over errors; the error draw uses the seeded stream only when 0 < rate < 1. */
  decide(): FaultDecision {
    const f = this.faults;
    if (f.hang === true) return this.fired('hang');
    const rate = f.errorRate ?? 0;
    if (rate >= 1 || (rate > 0 && this.rng.next() < rate)) return this.fired('error');
    return 'none';
  }

  /**
   * The drop fault for a request that runs (`'head'`: right after a 200 head, before any body
   * byte; a number: after that many SSE events); counts as a fire once it is armed.
   */
  takeDrop(): number | 'head' | undefined {
    const n = this.faults.dropAfterHead === true ? 'head' : this.faults.dropAfterChunks;
    if (n !== undefined) this.fired('none');
    return n;
  }

  /** gRPC: whether a request that runs gets the malformed message; counts as a fire if so. */
  takeMalformed(): boolean {
    if (this.faults.grpcMalformed !== true) return false;
    this.fired('none');
    return true;
  }

  errorStatus(): number {
    return this.faults.errorStatus ?? 500;
  }

  /** gRPC: status code and message a start failure (`decide() === 'error'`) ends the call with. */
  grpcStartError(): { code: number; details: string } {
    const f = this.faults;
    const code = f.grpcStatus ?? GRPC_CODE_FOR_HTTP[this.errorStatus()] ?? GRPC_INTERNAL;
    return { code, details: f.grpcMessage ?? 'sim: injected error' };
  }

  /** gRPC: status code and message a mid-stream failure ends the call with. */
  grpcStreamError(): { code: number; details: string } {
    const f = this.faults;
    return {
      code: f.grpcStreamStatus ?? GRPC_INTERNAL,
      details: f.grpcMessage ?? 'sim: injected stream error',
    };
  }

  /** gRPC: simulated ms an Abort waits before it cancels and answers. */
  abortDelayMs(): number {
    return this.faults.abortDelayMs ?? 0;
  }

  /** gRPC: the token count after which a request that runs stalls; counts as a fire if so. */
  takeStall(): number | undefined {
    const n = this.faults.grpcStallAfterTokens;
    if (n !== undefined) this.fired('none');
    return n;
  }

  /** gRPC: whether a call the client cancels keeps running until it ends or is aborted. */
  ignoresCancel(): boolean {
    return this.faults.grpcIgnoreCancel === true;
  }

  /** gRPC GetTokenizer faults. */
  tokenizerFaults(): { badSha: boolean; noSha: boolean; delayMs: number } {
    const f = this.faults;
    return {
      badSha: f.tokenizerBadSha === true,
      noSha: f.tokenizerNoSha === true,
      delayMs: f.tokenizerDelayMs ?? 0,
    };
  }

  /** Status /health should answer, or undefined for healthy. */
  healthStatus(): number | undefined {
    const f = this.faults;
    if (f.healthStatus !== undefined) return f.healthStatus;
    const since = this.clock.now() - this.setAt;
    if (f.slowStartMs !== undefined && since < f.slowStartMs) return 503;
    if (f.flapPeriodMs !== undefined && Math.floor(since / f.flapPeriodMs) % 2 === 0) return 503;
    return undefined;
  }

  slowdown(): number {
    return this.faults.slowdown ?? 1;
  }

  close(): void {
    this.clock.clearTimer(this.expiry);
  }

  private fired<T extends FaultDecision>(decision: T): T {
    const max = this.faults.maxFires;
    if (max !== undefined && ++this.fires >= max) {
      // The firing request still gets its fault; later ones do not.
      const {
        errorRate: _e,
        hang: _h,
        dropAfterChunks: _d,
        dropAfterHead: _dh,
        grpcMalformed: _gm,
        grpcStallAfterTokens: _gs,
        maxFires: _m,
        ...rest
      } = this.faults;
      this.faults = rest;
      this.onChange(this.current());
    }
    return decision;
  }
}

/** Validates untrusted JSON (POST /sim/faults) into SimFaults; unknown keys are rejected. */
export function parseFaults(
  value: unknown,
): { ok: true; faults: SimFaults } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'faults must be a JSON object' };
  }
  for (const key of Object.keys(value)) {
    if (!FAULT_KEYS.has(key)) return { ok: false, message: `unknown fault '${key}'` };
  }
  try {
    return { ok: true, faults: checkedFaults(value) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Copies `f`, dropping undefined fields, and throws RangeError on an out-of-range value. */
export function checkedFaults(f: SimFaults): SimFaults {
  const out: SimFaults = {};
  if (f.errorRate !== undefined) {
    if (typeof f.errorRate !== 'number' || !(f.errorRate >= 0 && f.errorRate <= 1)) {
      throw new RangeError('errorRate must be a number in [0, 1]');
    }
    out.errorRate = f.errorRate;
  }
  if (f.errorStatus !== undefined) out.errorStatus = status('errorStatus', f.errorStatus);
  if (f.healthStatus !== undefined) out.healthStatus = status('healthStatus', f.healthStatus);
  if (f.hang !== undefined) {
    if (typeof f.hang !== 'boolean') throw new RangeError('hang must be a boolean');
    out.hang = f.hang;
  }
  if (f.dropAfterChunks !== undefined) {
    out.dropAfterChunks = int('dropAfterChunks', f.dropAfterChunks, 0);
  }
  if (f.dropAfterHead !== undefined) {
    if (typeof f.dropAfterHead !== 'boolean')
      throw new RangeError('dropAfterHead must be a boolean');
    out.dropAfterHead = f.dropAfterHead;
  }
  if (f.slowStartMs !== undefined) out.slowStartMs = positive('slowStartMs', f.slowStartMs);
  if (f.flapPeriodMs !== undefined) out.flapPeriodMs = positive('flapPeriodMs', f.flapPeriodMs);
  if (f.durationMs !== undefined) out.durationMs = positive('durationMs', f.durationMs);
  if (f.maxFires !== undefined) out.maxFires = int('maxFires', f.maxFires, 1);
  if (f.grpcStatus !== undefined) out.grpcStatus = grpcCode('grpcStatus', f.grpcStatus);
  if (f.grpcStreamStatus !== undefined) {
    out.grpcStreamStatus = grpcCode('grpcStreamStatus', f.grpcStreamStatus);
  }
  if (f.grpcMessage !== undefined) {
    if (typeof f.grpcMessage !== 'string') throw new RangeError('grpcMessage must be a string');
    out.grpcMessage = f.grpcMessage;
  }
  if (f.abortDelayMs !== undefined) out.abortDelayMs = positive('abortDelayMs', f.abortDelayMs);
  if (f.grpcStallAfterTokens !== undefined) {
    out.grpcStallAfterTokens = int('grpcStallAfterTokens', f.grpcStallAfterTokens, 0);
  }
  if (f.tokenizerDelayMs !== undefined) {
    out.tokenizerDelayMs = positive('tokenizerDelayMs', f.tokenizerDelayMs);
  }
  for (const key of [
    'tokenizerBadSha',
    'tokenizerNoSha',
    'grpcMalformed',
    'grpcIgnoreCancel',
  ] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new RangeError(`${key} must be a boolean`);
    out[key] = v;
  }
  if (f.slowdown !== undefined) {
    if (typeof f.slowdown !== 'number' || !(f.slowdown >= 0.01 && f.slowdown <= 1000)) {
      throw new RangeError('slowdown must be a number in [0.01, 1000]');
    }
    out.slowdown = f.slowdown;
  }
  return out;
}

function status(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 599) {
    throw new RangeError(`${name} must be an HTTP status in [100, 599]`);
  }
  return value;
}

function grpcCode(name: string, value: unknown): number {
  // 0 (OK) is not a failure; 1..16 are the gRPC status codes.
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 16) {
    throw new RangeError(`${name} must be a gRPC status code in [1, 16]`);
  }
  return value;
}

function int(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}`);
  }
  return value;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a number > 0`);
  }
  return value;
}
