/**
 * A `<parameter=KEY>VALUE</parameter>` value as JSON text, by SMG's rule for the Qwen XML format
 * when the request's tool schemas are not consulted: the value is trimmed; text that is valid
 * JSON (a number, true/false/null, an object, an array, a quoted string) is that JSON; Python's
 * True, False and None are true, false and null; anything else is a JSON string of the trimmed
 * text, taken literally (HTML entities are not decoded; Qwen's own API returns them intact).
 */
import { minifyJson } from './json-minify.js';

const PYTHON_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/** Characters a JSON value can begin with; testing it first spares a throw for plain text. */
const JSON_START = /^[[{"\-0-9tfn]/;

export function paramValueJson(raw: string): string {
  const text = raw.trim();
  if (JSON_START.test(text)) {
    try {
      JSON.parse(text);
      return minifyJson(text);
    } catch {
      // Not JSON: plain text, below.
    }
  }
  return PYTHON_LITERALS[text] ?? JSON.stringify(text);
}
