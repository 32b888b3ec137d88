/**
 * Rendered chat prompts by their template input. Rendering runs the template through a Jinja
 * interpreter, several milliseconds for a long chat (Qwen3's template, 13 messages: ~5.6 ms),
 * while the same conversation prefix comes back on every turn of an agent loop and every retry;
 * the key is the input as JSON, a few microseconds. A true LRU (a hit moves the entry to the
 * end of the Map's insertion order), bounded by entries because each holds two prompt copies.
 */
import type { ChatTemplateInput } from './types.js';

export const RENDER_CACHE_MAX_ENTRIES = 1024;
/** Inputs whose JSON is longer are rendered every time, not kept (the L0 cache's bound too). */
export const RENDER_CACHE_MAX_KEY_LENGTH = 64 * 1024;

export class RenderCache {
  readonly #entries = new Map<string, string>();
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries: number = RENDER_CACHE_MAX_ENTRIES) {}

  /** The cached render of `input`, or renders it with `render` and keeps the result. */
  render(input: ChatTemplateInput, render: () => string): string {
    const key = JSON.stringify(input);
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    this.misses++;
    const text = render();
    if (key.length > RENDER_CACHE_MAX_KEY_LENGTH) return text;
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, text);
    return text;
  }

  get size(): number {
    return this.#entries.size;
  }
}
