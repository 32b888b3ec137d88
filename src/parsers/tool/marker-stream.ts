/**
 * The engine of the tool-call formats whose calls sit between a begin and an end marker
 * (DeepSeek, Kimi K2, GLM), optionally grouped in a section (`<｜tool▁calls▁begin｜>` …
 * `<｜tool▁calls▁end｜>`). A call is released whole, name and arguments in one delta, when its end
 * marker arrives: only then is it known to be well formed, and a malformed one goes back to
 * content as the model wrote it. The whole-text parse is this stream fed the text in one piece.
 *
 * Content is the text outside the calls. Markup is removed: section markers and well-formed calls,
 * and a run of only whitespace after them (the line breaks between calls are layout, not text).
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
        this.buffer = this.buffer.slice(this.emit(step, this.buffer.slice(0, cut), final));
        return step;
      }
      this.emit(step, this.buffer.slice(0, hit.at), true);
      this.buffer = this.buffer.slice(hit.at + hit.marker.length);
      this.enter(hit.marker);
    }
  }

  private enter(marker: string): void {
    if (marker === this.format.callBegin) {
      this.callInSection = this.mode === 'section';
      this.mode = 'call';
      return;
    }
    // A section marker: entering at its begin, leaving at its end.
    this.mode = this.mode === 'text' ? 'section' : 'text';
    this.startRun(true);
  }

  /** Closes the open call if its end marker is in; false when it waits for more text. */
  private takeCall(step: ToolStreamStep, final: boolean): boolean {
    const { callBegin, callEnd } = this.format;
    const found = this.body.add(this.buffer);
    this.buffer = '';
    if (found === undefined) {
      if (final) {
        step.content += callBegin + this.body.takeAll();
        this.mode = 'text';
      }
      return false;
    }
    this.buffer = found.after;
    const call = this.format.parseCall(found.before);
    if (call === undefined) {
      step.content += callBegin + found.before + callEnd;
    } else {
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
    step.content += text;
    return text.length;
  }
}
