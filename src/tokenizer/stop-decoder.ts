/**
 * One sample's stop handling over the incremental decoder, as SMG's `StopSequenceDecoder`
 * (grpc-mode.md §3.4). Stop strings can span token boundaries, so text that might be the start
 * of one is held in a "jail" until it either completes a stop or cannot any more.
 */
import { IncrementalDecoder, type DecodeIds, type TextStepper } from './incremental-decode.js';
import type { StopDecoder, StopDecoderConfig, StopStep } from './types.js';

interface StopString {
  readonly text: string;
  readonly hidden: boolean;
}

const HELD: StopStep = Object.freeze({ kind: 'held' });

/** What a config compiles to; shared by every sample decoded with the same config object. */
interface CompiledStops {
  readonly hiddenIds: ReadonlySet<number>;
  readonly visibleIds: ReadonlySet<number>;
  /** Hidden first, so a string listed both ways is trimmed. */
  readonly stops: readonly StopString[];
  /** Every proper prefix of every stop string, for the jail's longest held suffix. */
  readonly prefixes: ReadonlySet<string>;
  readonly maxPrefix: number;
}

/**
 * Compiled once per config object, not once per sample: the prefix set costs time quadratic in
 * a stop string's length, and a request with n samples decodes them all with one config.
 */
const compiled = new WeakMap<StopDecoderConfig, CompiledStops>();

function compile(config: StopDecoderConfig): CompiledStops {
  let c = compiled.get(config);
  if (c !== undefined) return c;
  // An empty stop string would match before any text; SMG's matcher never reports one.
  const stops = [
    ...config.hiddenStops.filter((s) => s !== '').map((text) => ({ text, hidden: true })),
    ...config.visibleStops.filter((s) => s !== '').map((text) => ({ text, hidden: false })),
  ];
  const prefixes = new Set<string>();
  for (const { text } of stops) {
    for (let n = 1; n < text.length; n++) {
      // Never a prefix ending between the halves of a surrogate pair.
      if (!isHighSurrogate(text.charCodeAt(n - 1))) prefixes.add(text.slice(0, n));
    }
  }
  c = {
    hiddenIds: new Set(config.hiddenStopTokenIds),
    visibleIds: new Set(config.visibleStopTokenIds),
    stops,
    prefixes,
    maxPrefix: Math.max(0, ...stops.map((s) => s.text.length - 1)),
  };
  compiled.set(config, c);
  return c;
}

export class SequenceStopDecoder implements StopDecoder {
  readonly #decoder: TextStepper;
  readonly #hiddenIds: ReadonlySet<number>;
  readonly #visibleIds: ReadonlySet<number>;
  readonly #stops: readonly StopString[];
  readonly #prefixes: ReadonlySet<string>;
  readonly #maxPrefix: number;
  #jail = '';
  #stopped = false;

  /** `text`: a stepper, or a decode function for the generic double decode. */
  constructor(config: StopDecoderConfig, text: TextStepper | DecodeIds) {
    this.#decoder = typeof text === 'function' ? new IncrementalDecoder(text) : text;
    const c = compile(config);
    this.#hiddenIds = c.hiddenIds;
    this.#visibleIds = c.visibleIds;
    this.#stops = c.stops;
    this.#prefixes = c.prefixes;
    this.#maxPrefix = c.maxPrefix;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** One generated id. After a stop every push is `held`: the engine may run on, we don't. */
  push(tokenId: number): StopStep {
    if (this.#stopped) return HELD;
    if (this.#hiddenIds.has(tokenId)) {
      // The stop token itself is not decoded; only text already held is released.
      return this.#stop(this.#jail, tokenId);
    }
    if (this.#visibleIds.has(tokenId)) {
      // A stop is the end of the sample, so a character it leaves incomplete goes out as is.
      const text = this.#decoder.step(tokenId) + this.#decoder.flush();
      return this.#stop(this.#jail + text, tokenId);
    }
    const text = this.#decoder.step(tokenId);
    if (this.#stops.length === 0) return text === '' ? HELD : { kind: 'text', text };
    if (text === '') return HELD;
    return this.#scan(text);
  }

  /** End of the sample: the jail and any incomplete character are released as they are. */
  flush(): string {
    if (this.#stopped) return '';
    const out = this.#jail + this.#decoder.flush();
    this.#jail = '';
    return out;
  }

  #scan(text: string): StopStep {
    const before = this.#jail.length;
    const jail = this.#jail + text;
    // The jail held no complete stop before this text, so a match ends inside the new text.
    // Of several, the one that ends first wins: that is the one a token-by-token stream would
    // have reached first, whatever the tokenization.
    let best: StopString | undefined;
    let bestAt = -1;
    for (const stop of this.#stops) {
      const at = jail.indexOf(stop.text, Math.max(0, before - stop.text.length + 1));
      if (at < 0) continue;
      const end = at + stop.text.length;
      const bestEnd = best === undefined ? Infinity : bestAt + best.text.length;
      if (end < bestEnd || (end === bestEnd && at < bestAt)) {
        best = stop;
        bestAt = at;
      }
    }
    if (best !== undefined) {
      const cut = best.hidden ? bestAt : bestAt + best.text.length;
      return this.#stop(jail.slice(0, cut), best.text);
    }
    const keep = this.#heldSuffix(jail);
    this.#jail = jail.slice(jail.length - keep);
    const out = jail.slice(0, jail.length - keep);
    return out === '' ? HELD : { kind: 'text', text: out };
  }

  /** Length of the longest suffix of `jail` that is a proper prefix of some stop string. */
  #heldSuffix(jail: string): number {
    for (let k = Math.min(jail.length, this.#maxPrefix); k > 0; k--) {
      if (this.#prefixes.has(jail.slice(jail.length - k))) return k;
    }
    return 0;
  }

  #stop(text: string, matched: string | number): StopStep {
    this.#stopped = true;
    this.#jail = '';
    return { kind: 'stopped', text, matched };
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
