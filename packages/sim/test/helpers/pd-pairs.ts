/**
 * For tests that play both legs of a PD pair by hand, as a PD router would: the SGLang body with
 * the bootstrap rendezvous, and the check that a pair's workers hold nothing once the tests end.
 */
import assert from 'node:assert/strict';
import type { SimWorker } from '../../src/index.js';

/**
 * `body` as JSON with the prefill's bootstrap address and `room`: the room goes in as bare digits,
 * since a room above 2^53 would not survive a JS number.
 */
export function withBootstrapRoom(
  prefill: SimWorker,
  room: string,
  body: Record<string, unknown>,
): string {
  const json = JSON.stringify({
    ...body,
    bootstrap_host: '127.0.0.1',
    bootstrap_port: prefill.bootstrapPort ?? 0,
  });
  return `${json.slice(0, -1)},"bootstrap_room":${room}}`;
}

/** No request running or waiting, no bootstrap room open, no KV pinned for a decode to pull. */
export function assertIdle(workers: readonly SimWorker[]): void {
  for (const w of workers) {
    const s = w.stats();
    assert.deepEqual(
      { running: s.running, waiting: s.waiting, roomsOpen: s.roomsOpen, kvPinned: s.kvPinned },
      { running: 0, waiting: 0, roomsOpen: 0, kvPinned: 0 },
      `${w.name} leaked`,
    );
  }
}
