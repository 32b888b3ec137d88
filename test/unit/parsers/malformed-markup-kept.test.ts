/**
 * Call markup that does not parse comes back as the model wrote it, byte for byte, whole and
 * streamed: a section (or call) in which nothing parses is content with its markers, and when a
 * call beside it parses, every character not taken by that call and its markup is content. Every
 * parser of the catalog is tried with its own markers, parsed whole and streamed in pieces of 1 to
 * 7 characters, and the streamed result must be the whole one (content and calls).
 *
 * The broken JSON calls of the formats that stream arguments as they arrive (json, qwen, llama,
 * mistral, qwen_xml) break before the call's name is whole: one that breaks after its name was
 * streamed cannot be taken back (docs/parsers.md), which qwen.test.ts covers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolParserNamed } from '../../../src/parsers/catalog.js';
import { TOOL_PARSERS } from '../../../src/parsers/tool/registry.js';
import type { ToolCall, ToolParseResult } from '../../../src/parsers/types.js';
import { runStream } from './stream-property.js';

/** A reply with a call that parses, and the content and calls it must give. */
interface Mixed {
  text: string;
  content: string;
  calls: ToolCall[];
}

interface Family {
  /** The format's markers, each tried cut at every length at the end of a reply. */
  markers: string[];
  /** Replies in which no call parses: their content is the reply itself. */
  broken: string[];
  mixed: Mixed[];
}

const F = { name: 'f', arguments: '{"a": 1}' };
/** A call's arguments as the JSON formats give them (minified). */
const F_MIN = { name: 'f', arguments: '{"a":1}' };

const DS = {
  B: '<｜tool▁calls▁begin｜>',
  E: '<｜tool▁calls▁end｜>',
  CB: '<｜tool▁call▁begin｜>',
  CE: '<｜tool▁call▁end｜>',
  SEP: '<｜tool▁sep｜>',
};

/** DeepSeek V3 and V3.1 differ only in how a call reads between its markers. */
function deepseekFamily(call: (name: string, args: string) => string, unfinished: string): Family {
  const { B, E, CB, CE } = DS;
  return {
    markers: Object.values(DS),
    broken: [
      `${B}${call('f', '{"a": 1,}')}${E}`,
      `Before\n${B}\n${call('f', '{"a": ')}\n${call('g', 'nope')}\n${E}\nAfter\n`,
      `${B}garbage${E}`,
      `${B}${CB}garbage${CE}${E}`,
      `${B}${call('f', '{}')}`.slice(0, -CE.length),
      `${B}${unfinished}${E}`,
      `${B}\n`,
    ],
    // The section's markers go with the call that parses; the broken one stays, its markers with
    // it (SMG drops it, and the text after the section).
    mixed: [
      {
        text: `${B}${call('f', '{"a": 1}')}${call('g', '{"a": }')}${E}`,
        content: call('g', '{"a": }'),
        calls: [F],
      },
      {
        text: `${B}${call('g', '{bad}')}${call('f', '{"a": 1}')}${E}${B}${call('h', '[')}${E}`,
        content: `${call('g', '{bad}')}${B}${call('h', '[')}${E}`,
        calls: [F],
      },
      {
        text: `${B}${call('f', '{"a": 1}')}${E}`.slice(0, -3),
        content: E.slice(0, -3),
        calls: [F],
      },
    ],
  };
}

const KIMI = {
  B: '<|tool_calls_section_begin|>',
  E: '<|tool_calls_section_end|>',
  CB: '<|tool_call_begin|>',
  CE: '<|tool_call_end|>',
  AB: '<|tool_call_argument_begin|>',
};
const kimiCall = (name: string, args: string): string =>
  `${KIMI.CB}functions.${name}:0${KIMI.AB}${args}${KIMI.CE}`;

const glmFamily = (sep: string): Family => {
  const call = (name: string, pairs: string): string =>
    `<tool_call>${name}${sep}${pairs}</tool_call>`;
  const pair = `<arg_key>a</arg_key>${sep}<arg_value>1</arg_value>${sep}`;
  return {
    markers: ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_value>'],
    broken: [
      call('f', `${pair}garbage`),
      call('f', ` junk${pair}`),
      call('f', `<arg_key>a</arg_key>${sep}`),
      call('', pair),
      `Hi ${call('f', pair)}`.slice(0, -1),
      `<tool_call>f${sep}${pair}`,
    ],
    mixed: [
      {
        text: call('f', pair) + call('g', `${pair}x`),
        content: call('g', `${pair}x`),
        calls: [F_MIN],
      },
    ],
  };
};

/** Broken JSON calls between `open` and `close`, each broken before its name is read. */
const jsonBroken = (open: string, close: string): string[] => [
  `${open}\n{"arguments": {"a": 1,}, "name": "f"}\n${close}`,
  `${open}{"name": f}${close}`,
  `${open}{"name": 5, "arguments": {}}${close}`,
  `${open}garbage${close}`,
  `Hi ${open}\n{"name": "f`,
];

const QWEN_XML: Family = {
  markers: ['<tool_call>', '<function=', '<parameter='],
  broken: [
    '<tool_call>\n<function=>\n</function>\n</tool_call>',
    '<tool_call>\n<parameter=a>\n1\n</parameter>\n</tool_call>',
    '<tool_call>garbage</tool_call>',
    'Hi <tool_call>\n<function=get_wea',
    '<tool_call><function f></function></tool_call>',
  ],
  mixed: [
    {
      text: '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call><tool_call><function f></tool_call>',
      content: '<tool_call><function f></tool_call>',
      calls: [F_MIN],
    },
  ],
};

const FAMILIES: Record<string, Family> = {
  passthrough: {
    markers: ['<tool_call>'],
    broken: [`<tool_call>{"name": "f", "arguments": {}}</tool_call>`, `${DS.B}x`],
    mixed: [],
  },
  deepseek: deepseekFamily(
    (name, args) => `${DS.CB}function${DS.SEP}${name}\n\`\`\`json\n${args}\n\`\`\`${DS.CE}`,
    `${DS.CB}function${DS.SEP}f\n\`\`\`json\n{}\n\`\`\``,
  ),
  deepseek31: deepseekFamily(
    (name, args) => `${DS.CB}${name}${DS.SEP}${args}${DS.CE}`,
    `${DS.CB}f${DS.SEP}{}`,
  ),
  kimik2: {
    markers: Object.values(KIMI),
    broken: [
      `${KIMI.B}${kimiCall('f', '{"a": 1,}')}${KIMI.E}`,
      `Sure.\n${KIMI.B}\n${kimiCall('f', '{"a"')}\n${kimiCall('g', '[1]')}\n${KIMI.E}\nDone.`,
      `${KIMI.B}garbage${KIMI.E}`,
      `${KIMI.B}${KIMI.CB}functions.f${KIMI.AB}{}${KIMI.CE}${KIMI.E}`,
      `${KIMI.B}${kimiCall('f', '{}')}`.slice(0, -KIMI.CE.length),
      `${KIMI.B} `,
    ],
    mixed: [
      {
        text: `${KIMI.B}${kimiCall('f', '{"a": 1}')}${kimiCall('g', '{"a": }')}${KIMI.E}`,
        content: kimiCall('g', '{"a": }'),
        calls: [F],
      },
      {
        text: `${KIMI.B}${kimiCall('f', '{"a": 1}')}${KIMI.E}`.slice(0, -4),
        content: KIMI.E.slice(0, -4),
        calls: [F],
      },
    ],
  },
  glm45_moe: glmFamily('\n'),
  glm47_moe: glmFamily(''),
  qwen: {
    markers: ['<tool_call>', '</tool_call>'],
    broken: jsonBroken('<tool_call>', '</tool_call>'),
    mixed: [
      {
        text: `<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><tool_call>{"name": 5}</tool_call>`,
        content: '<tool_call>{"name": 5}</tool_call>',
        calls: [F_MIN],
      },
    ],
  },
  json: {
    markers: ['{', '['],
    broken: [
      '{"arguments": {"a": 1,}, "name": "f"}',
      'Use {"name": f} or [1, 2].',
      '{garbage}',
      '{"name": "f',
      '[{"name": 5}]',
    ],
    mixed: [
      {
        text: '{"name": "f", "arguments": {"a": 1}}{"name": 5}',
        content: '{"name": 5}',
        calls: [F_MIN],
      },
    ],
  },
  llama: {
    markers: ['<|python_tag|>'],
    broken: jsonBroken('<|python_tag|>', '').concat(['{"name": f}']),
    mixed: [
      {
        text: '<|python_tag|>{"name": "f", "parameters": {"a": 1}};{"name": 5}',
        content: ';{"name": 5}',
        calls: [F_MIN],
      },
    ],
  },
  mistral: {
    markers: ['[TOOL_CALLS]'],
    broken: jsonBroken('[TOOL_CALLS] [', ']').concat(['[TOOL_CALLS] garbage']),
    mixed: [
      {
        text: '[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}, {"name": 5}]',
        content: ', {"name": 5}]',
        calls: [F_MIN],
      },
    ],
  },
  // `qwen_coder` and `nemotron` are names of the same parser.
  qwen_xml: QWEN_XML,
  qwen_coder: QWEN_XML,
  nemotron: QWEN_XML,
  pythonic: {
    markers: ['<|python_start|>', '<|python_end|>', '[f('],
    broken: [
      '<|python_start|>[f(a=1,,)]<|python_end|>',
      'Sure <|python_start|>garbage<|python_end|> done',
      '<|python_start|>[f(a=1)',
      '<|python_start|> [f(a=1), g(b=)] <|python_end|>',
      'a <|python_end|> b <|python_start|> c',
    ],
    mixed: [
      {
        text: '<|python_start|>[f(a=1)]<|python_end|> [g(a=)]',
        content: ' [g(a=)]',
        calls: [F_MIN],
      },
    ],
  },
};

/** `text` in pieces of `size` characters (no reply here holds a surrogate pair). */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The whole parse of `text`, after checking that every chunking streams to the same result. */
function parseEverywhere(name: string, text: string): ToolParseResult {
  const parser = toolParserNamed(name);
  assert.ok(parser, name);
  const whole = parser.parse(text);
  for (let size = 1; size <= 7; size++) {
    const label = `${name}, pieces of ${size}: ${JSON.stringify(text)}`;
    assert.deepEqual(runStream(parser, pieces(text, size)), whole, label);
  }
  return whole;
}

test('every tool parser of the catalog has malformed replies here', () => {
  assert.deepEqual(Object.keys(FAMILIES).sort(), [...TOOL_PARSERS.keys()].sort());
});

for (const [name, family] of Object.entries(FAMILIES)) {
  test(`${name}: a reply in which no call parses is content exactly, whole and streamed`, () => {
    for (const text of family.broken) {
      assert.deepEqual(parseEverywhere(name, text), { content: text, calls: [] }, text);
    }
  });

  test(`${name}: a reply ending inside a marker, or just after one, is content exactly`, () => {
    for (const marker of family.markers) {
      for (let n = 1; n <= marker.length; n++) {
        const text = `Hi ${marker.slice(0, n)}`;
        assert.deepEqual(parseEverywhere(name, text), { content: text, calls: [] }, text);
      }
    }
  });

  test(`${name}: beside a call that parses, every other character is content`, () => {
    for (const { text, content, calls } of family.mixed) {
      assert.deepEqual(parseEverywhere(name, text), { content, calls }, text);
    }
  });
}
