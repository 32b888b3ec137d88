/**
 * The tokens of the PromQL subset our Grafana dashboard is written in, for the dashboard test.
 * Not a full PromQL lexer: anything it does not know (offsets, `@`, subqueries' step syntax,
 * a Grafana variable outside a string or range) is an error, so an expression the checker cannot
 * read fails the test instead of being passed unread.
 */

export type Token =
  | { kind: 'ident'; text: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'string'; text: string; at: number }
  /** The raw text between `[` and `]`: a duration or a Grafana variable such as `$__rate_interval`. */
  | { kind: 'range'; text: string; at: number }
  | { kind: 'punct'; text: string; at: number }
  | { kind: 'op'; text: string; at: number }
  | { kind: 'end'; text: ''; at: number };

export class PromqlSyntaxError extends Error {}

const IDENT = /[A-Za-z_:][A-Za-z0-9_:]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
/** Longest first, so `==` is not read as `=` `=`. */
const OPERATORS = ['==', '!=', '<=', '>=', '=~', '!~', '=', '<', '>', '+', '-', '*', '/', '%', '^'];
const PUNCT = new Set(['(', ')', '{', '}', ',']);
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'" };

function readString(src: string, at: number): { text: string; end: number } {
  const quote = src[at];
  let text = '';
  for (let i = at + 1; i < src.length; i += 1) {
    const c = src[i] ?? '';
    if (c === quote) return { text, end: i + 1 };
    // Backtick strings are raw in PromQL; the quoted ones take Go's escapes (the few used here).
    if (c === '\\' && quote !== '`') {
      const next = src[i + 1] ?? '';
      text += ESCAPES[next] ?? `\\${next}`;
      i += 1;
    } else text += c;
  }
  throw new PromqlSyntaxError(`unterminated string at ${at}`);
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === '#') throw new PromqlSyntaxError(`comments are not supported (at ${i})`);
    if (c === '"' || c === "'" || c === '`') {
      const { text, end } = readString(src, i);
      tokens.push({ kind: 'string', text, at: i });
      i = end;
      continue;
    }
    if (c === '[') {
      const close = src.indexOf(']', i);
      if (close < 0) throw new PromqlSyntaxError(`unclosed [ at ${i}`);
      tokens.push({ kind: 'range', text: src.slice(i + 1, close).trim(), at: i });
      i = close + 1;
      continue;
    }
    if (PUNCT.has(c)) {
      tokens.push({ kind: 'punct', text: c, at: i });
      i += 1;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(src);
    if (number) {
      tokens.push({ kind: 'number', text: number[0], at: i });
      i += number[0].length;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(src);
    if (ident) {
      tokens.push({ kind: 'ident', text: ident[0], at: i });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
      continue;
    }
    throw new PromqlSyntaxError(`unexpected ${JSON.stringify(c)} at ${i}`);
  }
  tokens.push({ kind: 'end', text: '', at: src.length });
  return tokens;
}
