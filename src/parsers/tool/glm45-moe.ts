/**
 * GLM-4.5/4.6 (`glm45_moe`) and GLM-4.7/5 (`glm47_moe`): each call in its own `<tool_call>`, the
 * name first, then key/value pairs in tags:
 *
 *   glm45_moe: <tool_call>NAME\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>
 *   glm47_moe: <tool_call>NAME<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>
 *
 * The two differ only in where the name ends: at the line break (4.5), or at the first tag or
 * whitespace (4.7, which writes no line breaks).
 */
import type { ToolCall } from '../types.js';
import { markerToolParser } from './marker-stream.js';

const ARGUMENT = /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g;
/** A number as Rust's integer or float parse reads it (SMG's fallback): `+5`, `007`, `.5`, `5.`. */
const LOOSE_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * One value's JSON text, by SMG's rule when the schema is unknown: JSON as written, then Python's
 * `True`/`False`/`None`, then a loosely written number, else the text as a string.
 */
function valueJson(raw: string): string {
  const text = raw.trim();
  try {
    JSON.parse(text);
    return text;
  } catch {
    // Not JSON: the looser readings below.
  }
  if (text === 'True') return 'true';
  if (text === 'False') return 'false';
  if (text === 'None') return 'null';
  if (LOOSE_NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return JSON.stringify(n);
  }
  return JSON.stringify(text);
}

/**
 * The arguments object's text; a repeated key keeps its first place and its last value. Undefined
 * when anything but whitespace lies outside the pairs (SMG skips such text): taking the call would
 * drop those characters, so the call is malformed and stays content as written.
 */
function argumentsJson(text: string): string | undefined {
  const values = new Map<string, string>();
  let from = 0;
  for (const match of text.matchAll(ARGUMENT)) {
    const [, key = '', value = ''] = match;
    if (/\S/.test(text.slice(from, match.index))) return undefined;
    from = match.index + match[0].length;
    values.set(key.trim(), valueJson(value));
  }
  if (/\S/.test(text.slice(from))) return undefined;
  const members = [...values].map(([key, value]) => `${JSON.stringify(key)}:${value}`);
  return `{${members.join(',')}}`;
}

/** A call, given how to split its body into the name and the rest. */
function glmCall(body: string, nameEnd: number): ToolCall | undefined {
  const name = body.slice(0, nameEnd).trim();
  // A name holding a tag means the pairs began on the name's line: not this format.
  if (name === '' || name.includes('<')) return undefined;
  const args = argumentsJson(body.slice(nameEnd));
  return args === undefined ? undefined : { name, arguments: args };
}

function glm45Call(body: string): ToolCall | undefined {
  // SMG needs the line break; a call of no arguments written on one line is taken too.
  const lineEnd = body.indexOf('\n');
  return glmCall(body, lineEnd === -1 ? body.length : lineEnd);
}

function glm47Call(body: string): ToolCall | undefined {
  const name = /^\s*[^<\s]+/.exec(body);
  return name === null ? undefined : glmCall(body, name[0].length);
}

const MARKERS = { callBegin: '<tool_call>', callEnd: '</tool_call>' };

export const glm45MoeToolParser = markerToolParser('glm45_moe', {
  ...MARKERS,
  parseCall: glm45Call,
});

export const glm47MoeToolParser = markerToolParser('glm47_moe', {
  ...MARKERS,
  parseCall: glm47Call,
});
