// Primitives the gateway and the simulator share, so neither keeps its own copy.
export type { Clock, Timer, TimerOptions } from './clock.js';
export { sleep, systemClock } from './clock.js';
export { ManualClock } from './manual-clock.js';
export type { Random } from './random.js';
export { mathRandom, Mulberry32, randomIndex, seededRandom } from './random.js';
export { MAX_TIMER_MS, MAX_TIMER_SECS, timerLimitMessage } from './timer-limit.js';
export type { FlagKind, FlagSpec, GivenFlag, RawFlags } from './flags.js';
export { formatHelp, parseFlags, parseFlagsTracked, UsageError } from './flags.js';
