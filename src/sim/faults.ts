// Fault injection for a simulated worker. Faults are data (SimFaults), replaced as a whole by
// `setFaults` or `POST /sim/faults`, and read once per request, so a change applies to the next
// request and never half-way through one.
import { Mulberry32, mix32 } from './prng.js';
import type { SimFaults } from './options.js';

/** What the injector decided for an inference request before it runs. */
export type FaultDecision = 'none' | 'hang' | 'error';

const FAULT_KEYS: ReadonlySet<string> = new Set([
  'errorRate',
  'errorStatus',
  'hang',
  'dropAfterChunks',
  'healthStatus',
]);

// Salt so that the fault stream differs from the text streams drawn under the same seed.
const FAULT_STREAM_SALT = 0x6661756c;

export class FaultInjector {
  private faults: SimFaults;
  private readonly rng: Mulberry32;

  constructor(seed: number, initial: SimFaults) {
    this.rng = new Mulberry32(mix32(seed ^ FAULT_STREAM_SALT));
    this.faults = checkedFaults(initial);
  }

  set(f: SimFaults): void {
    this.faults = checkedFaults(f);
  }

  current(): SimFaults {
    return { ...this.faults };
  }

  /** Hang wins over errors; the error draw uses the seeded stream only when 0 < rate < 1. */
  decide(): FaultDecision {
    const f = this.faults;
    if (f.hang === true) return 'hang';
    const rate = f.errorRate ?? 0;
    if (rate >= 1 || (rate > 0 && this.rng.next() < rate)) return 'error';
    return 'none';
  }

  errorStatus(): number {
    return this.faults.errorStatus ?? 500;
  }

  dropAfterChunks(): number | undefined {
    return this.faults.dropAfterChunks;
  }

  healthStatus(): number | undefined {
    return this.faults.healthStatus;
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
    if (!Number.isInteger(f.dropAfterChunks) || f.dropAfterChunks < 0) {
      throw new RangeError('dropAfterChunks must be an integer >= 0');
    }
    out.dropAfterChunks = f.dropAfterChunks;
  }
  return out;
}

function status(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 599) {
    throw new RangeError(`${name} must be an HTTP status in [100, 599]`);
  }
  return value;
}
