/**
 * The reasoning parser most model families share: a block between a start and an end marker
 * (`<think>`…`</think>`), configured per family by its markers and by whether its answers begin
 * inside the block. Text before the block and after it is content; the block is reasoning.
 *
 * `parse` runs the same scanner as `stream` over the whole text, so a streamed answer always
 * splits exactly as the whole answer does, however the deltas fall.
 */
import { findFirst, safeLength } from '../holdback.js';
import type {
  ReasoningParser,
  ReasoningResult,
  ReasoningStart,
  ReasoningStream,
} from '../types.js';

/** What sets one family apart. */
export interface MarkerPairConfig {
  /** SMG's parser name. */
  name: string;
  startTag: string;
  endTag: string;
  /** The family's answers begin inside the block whatever the prompt (no opening tag printed). */
  alwaysStartsInReasoning: boolean;
}

/** The markers most families use. */
export const THINK_TAGS = { startTag: '<think>', endTag: '</think>' } as const;

/**
 * Where the scanner is in one answer:
 * - `before`: content, waiting for the start marker;
 * - `unopened`: inside the block, its start marker not seen yet (one may still come: dropped);
 * - `inside`: inside the block after its start marker, only the end marker matters;
 * - `after`: past the end marker, the rest is content verbatim, markers included.
 */
type Phase = 'before' | 'unopened' | 'inside' | 'after';

class MarkerPairStream implements ReasoningStream {
  private phase: Phase;
  /** A tail of the text so far that may still grow into a marker. */
  private held = '';
  private readonly before: readonly string[];
  private readonly unopened: readonly string[];
  private readonly inside: readonly string[];

  constructor(
    private readonly config: MarkerPairConfig,
    inReasoning: boolean,
  ) {
    this.phase = inReasoning ? 'unopened' : 'before';
    this.before = [config.startTag];
    this.unopened = [config.startTag, config.endTag];
    this.inside = [config.endTag];
  }

  push(delta: string): ReasoningResult {
    const out = { reasoning: '', content: '' };
    // Most of a long answer arrives after the block: no scan, no copy.
    if (this.phase === 'after') {
      out.content = delta;
      return out;
    }
    const text = this.held + delta;
    this.held = '';
    let pos = 0;
    while (this.phase !== 'after') {
      const markers = this.markers();
      const hit = findFirst(text, markers, pos);
      if (hit === undefined) {
        const rest = pos === 0 ? text : text.slice(pos);
        const safe = safeLength(rest, markers);
        this.emit(out, rest.slice(0, safe));
        this.held = rest.slice(safe);
        return out;
      }
      this.emit(out, text.slice(pos, hit.at));
      pos = hit.at + hit.marker.length;
      this.phase = this.next(hit.marker);
    }
    out.content += text.slice(pos);
    return out;
  }

  finish(): ReasoningResult {
    const out = { reasoning: '', content: '' };
    // A held partial marker never completed: it is plain text of whatever part it sits in.
    this.emit(out, this.held);
    this.held = '';
    return out;
  }

  private markers(): readonly string[] {
    if (this.phase === 'before') return this.before;
    return this.phase === 'unopened' ? this.unopened : this.inside;
  }

  /**
   * The phase after `marker`. `before` searches only the start marker, so an end marker was found
   * inside the block; a start marker opens the block, or, found inside it, is dropped (SMG strips
   * the first one it sees while reasoning).
   */
  private next(marker: string): Phase {
    return marker === this.config.endTag ? 'after' : 'inside';
  }

  private emit(out: ReasoningResult, text: string): void {
    if (this.phase === 'before' || this.phase === 'after') out.content += text;
    else out.reasoning += text;
  }
}

/** A parser for one family's markers. */
export function markerPairParser(config: MarkerPairConfig): ReasoningParser {
  const stream = (start: ReasoningStart): ReasoningStream =>
    new MarkerPairStream(config, start.inReasoning || config.alwaysStartsInReasoning);
  return {
    name: config.name,
    startTag: config.startTag,
    endTag: config.endTag,
    alwaysStartsInReasoning: config.alwaysStartsInReasoning,
    stream,
    parse(text, start) {
      const s = stream(start);
      const a = s.push(text);
      const b = s.finish();
      return { reasoning: a.reasoning + b.reasoning, content: a.content + b.content };
    },
  };
}
