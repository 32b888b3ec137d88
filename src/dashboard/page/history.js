// The frames the page keeps for its plots: about ten minutes, oldest first. A reconnect brings
// the gateway's own history again, which overlaps what the page already holds, so frames are
// merged by their timestamp rather than appended.

const KEEP_MS = 10 * 60 * 1000;
// A bound on the count too, in case a gateway sends faster than once a second.
const KEEP_FRAMES = 900;

export class History {
  constructor() {
    this.frames = [];
  }

  /** The newest frame, or undefined before the first. */
  get latest() {
    return this.frames.at(-1);
  }

  /** Adds frames in any order, dropping duplicates and what fell out of the window. */
  add(frames) {
    const last = this.latest;
    if (frames.length === 1 && (last === undefined || frames[0].t > last.t)) {
      this.frames.push(frames[0]);
    } else {
      const byTime = new Map(this.frames.map((f) => [f.t, f]));
      for (const f of frames) byTime.set(f.t, f);
      this.frames = [...byTime.values()].sort((a, b) => a.t - b.t);
    }
    const newest = this.latest?.t ?? 0;
    const first = this.frames.findIndex((f) => f.t >= newest - KEEP_MS);
    const drop = Math.max(first, this.frames.length - KEEP_FRAMES);
    if (drop > 0) this.frames.splice(0, drop);
  }
}
