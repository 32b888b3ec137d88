/**
 * Collects streamed text up to a marker, looking at each piece once. Searching the whole growing
 * text on every delta would cost its length each time (and a string grown by `+=` is copied flat
 * to be searched), so a long call body would be quadratic in its deltas.
 */
export class UntilMarker {
  /** The text so far, but for its last characters, which could begin the marker. */
  private parts: string[] = [];
  private tail = '';

  constructor(private readonly marker: string) {}

  /** Adds `text`; once the marker is in, returns the text before it and after it, and resets. */
  add(text: string): { before: string; after: string } | undefined {
    const window = this.tail + text;
    const at = window.indexOf(this.marker);
    if (at === -1) {
      const keep = Math.min(window.length, this.marker.length - 1);
      if (window.length > keep) this.parts.push(window.slice(0, window.length - keep));
      this.tail = window.slice(window.length - keep);
      return undefined;
    }
    const before = this.parts.join('') + window.slice(0, at);
    this.parts = [];
    this.tail = '';
    return { before, after: window.slice(at + this.marker.length) };
  }

  /** Everything added since the last marker, and resets. */
  takeAll(): string {
    const all = this.parts.join('') + this.tail;
    this.parts = [];
    this.tail = '';
    return all;
  }
}
