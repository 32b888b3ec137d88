import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QwenXmlToolParser } from '../../../src/parsers/tool/qwen-xml.js';
import { paramValueJson } from '../../../src/parsers/tool/qwen-xml-value.js';
import { assertStreamsLikeParse, runStream } from './stream-property.js';

const parser = new QwenXmlToolParser();

test('a single call: parameters become a JSON object, values trimmed', () => {
  const text = `<tool_call>
<function=get_weather>
<parameter=city>
Beijing
</parameter>
<parameter=units>
celsius
</parameter>
</function>
</tool_call>`;
  assertStreamsLikeParse(parser, text, {
    content: '',
    calls: [{ name: 'get_weather', arguments: '{"city":"Beijing","units":"celsius"}' }],
  });
});

test('text before and after the calls is content; several calls in a row', () => {
  const text = `Let me help you with that.
<tool_call>
<function=search>
<parameter=query>rust programming</parameter>
</function>
</tool_call>
<tool_call><function=get_time></function></tool_call>
Done.`;
  assertStreamsLikeParse(parser, text, {
    content: 'Let me help you with that.\n\nDone.',
    calls: [
      { name: 'search', arguments: '{"query":"rust programming"}' },
      { name: 'get_time', arguments: '{}' },
    ],
  });
});

test('values that are JSON stay JSON, Python literals map, the rest are strings', () => {
  const text = `<tool_call>
<function=mixed>
<parameter=number>42</parameter>
<parameter=float> -1.5e3 </parameter>
<parameter=flag>true</parameter>
<parameter=py>True</parameter>
<parameter=none>None</parameter>
<parameter=nothing>null</parameter>
<parameter=obj>{"a": [1, 2], "b": "x \\"y\\""}</parameter>
<parameter=list>[1, "two", null]</parameter>
<parameter=quoted>"4"</parameter>
<parameter=empty></parameter>
<parameter=words>  hello world  </parameter>
<parameter=entities>Tom &amp; Jerry &lt;x&gt;</parameter>
</function>
</tool_call>`;
  const whole = assertStreamsLikeParse(parser, text);
  assert.deepEqual(JSON.parse(whole.calls[0]?.arguments ?? ''), {
    number: 42,
    float: -1500,
    flag: true,
    py: true,
    none: null,
    nothing: null,
    obj: { a: [1, 2], b: 'x "y"' },
    list: [1, 'two', null],
    quoted: '4',
    empty: '',
    words: 'hello world',
    entities: 'Tom &amp; Jerry &lt;x&gt;',
  });
});

test('a code value keeps its newlines, quotes, backslashes and even tag-like text', () => {
  const code =
    'def f(x):\n    print("a \\"b\\" \\\\ </function> <parameter=y>")\n    return {"k": x}';
  const text = `<tool_call>\n<function=write_file>\n<parameter=path>/tmp/a.py</parameter>\n<parameter=content>\n${code}\n</parameter>\n</function>\n</tool_call>`;
  const whole = assertStreamsLikeParse(parser, text);
  assert.deepEqual(JSON.parse(whole.calls[0]?.arguments ?? ''), {
    path: '/tmp/a.py',
    content: code,
  });
});

test('a repeated parameter keeps its first value; names are trimmed', () => {
  assertStreamsLikeParse(
    parser,
    '<tool_call><function= f ><parameter= a >1</parameter><parameter=a>2</parameter></function></tool_call>',
    { content: '', calls: [{ name: 'f', arguments: '{"a":1}' }] },
  );
});

test('a missing closing tag after </function> still makes the call', () => {
  assertStreamsLikeParse(
    parser,
    '<tool_call>\n<function=f>\n<parameter=a>x</parameter>\n</function>',
    {
      content: '',
      calls: [{ name: 'f', arguments: '{"a":"x"}' }],
    },
  );
});

test('malformed blocks stay in content', () => {
  for (const text of [
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    '<tool_call>\n<function=f>\n<parameter=a>1\n</function>\n</tool_call>',
    '<tool_call>\n<function=f>\n<parameter=a>1</parameter>\n',
    '<tool_call>\n<function=f>\nstray text\n</function>\n</tool_call>',
    '<tool_call>\n<function=>\n</function>\n</tool_call>',
    '<parameter=city>Beijing</parameter>\n</function>',
  ]) {
    assert.deepEqual(parser.parse(text), { content: text, calls: [] }, text);
  }
  for (const text of [
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    '<tool_call>\n<function=>\n</function>\n</tool_call>',
    'a <tool_call> b <function',
  ]) {
    assertStreamsLikeParse(parser, text, { content: text, calls: [] });
  }
});

test('each parameter streams once its closing tag arrives; the brace closes at </function>', () => {
  const stream = parser.stream();
  assert.deepEqual(stream.push('<tool_call>\n<function=get_wea'), { content: '', calls: [] });
  assert.deepEqual(stream.push('ther>\n<parameter=city>Par'), {
    content: '',
    calls: [{ index: 0, name: 'get_weather' }],
  });
  assert.deepEqual(stream.push('is</parameter>\n<parameter=days>3</param'), {
    content: '',
    calls: [{ index: 0, arguments: '{"city":"Paris"' }],
  });
  assert.deepEqual(stream.push('eter>\n</function>'), {
    content: '',
    calls: [{ index: 0, arguments: ',"days":3}' }],
  });
  assert.deepEqual(stream.push('\n</tool_call>'), { content: '', calls: [] });
  assert.deepEqual(stream.finish(), { content: '', calls: [] });
});

test('a streamed call cut off mid-parameter closes its arguments; the rest is content', () => {
  assert.deepEqual(
    runStream(parser, [
      '<tool_call>\n<function=f>\n<parameter=a>1</parameter>',
      '\n<parameter=b>unfinished',
    ]),
    { content: '\n<parameter=b>unfinished', calls: [{ name: 'f', arguments: '{"a":1}' }] },
  );
});

test('paramValueJson follows the JSON-else-string rule', () => {
  assert.equal(paramValueJson(' 1.50 '), '1.50');
  assert.equal(paramValueJson('{ "a" : 1 }'), '{"a":1}');
  assert.equal(paramValueJson('False'), 'false');
  assert.equal(paramValueJson('nope'), '"nope"');
  assert.equal(paramValueJson('-'), '"-"');
  assert.equal(paramValueJson('line "1"\nline 2'), '"line \\"1\\"\\nline 2"');
});
