/**
 * A repeating background job on an injected clock (the gateway has no `setInterval`): the
 * next run is armed before the job runs, so a slow or throwing job cannot stop the cycle, and
 * the timer never keeps the process alive on its own.
 */
import type { Clock, Timer } from '@switchyard/kit';

/** Timers a draining process or a finished test need not wait for. */
export const BACKGROUND = { keepAlive: false } as const;

/** Runs `fn` every `ms` on `clock` until the returned function is called. */
export function every(clock: Clock, ms: number, fn: () => void): () => void {
  let timer: Timer | undefined;
  let stopped = false;
  const arm = (): void => {
    timer = clock.setTimer(
      ms,
      () => {
        if (stopped) return;
        arm();
        fn();
      },
      BACKGROUND,
    );
  };
  arm();
  return () => {
    stopped = true;
    clock.clearTimer(timer);
  };
}
