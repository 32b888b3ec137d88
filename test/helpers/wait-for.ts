/**
 * Waiting on a condition instead of sleeping: a test that sleeps passes when the code is merely
 * slow and fails when the machine is; one that waits on the condition it needs does neither, and
 * fails with a message naming what never happened.
 */
export interface WaitOptions {
  /** How long the condition may take (default 5 s). */
  timeoutMs?: number;
  /** How often it is checked (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolves once `predicate` holds (it may be async); rejects after the timeout with
 * "timed out after N ms waiting for <what>". `what` may be a function, to describe the state at
 * the timeout. A bare number as the third argument is the timeout in milliseconds.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string | (() => string),
  opts: WaitOptions | number = {},
): Promise<void> {
  const { timeoutMs = 5000, intervalMs = 10 } =
    typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${described}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
