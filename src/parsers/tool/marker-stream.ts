/**
 * The engine of the tool-call formats whose calls sit between a begin and an end marker
 * (DeepSeek, Kimi K2, GLM), optionally grouped in a section (`<｜tool▁calls▁begin｜>` …
 * `<｜tool▁calls▁end｜>`). A call is released whole, name and arguments in one delta, when its end
 * marker arrives: only then is it known to be well formed, and a malformed one goes back to
 * content as the model wrote it. The whole-text parse is this stream fed the text in one piece.
 *
 * Content is the text outside the calls. Markup is removed: well-formed calls, the markers of a
 * section that holds one, and a run of only whitespace after them (the line breaks between calls
 * are layout, not text). A section in which no call parses is not markup: it comes back whole, its
 * markers and whitespace included, as the model wrote it. So a section's text is held until its
 * first call parses (then what it held that is not layout goes out) or it ends without one.
 */
import { findFirst, safeLength } from '../holdback.js';
import type { ToolCall, ToolParser, ToolStream, ToolStreamStep } from '../types.js';
import { UntilMarker } from './until-marker.js';
import { parseWhole } from './whole-parse.js';

export interface MarkerFormat {
  /** Opens a group of calls; absent when each call stands alone (GLM). */
  readonly section?: { readonly begin: string; readonly end: string };
  readonly callBegin: string;
  readonly callEnd: string;
  /** One call from the text between its markers, or undefined when it is malformed. */
  parseCall(body: string): ToolCall | undefined;
}

/** A parser of `name` for a marker-delimited format. */
export function markerToolParser(name: string, format: MarkerFormat): ToolParser {
  return {
    name,
    parse: (text) => parseWhole(new MarkerStream(format), text),
    stream: () => new MarkerStream(format),
  };
}

type Mode = 'text' | 'section' | 'call';

class MarkerStream implements ToolStream {
  /** Text received and not yet looked at, or held back as a possible marker's start. */
  private buffer = '';
  private mode: Mode = 'text';
  /** Where the open call returns to when it ends. */
  private callInSection = false;
  /** The current run of text follows removed markup, so whitespace alone is not content. */
  private afterMarkup = false;
  /** The current run after markup has shown other text: all of it is content. */
  private runIsContent = false;
  /** The open call's body, up to its end marker. */
  private readonly body: UntilMarker;
  private nextIndex = 0;
  private readonly textMarkers: string[];
  private readonly sectionMarkers: string[];
  /**
   * The open section's text as written, from its begin marker, while no call in it has parsed
   * (undefined otherwise); `deferred` is the content the same text gives if one parses later.
   */
  private sectionText: string[] | undefined;
  private deferred = '';

  constructor(private readonly format: MarkerFormat) {
    const { section, callBegin } = format;
    // A call outside a section is still a call: SMG's DeepSeek and Kimi streams accept one too.
    this.textMarkers = section ? [section.begin, callBegin] : [callBegin];
    this.sectionMarkers = section ? [callBegin, section.end] : [];
    this.body = new UntilMarker(format.callEnd);
  }

  push(delta: string): ToolStreamStep {
    this.buffer += delta;
    return this.drain(false);
  }

  finish(): ToolStreamStep {
    return this.drain(true);
  }

  private drain(final: boolean): ToolStreamStep {
    const step: ToolStreamStep = { content: '', calls: [] };
    for (;;) {
      if (this.mode === 'call') {
        if (this.takeCall(step, final)) continue;
        return step;
      }
      const markers = this.mode === 'text' ? this.textMarkers : this.sectionMarkers;
      const hit = findFirst(this.buffer, markers);
      if (hit === undefined) {
        const cut = final ? this.buffer.length : safeLength(this.buffer, markers);
        const taken = this.emit(step, this.buffer.slice(0, cut), final);
        this.consume(taken);
        if (final) this.releaseSection(step, '');
        return step;
      }
      this.emit(step, this.buffer.slice(0, hit.at), true);
      this.consume(hit.at);
      this.enter(step, hit.marker);
      this.consume(hit.marker.length);
    }
  }

  /** Drops the first `n` characters of the buffer, read; an open section keeps them as written. */
  private consume(n: number): void {
    if (n === 0) return;
    this.sectionText?.push(this.buffer.slice(0, n));
    this.buffer = this.buffer.slice(n);
  }

  private enter(step: ToolStreamStep, marker: string): void {
    if (marker === this.format.callBegin) {
      this.callInSection = this.mode === 'section';
      this.mode = 'call';
      return;
    }
    // A section marker: entering at its begin, leaving at its end.
    if (this.mode === 'text') {
      this.mode = 'section';
      this.sectionText = [];
      this.deferred = '';
      this.startRun(true);
      return;
    }
    this.mode = 'text';
    // A section that gave no call is text: so is the whitespace after it.
    this.startRun(!this.releaseSection(step, marker));
  }

  /**
   * Returns the open section's text as content when none of its calls parsed, `end` (its end
   * marker, or '' when the answer ends inside it) included; true when it did so.
   */
  private releaseSection(step: ToolStreamStep, end: string): boolean {
    if (this.sectionText === undefined) return false;
    step.content += this.sectionText.join('') + end;
    this.sectionText = undefined;
    this.deferred = '';
    return true;
  }

  /** Closes the open call if its end marker is in; false when it waits for more text. */
  private takeCall(step: ToolStreamStep, final: boolean): boolean {
    const { callBegin, callEnd } = this.format;
    const found = this.body.add(this.buffer);
    this.buffer = '';
    if (found === undefined) {
      if (final) {
        const body = this.body.takeAll();
        this.sectionText?.push(body);
        if (!this.releaseSection(step, '')) step.content += callBegin + body;
        this.mode = 'text';
      }
      return false;
    }
    this.buffer = found.after;
    this.sectionText?.push(found.before, callEnd);
    const call = this.format.parseCall(found.before);
    if (call === undefined) {
      this.out(step, callBegin + found.before + callEnd);
    } else {
      // The section is markup after all: what it held goes out as the content it gives.
      if (this.sectionText !== undefined) step.content += this.deferred;
      this.sectionText = undefined;
      this.deferred = '';
      step.calls.push({ index: this.nextIndex++, name: call.name, arguments: call.arguments });
    }
    this.mode = this.callInSection ? 'section' : 'text';
    this.startRun(call !== undefined);
    return true;
  }

  private startRun(afterMarkup: boolean): void {
    this.afterMarkup = afterMarkup;
    this.runIsContent = false;
  }

  /**
   * Releases `text`, the next piece of the current run, and returns how much of it was taken.
   * Whitespace after markup is held until the run shows other text, or dropped when the run
   * ends (`closed`) without any.
   */
  private emit(step: ToolStreamStep, text: string, closed: boolean): number {
    if (this.afterMarkup && !this.runIsContent) {
      if (!/\S/.test(text)) return closed ? text.length : 0;
      this.runIsContent = true;
    }
    this.out(step, text);
    return text.length;
  }

  /** Content, or, inside a section not yet known to hold a call, content held for later. */
  private out(step: ToolStreamStep, text: string): void {
    if (this.sectionText === undefined) step.content += text;
    else this.deferred += text;
  }
}
