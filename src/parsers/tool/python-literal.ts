/**
 * Reads a pythonic tool-call list, `[get_weather(city="Paris", days=3), ping()]`: a Python list of
 * calls taking keyword arguments whose values are literals, each call's arguments turned into JSON
 * text. SMG runs a Python parser and accepts, as values: strings (either quote, triple quotes,
 * r/b/u prefixes, escapes, adjacent strings joined), numbers, True/False/None, lists, tuples,
 * dicts, and a bare name, read as its text. The same set is read here; anything else (a
 * positional argument, an expression, a call as a value) makes the list invalid.
 *
 * The reader tells a list cut short (`incomplete`: more text could finish it) from one that can
 * never read as calls (`invalid`), so a stream knows whether to wait.
 */
import type { ToolCall } from '../types.js';

export type CallListRead =
  | { kind: 'calls'; calls: ToolCall[]; /** Just past the closing `]`. */ end: number }
  | { kind: 'incomplete' }
  | { kind: 'invalid' };

/** Reads the call list that `text` opens with. */
export function readCallList(text: string): CallListRead {
  const reader = new Reader(text);
  try {
    const calls = reader.callList();
    return { kind: 'calls', calls, end: reader.pos };
  } catch (stop) {
    if (stop === INCOMPLETE) return { kind: 'incomplete' };
    if (stop === INVALID) return { kind: 'invalid' };
    throw stop;
  }
}

/** Why a read stopped; thrown as two shared instances, so stopping costs no stack capture. */
class Stop extends Error {}
const INCOMPLETE = new Stop('the text ends inside the list');
const INVALID = new Stop('not a list of calls');

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /[ \t\r\n\f]*/y;
/** The characters a number literal (or a mistake glued to it) spans: `0x1F`, `1_000.5e-3`, `5j`. */
const NUMBER_RUN = /(?:[0-9A-Za-z_.]|(?<=[eE])[+-])*/y;
const INTEGER =
  /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0(?:_?0)*)$/;
const DIGITS = String.raw`\d(?:_?\d)*`;
const FLOAT = new RegExp(
  String.raw`^(?:(?:(?:${DIGITS})?\.${DIGITS}|${DIGITS}\.)(?:[eE][+-]?${DIGITS})?|${DIGITS}[eE][+-]?${DIGITS})$`,
);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const STRING_PREFIXES = new Set(['', 'r', 'u', 'b', 'br', 'rb']);
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};
/** Deeper nesting than any call needs; it keeps the recursion off the stack's limit. */
const MAX_DEPTH = 200;

class Reader {
  pos = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  callList(): ToolCall[] {
    this.expect('[');
    const calls: ToolCall[] = [];
    this.sequence(']', () => calls.push(this.call()));
    if (calls.length === 0) throw INVALID;
    return calls;
  }

  private call(): ToolCall {
    const name = this.identifier();
    this.space();
    this.expect('(');
    const args = new Map<string, string>();
    this.sequence(')', () => {
      const key = this.identifier();
      this.space();
      this.expect('=');
      // `==` would make a comparison, a positional argument.
      if (this.peek() === '=' || args.has(key)) throw INVALID;
      this.space();
      args.set(key, this.value());
    });
    return { name, arguments: objectJson(args) };
  }

  /** Reads `item, item, …` up to `close` (a trailing comma allowed) and the closing character. */
  private sequence(close: string, item: () => void): void {
    this.space();
    while (this.peek() !== close) {
      item();
      this.space();
      if (this.peek() === ',') {
        this.pos++;
        this.space();
      } else if (this.peek() !== close) {
        throw INVALID;
      }
    }
    this.pos++;
  }

  /** One literal's JSON text. */
  private value(): string {
    if (++this.depth > MAX_DEPTH) throw INVALID;
    const json = this.literal();
    this.depth--;
    return json;
  }

  private literal(): string {
    const c = this.peek();
    switch (c) {
      case '[': {
        this.pos++;
        const items: string[] = [];
        this.sequence(']', () => items.push(this.value()));
        return `[${items.join(',')}]`;
      }
      case '(':
        return this.tuple();
      case '{':
        return this.dict();
      case '-':
      case '+':
        this.pos++;
        this.space();
        return this.number(c === '-');
    }
    if (c === '.' || (c >= '0' && c <= '9')) return this.number(false);
    if (this.stringPrefix() !== undefined) return this.strings();
    const name = this.identifier();
    if (name === 'True') return 'true';
    if (name === 'False') return 'false';
    if (name === 'None') return 'null';
    return JSON.stringify(name);
  }

  /** `()`, `(x,)`, `(x, y)` are tuples, read as arrays; `(x)` is just x. */
  private tuple(): string {
    this.pos++;
    this.space();
    if (this.peek() === ')') {
      this.pos++;
      return '[]';
    }
    const first = this.value();
    this.space();
    if (this.peek() === ')') {
      this.pos++;
      return first;
    }
    this.expect(',');
    const items = [first];
    this.sequence(')', () => items.push(this.value()));
    return `[${items.join(',')}]`;
  }

  private dict(): string {
    this.pos++;
    const members = new Map<string, string>();
    this.sequence('}', () => {
      const key = keyText(this.value());
      this.space();
      this.expect(':');
      this.space();
      members.set(key, this.value());
    });
    return objectJson(members);
  }

  /** A number; one past i64 (u64 when positive) becomes its digits as a string, as in SMG. */
  private number(negative: boolean): string {
    this.peek();
    NUMBER_RUN.lastIndex = this.pos;
    const run = NUMBER_RUN.exec(this.text)?.[0] ?? '';
    this.pos += run.length;
    // More digits may follow.
    if (this.pos >= this.text.length) throw INCOMPLETE;
    const plain = run.replaceAll('_', '');
    if (INTEGER.test(run)) {
      // BigInt reads the 0x/0o/0b forms; a decimal's leading zeros (only `00…`) are harmless.
      const magnitude = BigInt(plain);
      if (!negative) return magnitude <= U64_MAX ? magnitude.toString() : JSON.stringify(plain);
      if (magnitude === 0n) return '0';
      const text = '-' + magnitude.toString();
      return magnitude <= I64_MAX ? text : JSON.stringify(text);
    }
    if (!FLOAT.test(run)) throw INVALID;
    const n = Number(plain);
    if (!Number.isFinite(n)) throw INVALID;
    return JSON.stringify(negative ? -n : n);
  }

  /** The prefix (maybe '') of a string literal starting here, or undefined if none does. */
  private stringPrefix(): string | undefined {
    for (let at = this.pos; at <= this.pos + 2; at++) {
      const c = this.charAt(at);
      if (c === '"' || c === "'") {
        const prefix = this.text.slice(this.pos, at);
        return STRING_PREFIXES.has(prefix.toLowerCase()) ? prefix : undefined;
      }
      if (!'rRbBuU'.includes(c)) return undefined;
    }
    return undefined;
  }

  /** Adjacent string literals, joined as Python joins them. */
  private strings(): string {
    let out = '';
    let bytes: boolean | undefined;
    for (;;) {
      const prefix = this.stringPrefix() ?? '';
      const isBytes = /b/i.test(prefix);
      // Python cannot join bytes and text.
      if (bytes !== undefined && bytes !== isBytes) throw INVALID;
      bytes = isBytes;
      this.pos += prefix.length;
      out += this.stringLiteral(/r/i.test(prefix), isBytes);
      this.space();
      this.peek();
      if (this.stringPrefix() === undefined) return JSON.stringify(out);
    }
  }

  private stringLiteral(raw: boolean, bytes: boolean): string {
    const quote = this.charAt(this.pos);
    const triple = this.charAt(this.pos + 1) === quote && this.charAt(this.pos + 2) === quote;
    let at = this.pos + (triple ? 3 : 1);
    let out = '';
    for (;;) {
      const c = this.charAt(at);
      if (c === quote && (!triple || this.closesTriple(at, quote))) {
        this.pos = at + (triple ? 3 : 1);
        return bytes ? decodeBytes(out) : out;
      }
      if (c === '\n' && !triple) throw INVALID;
      if (c === '\\') {
        const next = this.charAt(at + 1);
        if (raw) {
          // A raw string keeps the backslash, which still keeps a quote from closing it.
          out += c + next;
          at += 2;
        } else {
          const [decoded, length] = this.escape(at + 1, bytes);
          out += decoded;
          at += 1 + length;
        }
        continue;
      }
      if (bytes && c > '\x7f') throw INVALID;
      out += c;
      at++;
    }
  }

  private closesTriple(at: number, quote: string): boolean {
    return this.charAt(at + 1) === quote && this.charAt(at + 2) === quote;
  }

  /** The escape whose letter is at `at`: its text and how many characters it spans. */
  private escape(at: number, bytes: boolean): [string, number] {
    const c = this.charAt(at);
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return [simple, 1];
    if (c >= '0' && c <= '7') {
      let length = 1;
      while (length < 3 && /[0-7]/.test(this.charAt(at + length))) length++;
      const code = parseInt(this.text.slice(at, at + length), 8);
      if (bytes && code > 0xff) throw INVALID;
      return [String.fromCodePoint(code), length];
    }
    // \x in both; \u, \U only in text (in bytes they are no escape).
    const digits = c === 'x' ? 2 : bytes ? 0 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
    if (digits > 0) {
      for (let k = 1; k <= digits; k++) {
        if (!/[0-9a-fA-F]/.test(this.charAt(at + k))) throw INVALID;
      }
      const code = parseInt(this.text.slice(at + 1, at + 1 + digits), 16);
      if (code > 0x10ffff) throw INVALID;
      return [String.fromCodePoint(code), 1 + digits];
    }
    // \N{NAME} needs Unicode's name table, which this reader does not carry.
    if (c === 'N' && !bytes) throw INVALID;
    // Python keeps an unknown escape as written.
    return ['\\' + c, 1];
  }

  private identifier(): string {
    this.peek();
    IDENTIFIER.lastIndex = this.pos;
    const name = IDENTIFIER.exec(this.text)?.[0];
    if (name === undefined) throw INVALID;
    this.pos += name.length;
    return name;
  }

  private space(): void {
    SPACE.lastIndex = this.pos;
    SPACE.exec(this.text);
    this.pos = SPACE.lastIndex;
  }

  private expect(c: string): void {
    if (this.peek() !== c) throw INVALID;
    this.pos++;
  }

  private peek(): string {
    return this.charAt(this.pos);
  }

  /** The character at `at`; past the end, the list is not finished yet. */
  private charAt(at: number): string {
    if (at >= this.text.length) throw INCOMPLETE;
    return this.text.charAt(at);
  }
}

/** A dict key as SMG turns one into text: a string as itself, a scalar as its JSON text. */
function keyText(json: string): string {
  if (json.startsWith('"')) return JSON.parse(json) as string;
  if (json.startsWith('[') || json.startsWith('{')) throw INVALID;
  return json;
}

/** Members in first-seen order, a repeated key keeping its last value (a Python dict's rule). */
function objectJson(members: ReadonlyMap<string, string>): string {
  const parts = [...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`);
  return `{${parts.join(',')}}`;
}

/** A bytes literal's bytes (one per character) as UTF-8, invalid sequences replaced. */
function decodeBytes(bytes: string): string {
  return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
}
