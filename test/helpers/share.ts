/** Statistical checks for traffic splits, shared by unit and integration tests. */
import assert from 'node:assert/strict';

/** Asserts `hits` of `n` Bernoulli(p) draws lies within 6 sigma of n·p (never flakes). */
export function assertShare(hits: number, n: number, p: number, what: string): void {
  const sigma = Math.sqrt(n * p * (1 - p));
  const lo = n * p - 6 * sigma;
  const hi = n * p + 6 * sigma;
  assert.ok(
    hits >= lo && hits <= hi,
    `${what}: ${hits}/${n} outside [${lo.toFixed(0)}, ${hi.toFixed(0)}] (p=${p})`,
  );
}
