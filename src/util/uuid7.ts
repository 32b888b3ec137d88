/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by
 * creation time. SMG suffixes engine request ids with one, and engines log them; Node 20's
 * crypto has only v4.
 */
import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);

export function uuidv7(now: number = Date.now()): string {
  randomFillSync(bytes, 6, 10);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f); // version 7
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f); // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
