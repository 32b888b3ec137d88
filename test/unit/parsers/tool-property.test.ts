/**
 * The stream property over generated answers: random calls (nested arguments, escapes, unicode,
 * markup-like strings) rendered in each format, with prose around them, must parse back to the
 * calls that were rendered, and stream the same under every split.
 */
import { test } from 'node:test';
import type { ToolCall, ToolParser, ToolParseResult } from '../../../src/parsers/types.js';
import { JsonToolParser } from '../../../src/parsers/tool/json.js';
import { LlamaToolParser } from '../../../src/parsers/tool/llama.js';
import { MistralToolParser } from '../../../src/parsers/tool/mistral.js';
import { QwenXmlToolParser } from '../../../src/parsers/tool/qwen-xml.js';
import { QwenToolParser } from '../../../src/parsers/tool/qwen.js';
import { assertStreamsLikeParse } from './stream-property.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let seed = 2024;
function random(n: number): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
}
function pick<T>(items: readonly T[]): T {
  const item = items[random(items.length)];
  if (item === undefined) throw new Error('empty pick');
  return item;
}

const STRINGS = [
  'Paris',
  'say "hi"',
  'C:\\temp\\new',
  'line 1\nline 2\ttab',
  'naïve café 世界 🌍',
  '</tool_call> <tool_call> [TOOL_CALLS] <|python_tag|> ; ] }',
  '',
];
const KEYS = ['city', 'query', 'options', 'a b', 'ключ', 'x"y'];

function value(depth: number): Json {
  switch (random(depth > 1 ? 4 : 6)) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick([0, -12, 3.25, 1e21]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick(STRINGS);
    case 4:
      return [value(depth + 1), value(depth + 1)];
    default:
      return object(depth + 1);
  }
}

function object(depth: number): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  const n = random(4);
  for (let i = 0; i < n; i++) out[pick(KEYS)] = value(depth);
  return out;
}

function call(): { name: string; args: { [key: string]: Json } } {
  return { name: pick(['get_weather', 'search', 'do_thing_2']), args: object(0) };
}

/** JSON as a model might lay it out: compact, or spread over lines. */
function render(v: Json): string {
  return random(2) === 0 ? JSON.stringify(v) : JSON.stringify(v, null, 2);
}

function jsonCall(c: ReturnType<typeof call>, argsKey: string): string {
  const sep = pick(['', ' ', '\n  ']);
  return `{${sep}"name": ${JSON.stringify(c.name)},${sep}"${argsKey}": ${render(c.args)}${sep}}`;
}

/** A string value the XML format carries as text (not JSON-looking, no edge whitespace). */
function xmlValue(v: Json): string {
  if (typeof v !== 'string') return JSON.stringify(v);
  if (v === '' || /^[[{"\-0-9tfn]/.test(v) || v !== v.trim()) return JSON.stringify(v);
  return v;
}

interface Format {
  parser: ToolParser;
  render(calls: ReturnType<typeof call>[]): string;
  /** Prose that cannot open a call in this format. */
  prose: readonly string[];
  proseBefore: boolean;
}

const PROSE = ['Sure, let me check.', 'a < b > c', 'Done 🌍.', 'two\nlines'];

const FORMATS: Format[] = [
  {
    parser: new JsonToolParser(),
    render: (calls) =>
      calls.length === 1 && random(2) === 0
        ? jsonCall(calls[0] ?? call(), 'arguments')
        : `[${calls.map((c) => jsonCall(c, pick(['arguments', 'parameters']))).join(',\n')}]`,
    prose: PROSE,
    proseBefore: true,
  },
  {
    parser: new QwenToolParser(),
    render: (calls) =>
      calls.map((c) => `<tool_call>\n${jsonCall(c, 'arguments')}\n</tool_call>`).join('\n'),
    prose: [...PROSE, 'see <tool> and [1]'],
    proseBefore: true,
  },
  {
    parser: new LlamaToolParser(),
    render: (calls) =>
      pick(['<|python_tag|>', '']) +
      calls.map((c) => jsonCall(c, 'parameters')).join(pick([';', '; ', ';\n'])),
    prose: [...PROSE, '{not json}'],
    proseBefore: false,
  },
  {
    parser: new MistralToolParser(),
    render: (calls) => `[TOOL_CALLS] [${calls.map((c) => jsonCall(c, 'arguments')).join(', ')}]`,
    prose: [...PROSE, '[1] {x}'],
    proseBefore: true,
  },
  {
    parser: new QwenXmlToolParser(),
    render: (calls) =>
      calls
        .map((c) => {
          const params = Object.entries(c.args).map(
            ([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>\n`,
          );
          return `<tool_call>\n<function=${c.name}>\n${params.join('')}</function>\n</tool_call>`;
        })
        .join('\n'),
    prose: [...PROSE, 'x <function=y> z'],
    proseBefore: true,
  },
];

for (const format of FORMATS) {
  test(`${format.parser.name}: generated answers parse back and stream alike under every split`, () => {
    for (let run = 0; run < 25; run++) {
      const calls = Array.from({ length: 1 + random(3) }, call);
      const before = format.proseBefore && random(2) === 0 ? pick(format.prose) : '';
      const after = random(2) === 0 ? pick(format.prose) : '';
      const text = `${before}${before ? '\n' : ''}${format.render(calls)}${after ? '\n' : ''}${after}`;
      const expected: ToolParseResult = {
        content: `${before}${before ? '\n' : ''}${after ? '\n' : ''}${after}`,
        calls: calls.map((c): ToolCall => ({ name: c.name, arguments: JSON.stringify(c.args) })),
      };
      assertStreamsLikeParse(format.parser, text, expected);
    }
  });
}
