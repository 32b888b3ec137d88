/**
 * Hashes for the hash-based policies. SMG places ring nodes with blake3 and hashes prefix_hash keys
 * with xxh3_64; Node 20 ships neither, so Switchyard uses SHA-256 (native, in `crypto`) for ring
 * positions and FNV-1a 64 (hand-written, allocation-free) for prefix keys. Worker placement
 * therefore differs from SMG's; what matters is that it is stable across restarts and replicas and
 * moves few keys on membership change, which both hashes give.
 */
import { hash } from 'node:crypto';

const TWO_POW_21 = 2 ** 21;

/**
 * A ring position: the first 53 bits of SHA-256(key), as an exact double. 53 rather than 64
 * bits keeps positions plain numbers (no BigInt on the hot path); with 150 vnodes × 512
 * workers the chance of any collision is about 2^-28, and ties are broken by owner anyway.
 */
export function ringPosition(key: string): number {
  const digest = hash('sha256', key, 'buffer');
  return digest.readUInt32BE(0) * TWO_POW_21 + (digest.readUInt32BE(4) >>> 11);
}

// FNV-1a 64 state in four 16-bit limbs (low to high), so every product fits a double exactly.
// Module state is safe: the functions below never yield and never re-enter.
let h0 = 0;
let h1 = 0;
let h2 = 0;
let h3 = 0;

function reset(): void {
  // The FNV-1a 64 offset basis, 0xcbf29ce484222325.
  h0 = 0x2325;
  h1 = 0x8422;
  h2 = 0x9ce4;
  h3 = 0xcbf2;
}

/** One FNV-1a round: xor the byte in, multiply by the prime 2^40 + 0x1b3 modulo 2^64. */
function step(byte: number): void {
  h0 ^= byte;
  const r0 = h0 * 0x1b3;
  let r1 = h1 * 0x1b3;
  let r2 = h2 * 0x1b3 + h0 * 0x100;
  let r3 = h3 * 0x1b3 + h1 * 0x100;
  r1 += r0 >>> 16;
  r2 += r1 >>> 16;
  r3 += r2 >>> 16;
  h0 = r0 & 0xffff;
  h1 = r1 & 0xffff;
  h2 = r2 & 0xffff;
  h3 = r3 & 0xffff;
}

function hex(): string {
  return (
    h3.toString(16).padStart(4, '0') +
    h2.toString(16).padStart(4, '0') +
    h1.toString(16).padStart(4, '0') +
    h0.toString(16).padStart(4, '0')
  );
}

/** FNV-1a 64 of raw bytes, as 16 lowercase hex digits (SMG formats its key hash the same way). */
export function fnv1a64Bytes(bytes: Uint8Array): string {
  reset();
  for (let i = 0; i < bytes.length; i++) step(bytes[i] ?? 0);
  return hex();
}

/**
 * FNV-1a 64 of the first `maxUnits` UTF-16 code units of `text`, each fed as two bytes
 * little-endian (the string's UTF-16LE encoding), without building a Buffer.
 */
export function fnv1a64Text(text: string, maxUnits = text.length): string {
  reset();
  const n = Math.min(maxUnits, text.length);
  for (let i = 0; i < n; i++) {
    const unit = text.charCodeAt(i);
    step(unit & 0xff);
    step(unit >>> 8);
  }
  return hex();
}

/** FNV-1a 64 of the first `maxTokens` token ids as little-endian u32 bytes (SMG's key bytes). */
export function fnv1a64Tokens(tokens: readonly number[], maxTokens = tokens.length): string {
  reset();
  const n = Math.min(maxTokens, tokens.length);
  for (let i = 0; i < n; i++) {
    const t = (tokens[i] ?? 0) >>> 0;
    step(t & 0xff);
    step((t >>> 8) & 0xff);
    step((t >>> 16) & 0xff);
    step(t >>> 24);
  }
  return hex();
}
