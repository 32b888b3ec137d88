/**
 * SMG's retryable statuses (`is_retryable_status`): the one list the retry executor, the default
 * retryability of gateway errors and the circuit breaker's failure class all read.
 */
// 508 (loop_detected) is deliberately absent: a retried loop would multiply, not recover.
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
