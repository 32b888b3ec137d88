// Tool calls written in an answer text in the Hermes/Qwen form, `<tool_call>\n{"name": …,
// "arguments": {…}}\n</tool_call>`, read the way the engines' tool parsers read a model's output
// (vLLM's `hermes` parser, SGLang's `qwen25` detector): every block's JSON is parsed, and its
// arguments are handed back re-serialized as Python's `json.dumps(args, ensure_ascii=False)` writes
// them (`", "` and `": "` separators). Where each part sits in the text is kept too, so a stream
// can release the name and the arguments at the tokens that complete them.

export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';

/** One call of an answer, with its offsets in the answer text. */
export interface MarkupCall {
  name: string;
  /** The arguments as the engines return them (Python's json.dumps of the parsed object). */
  arguments: string;
  /** The parsed arguments object (an Anthropic `tool_use` block's `input`). */
  input: Record<string, unknown>;
  /** The whole block, `<tool_call>` to `</tool_call>` included: [start, end). */
  start: number;
  end: number;
  /** Just past the name's closing quote: from here on the parser knows the function. */
  nameEnd: number;
  /** The raw arguments value: [argsStart, argsEnd). */
  argsStart: number;
  argsEnd: number;
  /**
   * `settled[k]`: characters of `arguments` known once `k` raw characters of the value have
   * arrived. Undefined when the raw value is not `arguments` with other spacing (different
   * escapes or number spellings): the arguments then arrive whole when the block closes.
   */
  settled: number[] | undefined;
}

type Json = Record<string, unknown>;

/**
 * The calls of `text`, in order; undefined when it has no `<tool_call>` or when any block is not
 * closed or is not a JSON object with a string `name` and object `arguments` (SGLang's
 * `parameters` accepted too): the engines then return the whole text as content (vLLM's
 * fallback), and so does the simulator.
 */
export function findToolCalls(text: string): MarkupCall[] | undefined {
  const calls: MarkupCall[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(CALL_OPEN, from);
    if (start < 0) break;
    const innerStart = start + CALL_OPEN.length;
    const close = text.indexOf(CALL_CLOSE, innerStart);
    if (close < 0) return undefined;
    const call = readCall(text.slice(innerStart, close), innerStart, close + CALL_CLOSE.length);
    if (call === undefined) return undefined;
    calls.push({ ...call, start });
    from = call.end;
  }
  return calls.length > 0 ? calls : undefined;
}

function readCall(inner: string, at: number, end: number): Omit<MarkupCall, 'start'> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(inner);
  } catch {
    return undefined;
  }
  if (!isObject(doc) || typeof doc['name'] !== 'string') return undefined;
  const argsKey = 'arguments' in doc ? 'arguments' : 'parameters';
  const input = doc[argsKey] ?? {};
  if (!isObject(input)) return undefined;
  const places = memberPlaces(inner);
  const name = places.get('name');
  const raw = places.get(argsKey);
  const args = pythonJson(input);
  // No arguments written: they are `{}`, released when the block closes.
  const argsStart = raw === undefined ? (name?.end ?? 0) : raw.start;
  const argsEnd = raw === undefined ? argsStart : raw.end;
  return {
    name: doc['name'],
    arguments: args,
    input,
    end,
    nameEnd: at + (name?.end ?? inner.length),
    argsStart: at + argsStart,
    argsEnd: at + argsEnd,
    settled: raw === undefined ? undefined : settledTable(inner.slice(argsStart, argsEnd), args),
  };
}

/** JSON text with Python's default separators, as `json.dumps(value, ensure_ascii=False)`. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (isObject(value)) {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
    return `{${members.join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Walks the raw value and its re-serialization side by side, skipping whitespace outside strings
 * on both; they must then agree character for character.
 */
function settledTable(raw: string, out: string): number[] | undefined {
  const table = [0];
  let o = 0;
  let inString = false;
  let escaped = false;
  // UTF-16 units, not code points: offsets are string indices, and both texts spell a character
  // outside the BMP with the same two units.
  for (let r = 0; r < raw.length; r++) {
    const c = raw[r] ?? '';
    if (!inString && isSpace(c)) {
      table.push(o);
      continue;
    }
    while (!inString && o < out.length && isSpace(out[o] ?? '')) o++;
    if (out[o] !== c) return undefined;
    if (escaped) escaped = false;
    else if (inString && c === '\\') escaped = true;
    else if (c === '"') inString = !inString;
    o++;
    table.push(o);
  }
  return o === out.length ? table : undefined;
}

/** Where each top-level member's value sits in an object's (already validated) JSON text. */
function memberPlaces(s: string): Map<string, { start: number; end: number }> {
  const places = new Map<string, { start: number; end: number }>();
  let i = skipSpace(s, 0);
  if (s[i] !== '{') return places;
  i++;
  for (;;) {
    i = skipSpace(s, i);
    if (s[i] !== '"') return places;
    const keyStart = i;
    i = skipString(s, i);
    const key = JSON.parse(s.slice(keyStart, i)) as string;
    i = skipSpace(s, i) + 1; // the ':'
    const start = skipSpace(s, i);
    i = skipValue(s, start);
    places.set(key, { start, end: i });
    i = skipSpace(s, i);
    if (s[i] !== ',') return places;
    i++;
  }
}

function skipValue(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return skipString(s, i);
  if (c !== '{' && c !== '[') {
    while (i < s.length && !/[\s,\]}]/.test(s[i] ?? '')) i++;
    return i;
  }
  let depth = 0;
  while (i < s.length) {
    const d = s[i];
    if (d === '"') {
      i = skipString(s, i);
      continue;
    }
    if (d === '{' || d === '[') depth++;
    else if ((d === '}' || d === ']') && --depth === 0) return i + 1;
    i++;
  }
  return i;
}

function skipString(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i + 1;
  }
  return i;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s[i] ?? '')) i++;
  return i;
}

/** JSON's insignificant whitespace. */
function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
