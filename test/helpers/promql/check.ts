/**
 * Checks a PromQL expression against a real scrape: every metric it selects has samples under
 * that exact name, every label it matches on, groups by or matches vectors on is a label of the
 * series it applies to, and each `label="value"` matcher names a value the scrape has. Labels are
 * followed through the expression (an aggregation keeps only its `by` labels,
 * `histogram_quantile` consumes `le`), so `sum by (worker) (sum(x))` fails although `x` has a
 * `worker` label: that query would return nothing useful. The result's labels are returned for
 * the caller to check a legend against.
 */
import type { SeriesCatalog } from '../scrape-catalog.js';
import { parsePromql, SET_OPERATORS, type PromqlNode } from './parse.js';

type Labels = ReadonlySet<string>;
type Value =
  | { type: 'scalar' }
  | { type: 'string' }
  | { type: 'vector'; labels: Labels }
  | { type: 'matrix'; labels: Labels };

export interface QueryCheck {
  /** Empty when the expression is sound against the scrape. */
  problems: string[];
  /** The labels of the result, when it is an instant vector. */
  labels: Labels | undefined;
  /** Every metric name the expression selects. */
  metrics: string[];
}

/** Functions over a range vector that keep its labels. */
const RANGE_FUNCTIONS = new Set([
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'changes',
  'resets',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
]);
/** Functions of an instant vector (then scalars) that keep its labels. */
const VECTOR_FUNCTIONS = new Set([
  'abs',
  'ceil',
  'floor',
  'round',
  'exp',
  'ln',
  'log2',
  'log10',
  'sqrt',
  'sgn',
  'clamp',
  'clamp_min',
  'clamp_max',
]);
/** A duration (`5m`, `1h30m`) or a Grafana interval variable (`$__rate_interval`). */
const RANGE_TEXT = /^(?:(?:\d+(?:ms|s|m|h|d|w|y))+|\$\w+|\$\{\w+\})$/;

const same = (a: Labels, b: Labels): boolean => a.size === b.size && [...a].every((l) => b.has(l));
const minus = (a: Labels, drop: readonly string[]): Set<string> =>
  new Set([...a].filter((l) => !drop.includes(l)));
const show = (labels: Labels): string => `{${[...labels].sort().join(', ')}}`;

class Checker {
  readonly problems: string[] = [];
  readonly metrics = new Set<string>();
  constructor(private readonly catalog: SeriesCatalog) {}

  eval(node: PromqlNode): Value {
    switch (node.kind) {
      case 'number':
        return { type: 'scalar' };
      case 'string':
        return { type: 'string' };
      case 'unary':
        return this.eval(node.expr);
      case 'selector':
        return this.#selector(node);
      case 'call':
        return this.#call(node);
      case 'aggregate':
        return this.#aggregate(node);
      case 'binary':
        return this.#binary(node);
    }
  }

  /** The labels of an instant vector argument; a problem (and no labels) for anything else. */
  #vector(node: PromqlNode, where: string): Labels {
    const v = this.eval(node);
    if (v.type === 'vector') return v.labels;
    this.problems.push(`${where} needs an instant vector, got a ${v.type}`);
    return new Set();
  }

  #scalar(node: PromqlNode | undefined, where: string): void {
    if (node === undefined || this.eval(node).type !== 'scalar')
      this.problems.push(`${where} needs a scalar`);
  }

  #selector(node: Extract<PromqlNode, { kind: 'selector' }>): Value {
    const { name, matchers, range } = node;
    this.metrics.add(name);
    const labels = this.catalog.get(name);
    if (labels === undefined) {
      const histogram = this.catalog.has(`${name}_bucket`);
      this.problems.push(
        histogram
          ? `${name} is a histogram: select ${name}_bucket, _sum or _count`
          : `no series named ${name} in the scrape`,
      );
    }
    for (const { label, op, value } of matchers) {
      if (label === '__name__' || labels === undefined) continue;
      const values = labels.get(label);
      if (values === undefined) this.problems.push(`${name} has no label ${label}`);
      // A literal equality must name a value that exists; variables and regexes are not checked.
      else if (op === '=' && !value.includes('$') && !values.has(value))
        this.problems.push(`no ${name} series has ${label}="${value}"`);
    }
    const found = new Set(labels?.keys() ?? []);
    if (range === undefined) return { type: 'vector', labels: found };
    if (!RANGE_TEXT.test(range)) this.problems.push(`${name}[${range}]: not a duration`);
    return { type: 'matrix', labels: found };
  }

  #call(node: Extract<PromqlNode, { kind: 'call' }>): Value {
    const { fn, args } = node;
    const [first, ...rest] = args;
    if (RANGE_FUNCTIONS.has(fn)) {
      const v = first === undefined ? undefined : this.eval(first);
      if (v?.type !== 'matrix' || rest.length > 0) {
        this.problems.push(`${fn}() takes one range vector`);
        return { type: 'vector', labels: new Set() };
      }
      return { type: 'vector', labels: v.labels };
    }
    if (VECTOR_FUNCTIONS.has(fn)) {
      const labels = first === undefined ? new Set<string>() : this.#vector(first, `${fn}()`);
      for (const arg of rest) this.#scalar(arg, `${fn}()`);
      return { type: 'vector', labels };
    }
    switch (fn) {
      case 'histogram_quantile': {
        this.#scalar(first, 'histogram_quantile()');
        const labels = rest[0] === undefined ? new Set<string>() : this.#vector(rest[0], fn);
        if (!labels.has('le')) this.problems.push('histogram_quantile() over series without le');
        return { type: 'vector', labels: minus(labels, ['le']) };
      }
      case 'vector':
        this.#scalar(first, 'vector()');
        return { type: 'vector', labels: new Set() };
      case 'scalar':
        if (first !== undefined) this.#vector(first, 'scalar()');
        return { type: 'scalar' };
      case 'time':
        return { type: 'scalar' };
      default:
        this.problems.push(`unknown or unsupported function ${fn}()`);
        return { type: 'vector', labels: new Set() };
    }
  }

  #aggregate(node: Extract<PromqlNode, { kind: 'aggregate' }>): Value {
    const { op, grouping, param, expr } = node;
    if (param !== undefined) this.#scalar(param, `${op}()`);
    const input = this.#vector(expr, `${op}()`);
    for (const label of grouping?.labels ?? [])
      if (!input.has(label))
        this.problems.push(`${op} ${grouping?.mode} (${label}): no such label in ${show(input)}`);
    // topk and bottomk select series, they keep every label whatever the grouping.
    if (op === 'topk' || op === 'bottomk') return { type: 'vector', labels: input };
    if (grouping === undefined) return { type: 'vector', labels: new Set() };
    return {
      type: 'vector',
      labels: grouping.mode === 'by' ? new Set(grouping.labels) : minus(input, grouping.labels),
    };
  }

  #binary(node: Extract<PromqlNode, { kind: 'binary' }>): Value {
    const { op, matching, group } = node;
    const lhs = this.eval(node.lhs);
    const rhs = this.eval(node.rhs);
    if (
      lhs.type === 'matrix' ||
      rhs.type === 'matrix' ||
      lhs.type === 'string' ||
      rhs.type === 'string'
    ) {
      this.problems.push(`${op}: operands must be scalars or instant vectors`);
      return { type: 'vector', labels: new Set() };
    }
    if (lhs.type === 'scalar' && rhs.type === 'scalar') return { type: 'scalar' };
    if (lhs.type === 'scalar' || rhs.type === 'scalar') {
      if (SET_OPERATORS.has(op)) this.problems.push(`${op} needs two vectors`);
      return lhs.type === 'vector' ? lhs : rhs;
    }
    const where = `${op}${matching ? ` ${matching.mode}(${matching.labels.join(', ')})` : ''}`;
    for (const label of matching?.labels ?? []) {
      const onBoth = lhs.labels.has(label) && rhs.labels.has(label);
      const onEither = lhs.labels.has(label) || rhs.labels.has(label);
      if (matching?.mode === 'on' ? !onBoth : !onEither)
        this.problems.push(
          `${where}: ${label} is not a label of ${matching?.mode === 'on' ? 'both sides' : 'either side'}`,
        );
    }
    if (SET_OPERATORS.has(op))
      return {
        type: 'vector',
        labels: op === 'or' ? new Set([...lhs.labels, ...rhs.labels]) : lhs.labels,
      };
    // Series pair up when their labels, minus the ignored ones (or just the `on` ones), are the
    // same; group_left/right only lets several series of one side share a partner.
    if (group && matching === undefined)
      this.problems.push(
        `${op} ${group.side === 'left' ? 'group_left' : 'group_right'} needs on() or ignoring()`,
      );
    const ignored = matching?.mode === 'ignoring' ? matching.labels : [];
    const left = matching?.mode === 'on' ? new Set(matching.labels) : minus(lhs.labels, ignored);
    const right = matching?.mode === 'on' ? new Set(matching.labels) : minus(rhs.labels, ignored);
    if (!same(left, right))
      this.problems.push(
        `${where}: sides have labels ${show(lhs.labels)} and ${show(rhs.labels)}; no series would match`,
      );
    if (group) return { type: 'vector', labels: group.side === 'left' ? lhs.labels : rhs.labels };
    // One-to-one results keep the `on` labels, or the left side's labels minus the ignored ones.
    return { type: 'vector', labels: left };
  }
}

/** Checks `expr` against the scrape's series (see the file comment). */
export function checkQuery(expr: string, catalog: SeriesCatalog): QueryCheck {
  let node: PromqlNode;
  try {
    node = parsePromql(expr);
  } catch (err) {
    return {
      problems: [`does not parse: ${(err as Error).message}`],
      labels: undefined,
      metrics: [],
    };
  }
  const checker = new Checker(catalog);
  const result = checker.eval(node);
  if (result.type === 'matrix' || result.type === 'string')
    checker.problems.push(`the result is a ${result.type}, not an instant vector or scalar`);
  return {
    problems: checker.problems,
    labels: result.type === 'vector' ? result.labels : undefined,
    metrics: [...checker.metrics],
  };
}
