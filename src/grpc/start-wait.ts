import type { Clock, Timer } from '@switchyard/kit';
import type { GenerateCall } from '../engine/types.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Waits for the call to start, and bounds its whole life. A client that leaves first ends the
 * wait with its abort reason; an engine that has not started within `--request-timeout-secs` is a
 * retryable 504, as an HTTP worker that sends no response head in time. The same deadline then
 * holds for the rest of the call (`expireAfter`), as an HTTP attempt's runs to its last byte: SMG
 * sets no deadline on Generate, so a wedged engine would hold the request until the client gave up.
 */
export async function startedInTime(
  call: GenerateCall,
  signal: AbortSignal,
  clock: Clock,
  timeoutMs: number,
): Promise<void> {
  if (signal.aborted) throw signal.reason;
  call.expireAfter(timeoutMs);
  let onAbort: (() => void) | undefined;
  let timer: Timer | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    timer = clock.setTimer(timeoutMs, () =>
      reject(
        new GatewayError(
          'call_upstream_timeout',
          `The engine did not start the stream within ${timeoutMs / 1000} s`,
        ),
      ),
    );
  });
  try {
    await Promise.race([call.started, stopped]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (timer !== undefined) clock.clearTimer(timer);
  }
}
