/**
 * Trace and span ids (W3C Trace Context: 16 and 8 random bytes as lowercase hex, never all
 * zero), cut from a pool of random bytes refilled 4 KiB at a time: one `randomFillSync` serves
 * ~170 requests' ids instead of a call, or several `Math.random` draws, per id.
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let next = pool.length;

const ZERO_SPAN_ID = '0'.repeat(16);
const ZERO_TRACE_ID = '0'.repeat(32);

function randomHex(bytes: number): string {
  if (next + bytes > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const hex = pool.toString('hex', next, next + bytes);
  next += bytes;
  return hex;
}

/** A new 16-byte trace id, as 32 hex digits. */
export function newTraceId(): string {
  const id = randomHex(16);
  return id === ZERO_TRACE_ID ? newTraceId() : id;
}

/** A new 8-byte span id, as 16 hex digits. */
export function newSpanId(): string {
  const id = randomHex(8);
  return id === ZERO_SPAN_ID ? newSpanId() : id;
}
