/** Section starts shared by the formats: an opening marker anywhere in the text. */
import { safeLength } from '../holdback.js';
import type { CallSection, FindStart } from './call-stream.js';

/**
 * Sections opened by `marker` wherever it appears; `open` builds the section from where the
 * marker begins (`at`) and where the body after it begins (`from`).
 */
export function findMarker(
  marker: string,
  open: (at: number, from: number) => CallSection,
): FindStart {
  return (buf, from) => {
    const at = buf.indexOf(marker, from);
    if (at === -1) return from + safeLength(buf.slice(from), [marker]);
    return { at, section: open(at, at + marker.length) };
  };
}
