/**
 * How an attempt's span ends (`--enable-trace`): an attempt that returned an answer ends when the
 * answer does (written whole, cut, abandoned by the client, or discarded by the retry executor),
 * through a lease on the answer; one that threw ends at once with its error code.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { Answer } from './answer.js';

export function endAttemptSpan(
  span: AttemptSpan,
  answer: Answer | undefined,
  error: unknown,
  signal: AbortSignal,
): void {
  if (answer) {
    span.set('http.response.status_code', answer.status);
    answer.leases.push({ release: (end) => span.end(end) });
    return;
  }
  const code =
    error instanceof GatewayError
      ? error.code
      : signal.aborted
        ? 'client_closed'
        : 'internal_error';
  span.end('error', code);
}
