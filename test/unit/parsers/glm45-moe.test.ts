import assert from 'node:assert/strict';
import { test } from 'node:test';
import { glm45MoeToolParser, glm47MoeToolParser } from '../../../src/parsers/tool/glm45-moe.js';
import { assertEverySplitMatches } from './stream-split-check.js';

/** A GLM-4.5 call: one line for the name, one per tag. */
const call45 = (name: string, pairs: [string, string][]): string =>
  `<tool_call>${name}\n${pairs.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`).join('')}</tool_call>`;
/** A GLM-4.7 call: no line breaks. */
const call47 = (name: string, pairs: [string, string][]): string =>
  `<tool_call>${name}${pairs.map(([k, v]) => `<arg_key>${k}</arg_key><arg_value>${v}</arg_value>`).join('')}</tool_call>`;

for (const [parser, call] of [
  [glm45MoeToolParser, call45],
  [glm47MoeToolParser, call47],
] as const) {
  const tag = parser.name;

  test(`${tag}: one call between text`, () => {
    const text = `Let me search for that.\n${call('get_weather', [
      ['city', 'Beijing'],
      ['date', '2024-12-25'],
    ])}\nThe weather will be...`;
    assert.deepEqual(assertEverySplitMatches(parser, text), {
      content: 'Let me search for that.\n\nThe weather will be...',
      calls: [{ name: 'get_weather', arguments: '{"city":"Beijing","date":"2024-12-25"}' }],
    });
  });

  test(`${tag}: several calls; the line breaks between them are layout`, () => {
    const text = `${call('search', [['query', 'rust tutorials']])}\n${call('translate', [
      ['text', 'Hello World'],
      ['target_lang', 'zh'],
    ])}\n`;
    assert.deepEqual(assertEverySplitMatches(parser, text), {
      content: '',
      calls: [
        { name: 'search', arguments: '{"query":"rust tutorials"}' },
        { name: 'translate', arguments: '{"text":"Hello World","target_lang":"zh"}' },
      ],
    });
  });

  test(`${tag}: values are JSON as written, then Python literals, loose numbers, else text`, () => {
    const text = call('process', [
      ['count', '42'],
      ['rate', ' 1.5 '],
      ['enabled', 'true'],
      ['data', 'null'],
      ['py', 'True'],
      ['none', 'None'],
      ['off', 'False'],
      ['plus', '+5'],
      ['zeros', '007'],
      ['half', '.5'],
      ['big', '9007199254740993'],
      ['quoted', '"4"'],
      ['text', 'string value'],
      ['inf', 'inf'],
      ['empty', ''],
      ['nested', '{"nested": {"key": "value", "say": "\\"hi\\""}}'],
      ['list', '[1, 2, 3]'],
    ]);
    const result = assertEverySplitMatches(parser, text, { randomCuts: 10 });
    assert.equal(result.calls[0]?.name, 'process');
    assert.equal(
      result.calls[0]?.arguments,
      '{"count":42,"rate":1.5,"enabled":true,"data":null,"py":true,"none":null,"off":false,' +
        '"plus":5,"zeros":7,"half":0.5,"big":9007199254740993,"quoted":"4","text":"string value",' +
        '"inf":"inf","empty":"","nested":{"nested": {"key": "value", "say": "\\"hi\\""}},' +
        '"list":[1, 2, 3]}',
    );
  });

  test(`${tag}: no arguments; a repeated key keeps its first place and last value`, () => {
    const text = `${call('ping', [])}${call('f', [
      ['a', '1'],
      ['b', '2'],
      ['a', '3'],
    ])}`;
    assert.deepEqual(assertEverySplitMatches(parser, text), {
      content: '',
      calls: [
        { name: 'ping', arguments: '{}' },
        { name: 'f', arguments: '{"a":3,"b":2}' },
      ],
    });
  });

  test(`${tag}: a call with no name stays in content; so does an unfinished one`, () => {
    const bad = '<tool_call><arg_key>a</arg_key><arg_value>1</arg_value></tool_call>';
    assert.deepEqual(assertEverySplitMatches(parser, `${bad}${call('ok', [])}`), {
      content: bad,
      calls: [{ name: 'ok', arguments: '{}' }],
    });
    const unfinished = `Hi ${call('get_weather', [['city', 'Paris']]).slice(0, -5)}`;
    assert.deepEqual(assertEverySplitMatches(parser, unfinished), {
      content: unfinished,
      calls: [],
    });
  });
}

test('glm45_moe: the name ends at the line break; a one-line call of no arguments is taken', () => {
  const text = '<tool_call> get_time </tool_call><tool_call>f x\n</tool_call>';
  assert.deepEqual(glm45MoeToolParser.parse(text), {
    content: '',
    calls: [
      { name: 'get_time', arguments: '{}' },
      { name: 'f x', arguments: '{}' },
    ],
  });
  const glued = '<tool_call>f<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>';
  assert.deepEqual(glm45MoeToolParser.parse(glued), { content: glued, calls: [] });
});

test('glm47_moe: the name ends at the first tag or whitespace', () => {
  const text =
    '<tool_call>\nget_time\n</tool_call><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>';
  assert.deepEqual(glm47MoeToolParser.parse(text), {
    content: '',
    calls: [
      { name: 'get_time', arguments: '{}' },
      { name: 'f', arguments: '{"a":1}' },
    ],
  });
});
