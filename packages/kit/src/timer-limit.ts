/**
 * The longest delay a Node timer can hold. `setTimeout`/`setInterval` store the delay as a signed
 * 32-bit millisecond count; anything larger is replaced by 1 ms (with a TimeoutOverflowWarning), so
 * a "once a month" probe would fire a thousand times a second. Every duration that becomes a timer
 * is bounded by these at the edge (flags, worker specs) instead of being clamped where it is used.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `MAX_TIMER_MS` in whole seconds (2,147,483 s, about 24.8 days). */
export const MAX_TIMER_SECS = Math.floor(MAX_TIMER_MS / 1000);

/** The sentence every refusal uses, so the limit reads the same in every error. */
export function timerLimitMessage(unit: 's' | 'ms'): string {
  const max = unit === 's' ? MAX_TIMER_SECS : MAX_TIMER_MS;
  return `must be at most ${max} ${unit} (the longest timer Node can hold, about 24.8 days)`;
}
