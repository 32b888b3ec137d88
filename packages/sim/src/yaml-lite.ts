// A deliberately small YAML subset, enough for fleet files without a dependency: block mappings,
// block sequences (of scalars or mappings), `#` comments, and scalars (integers, floats,
// true/false, null/~, 'single' or "double" quoted strings, plain strings). No anchors, tags,
// flow collections or multi-line strings; anything outside the subset is a clear error.

interface Line {
  indent: number;
  text: string;
  no: number;
}

export class YamlError extends Error {}

export function parseYamlLite(source: string): unknown {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, i) => {
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '' || text.trim() === '---') return;
    if (/^\s*\t/.test(raw))
      throw new YamlError(`line ${i + 1}: tabs are not allowed for indentation`);
    lines.push({
      indent: text.length - text.trimStart().length,
      text: text.trimStart(),
      no: i + 1,
    });
  });
  if (lines.length === 0) return null;
  const state = { i: 0 };
  const value = parseBlock(lines, state, lines[0]?.indent ?? 0);
  const extra = lines[state.i];
  if (extra !== undefined) throw new YamlError(`line ${extra.no}: unexpected indentation`);
  return value;
}

function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i);
    }
  }
  return line;
}

function parseBlock(lines: Line[], state: { i: number }, indent: number): unknown {
  const first = lines[state.i];
  if (first === undefined) return null;
  return first.text === '-' || first.text.startsWith('- ')
    ? parseSequence(lines, state, indent)
    : parseMapping(lines, state, indent);
}

function parseSequence(lines: Line[], state: { i: number }, indent: number): unknown[] {
  const out: unknown[] = [];
  for (let line = lines[state.i]; line?.indent === indent; line = lines[state.i]) {
    if (!(line.text === '-' || line.text.startsWith('- '))) {
      throw new YamlError(`line ${line.no}: expected a '- ' item`);
    }
    const rest = line.text.slice(1).trimStart();
    if (rest === '') {
      state.i++;
      const next = lines[state.i];
      out.push(
        next !== undefined && next.indent > indent ? parseBlock(lines, state, next.indent) : null,
      );
    } else if (keyValue(rest) !== undefined) {
      // "- key: value": the item is a mapping whose keys sit where this key starts.
      const column = indent + (line.text.length - rest.length);
      lines[state.i] = { indent: column, text: rest, no: line.no };
      out.push(parseMapping(lines, state, column));
    } else {
      out.push(scalar(rest, line.no));
      state.i++;
    }
  }
  return out;
}

function parseMapping(
  lines: Line[],
  state: { i: number },
  indent: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let line = lines[state.i]; line?.indent === indent; line = lines[state.i]) {
    const kv = keyValue(line.text);
    if (kv === undefined) throw new YamlError(`line ${line.no}: expected 'key: value'`);
    if (Object.hasOwn(out, kv.key))
      throw new YamlError(`line ${line.no}: duplicate key '${kv.key}'`);
    state.i++;
    if (kv.value !== '') {
      out[kv.key] = scalar(kv.value, line.no);
      continue;
    }
    const next = lines[state.i];
    // A sequence may sit at the same indentation as its key, as YAML allows.
    const nested =
      next !== undefined &&
      (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')));
    out[kv.key] = nested ? parseBlock(lines, state, next.indent) : null;
  }
  return out;
}

function keyValue(text: string): { key: string; value: string } | undefined {
  const m = /^("[^"]*"|'[^']*'|[^'"\s][^:]*?)\s*:(?:\s+(.*))?$/.exec(text);
  if (m === null) return undefined;
  const rawKey = m[1] ?? '';
  const key = /^["']/.test(rawKey) ? rawKey.slice(1, -1) : rawKey;
  return { key, value: (m[2] ?? '').trim() };
}

function scalar(text: string, no: number): unknown {
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2)
      throw new YamlError(`line ${no}: unterminated string`);
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2)
      throw new YamlError(`line ${no}: unterminated string`);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[[{&*!|>]/.test(text))
    throw new YamlError(`line ${no}: '${text}' is outside the YAML subset`);
  if (text === 'null' || text === '~') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}
