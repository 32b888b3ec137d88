/**
 * How the manual policy and the sticky override pick a worker for a key that has none
 * (`--assignment-mode`). `delegate` is handled by the caller: inside manual it means min_load, for
 * the sticky override it means "ask the wrapped policy".
 */
import { randomIndex, type Random } from '@switchyard/kit';
import type { Worker } from '../workers/worker.js';
import type { AssignmentMode } from './names.js';

export type DirectMode = Exclude<AssignmentMode, 'delegate'>;

/** Picks among `available` (already filtered) by mode; undefined only when it is empty. */
export function assignByMode(
  mode: DirectMode,
  available: readonly Worker[],
  random: Random,
  keysFor: (workerKey: string) => number,
): Worker | undefined {
  switch (mode) {
    case 'random':
      return available.length === 0 ? undefined : available[randomIndex(random, available.length)];
    case 'min_load':
      return minBy(available, random, (w) => w.load);
    case 'min_group':
      return minBy(available, random, (w) => keysFor(w.key));
  }
}

/** The worker with the smallest value, ties broken uniformly at random (reservoir sampling). */
export function minBy(
  workers: readonly Worker[],
  random: Random,
  value: (w: Worker) => number,
): Worker | undefined {
  let best: Worker | undefined;
  let bestValue = Infinity;
  let ties = 0;
  for (const w of workers) {
    const v = value(w);
    if (best === undefined || v < bestValue) {
      best = w;
      bestValue = v;
      ties = 1;
    } else if (v === bestValue) {
      ties++;
      if (randomIndex(random, ties) === 0) best = w;
    }
  }
  return best;
}
