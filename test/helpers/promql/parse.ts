/**
 * A parser for the PromQL subset of our Grafana dashboard: selectors with matchers and ranges,
 * function calls, aggregations with `by`/`without`, and binary operators with PromQL's
 * precedence and `bool`, `on`/`ignoring`, `group_left`/`group_right`. The tree keeps what the
 * checker needs (names, labels, grouping), nothing about values.
 */
import { PromqlSyntaxError, tokenize, type Token } from './tokens.js';

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Grouping {
  mode: 'by' | 'without';
  labels: string[];
}

export interface VectorMatching {
  mode: 'on' | 'ignoring';
  labels: string[];
}

export type PromqlNode =
  | { kind: 'number' }
  | { kind: 'string'; value: string }
  | { kind: 'selector'; name: string; matchers: Matcher[]; range: string | undefined }
  | { kind: 'call'; fn: string; args: PromqlNode[] }
  | {
      kind: 'aggregate';
      op: string;
      grouping: Grouping | undefined;
      param: PromqlNode | undefined;
      expr: PromqlNode;
    }
  | {
      kind: 'binary';
      op: string;
      bool: boolean;
      matching: VectorMatching | undefined;
      group: { side: 'left' | 'right'; labels: string[] } | undefined;
      lhs: PromqlNode;
      rhs: PromqlNode;
    }
  | { kind: 'unary'; expr: PromqlNode };

/** Aggregation operators; those with a parameter (`topk(5, …)`) take it first. */
export const AGGREGATIONS = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'group',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
]);
const PARAMETRIC = new Set(['topk', 'bottomk', 'quantile']);

/** Binary operators by precedence, lowest first (the Prometheus docs' table). */
const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};

export const SET_OPERATORS = new Set(['and', 'or', 'unless']);
const MATCH_OPS = new Set(['=', '!=', '=~', '!~']);

class Parser {
  #pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  get #peek(): Token {
    return this.tokens[this.#pos] ?? { kind: 'end', text: '', at: this.src.length };
  }

  #next(): Token {
    const t = this.#peek;
    this.#pos += 1;
    return t;
  }

  #fail(what: string): never {
    const t = this.#peek;
    throw new PromqlSyntaxError(`expected ${what} at ${t.at}, found ${t.text || 'the end'}`);
  }

  /** Whether the next token is `text` as syntax (a string token with that text is not). */
  #at(text: string): boolean {
    return this.#peek.text === text && this.#peek.kind !== 'string';
  }

  #expect(text: string): void {
    if (!this.#at(text)) this.#fail(`"${text}"`);
    this.#pos += 1;
  }

  #ident(): string {
    if (this.#peek.kind !== 'ident') this.#fail('a name');
    return this.#next().text;
  }

  /** `(a, b)`, a trailing comma allowed. */
  #labelList(): string[] {
    this.#expect('(');
    const labels: string[] = [];
    while (!this.#at(')')) {
      labels.push(this.#ident());
      if (!this.#at(',')) break;
      this.#next();
    }
    this.#expect(')');
    return labels;
  }

  parseAll(): PromqlNode {
    const node = this.#expr(1);
    if (this.#peek.kind !== 'end') this.#fail('the end');
    return node;
  }

  #binaryOp(): string | undefined {
    const t = this.#peek;
    if (t.kind === 'op' || t.kind === 'ident') return t.text in PRECEDENCE ? t.text : undefined;
    return undefined;
  }

  #expr(minPrecedence: number): PromqlNode {
    let lhs = this.#unary();
    for (let op = this.#binaryOp(); op !== undefined; op = this.#binaryOp()) {
      const precedence = PRECEDENCE[op] ?? 0;
      if (precedence < minPrecedence) break;
      this.#next();
      const bool = this.#at('bool');
      if (bool) this.#next();
      let matching: VectorMatching | undefined;
      if (this.#at('on') || this.#at('ignoring')) {
        const mode = this.#next().text as 'on' | 'ignoring';
        matching = { mode, labels: this.#labelList() };
      }
      let group: { side: 'left' | 'right'; labels: string[] } | undefined;
      if (this.#at('group_left') || this.#at('group_right')) {
        const side = this.#next().text === 'group_left' ? 'left' : 'right';
        group = { side, labels: this.#at('(') ? this.#labelList() : [] };
      }
      // `^` is right-associative; every other operator left-associative.
      const rhs = this.#expr(op === '^' ? precedence : precedence + 1);
      lhs = { kind: 'binary', op, bool, matching, group, lhs, rhs };
    }
    return lhs;
  }

  #unary(): PromqlNode {
    if (this.#peek.kind === 'op' && (this.#peek.text === '-' || this.#peek.text === '+')) {
      this.#next();
      return { kind: 'unary', expr: this.#unary() };
    }
    return this.#primary();
  }

  #primary(): PromqlNode {
    const t = this.#peek;
    if (t.kind === 'number') {
      this.#next();
      return { kind: 'number' };
    }
    if (t.kind === 'string') {
      this.#next();
      return { kind: 'string', value: t.text };
    }
    if (t.kind === 'punct' && t.text === '(') {
      this.#next();
      const inner = this.#expr(1);
      this.#expect(')');
      if (this.#peek.kind === 'range') this.#fail('no subquery (not supported)');
      return inner;
    }
    if (t.kind === 'punct' && t.text === '{') this.#fail('a metric name before "{"');
    const name = this.#ident();
    if (AGGREGATIONS.has(name)) return this.#aggregate(name);
    if (this.#at('(')) return { kind: 'call', fn: name, args: this.#args() };
    return this.#selector(name);
  }

  #args(): PromqlNode[] {
    this.#expect('(');
    const args: PromqlNode[] = [];
    while (!this.#at(')')) {
      args.push(this.#expr(1));
      if (!this.#at(',')) break;
      this.#next();
    }
    this.#expect(')');
    return args;
  }

  #grouping(): Grouping | undefined {
    if (!this.#at('by') && !this.#at('without')) return undefined;
    const mode = this.#next().text as 'by' | 'without';
    return { mode, labels: this.#labelList() };
  }

  #aggregate(op: string): PromqlNode {
    const before = this.#grouping();
    const args = this.#args();
    const after = this.#grouping();
    if (before && after) this.#fail('one grouping clause, not two');
    const [first, second] = args;
    const arity = PARAMETRIC.has(op) ? 2 : 1;
    if (args.length !== arity || first === undefined)
      throw new PromqlSyntaxError(`${op} takes ${arity} argument(s), got ${args.length}`);
    const param = arity === 2 ? first : undefined;
    const expr = arity === 2 ? (second ?? first) : first;
    return { kind: 'aggregate', op, grouping: before ?? after, param, expr };
  }

  #selector(name: string): PromqlNode {
    const matchers: Matcher[] = [];
    if (this.#at('{')) {
      this.#next();
      while (!this.#at('}')) {
        const label = this.#ident();
        const op = this.#next();
        if (op.kind !== 'op' || !MATCH_OPS.has(op.text)) this.#fail('a matcher operator');
        const value = this.#next();
        if (value.kind !== 'string') this.#fail('a quoted label value');
        matchers.push({ label, op: op.text as Matcher['op'], value: value.text });
        if (!this.#at(',')) break;
        this.#next();
      }
      this.#expect('}');
    }
    const range = this.#peek.kind === 'range' ? this.#next().text : undefined;
    return { kind: 'selector', name, matchers, range };
  }
}

/** Parses `src`; throws PromqlSyntaxError naming the position of the first problem. */
export function parsePromql(src: string): PromqlNode {
  return new Parser(tokenize(src), src).parseAll();
}
