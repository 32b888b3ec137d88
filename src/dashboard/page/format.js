// Number formatting shared by the tables and the plots. Every formatter takes the frame's
// `null` ("not known") and shows a dash for it, never a zero: a missing series is not an idle one.

export const DASH = '–';

/** A rate or count: integers as they are, small values with enough digits to see movement. */
export function num(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** A duration given in seconds: milliseconds below one second, seconds above. */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return DASH;
  if (seconds === 0) return '0 ms';
  if (seconds < 1) return `${num(seconds * 1000)} ms`;
  if (seconds < 120) return `${num(seconds)} s`;
  return `${num(seconds / 60)} min`;
}

/** A 0–1 ratio as a percentage. */
export function percent(ratio) {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return DASH;
  if (ratio === 0) return '0%';
  if (ratio < 0.001) return '<0.1%';
  return `${(ratio * 100).toFixed(ratio >= 0.1 ? 0 : 1)}%`;
}

/** "used / limit", with a dash for either side that is unknown. */
export function ofLimit(used, limit) {
  return `${num(used)} / ${num(limit)}`;
}

/** Wall-clock time of a frame, HH:MM:SS in the viewer's time zone. */
export function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}
