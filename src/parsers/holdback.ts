/**
 * Streaming text past markers that may arrive split over several deltas: `safeLength` says how
 * much of a buffer can be released now, holding back a tail that could still grow into one of
 * the markers (`<tool_call>` arriving as `<tool` + `_call>`).
 */

/** The length of `buffer`'s prefix that cannot be the start of any marker. */
export function safeLength(buffer: string, markers: readonly string[]): number {
  let hold = 0;
  for (const m of markers) {
    // The longest suffix of the buffer that is a proper prefix of the marker.
    const max = Math.min(m.length - 1, buffer.length);
    for (let n = max; n > hold; n--) {
      if (buffer.endsWith(m.slice(0, n))) {
        hold = n;
        break;
      }
    }
  }
  return buffer.length - hold;
}

/** The earliest occurrence of any marker in `text` from `from`, or undefined. */
export function findFirst(
  text: string,
  markers: readonly string[],
  from = 0,
): { at: number; marker: string } | undefined {
  let best: { at: number; marker: string } | undefined;
  for (const marker of markers) {
    const at = text.indexOf(marker, from);
    if (at !== -1 && (best === undefined || at < best.at)) best = { at, marker };
  }
  return best;
}
