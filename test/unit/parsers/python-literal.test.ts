import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCallList } from '../../../src/parsers/tool/python-literal.js';

/** The calls of `text` as [name, parsed arguments], checking every shorter prefix waits for more. */
function calls(text: string): [string, unknown][] {
  for (let at = 0; at < text.length; at++) {
    assert.deepEqual(readCallList(text.slice(0, at)), { kind: 'incomplete' }, text.slice(0, at));
  }
  const read = readCallList(text);
  assert.equal(read.kind, 'calls', text);
  if (read.kind !== 'calls') return [];
  assert.equal(read.end, text.length);
  return read.calls.map((c) => [c.name, JSON.parse(c.arguments)]);
}

/** The arguments text of a one-call list. */
function argumentsOf(text: string): string {
  const read = readCallList(text);
  assert.equal(read.kind, 'calls', text);
  return read.kind === 'calls' ? (read.calls[0]?.arguments ?? '') : '';
}

test('python literal: SMG’s shapes of calls', () => {
  assert.deepEqual(calls('[get_weather(city="London", units="celsius")]'), [
    ['get_weather', { city: 'London', units: 'celsius' }],
  ]);
  assert.deepEqual(
    calls('[search_web(query="Rust programming", max_results=5), get_time(timezone="UTC")]'),
    [
      ['search_web', { query: 'Rust programming', max_results: 5 }],
      ['get_time', { timezone: 'UTC' }],
    ],
  );
  assert.deepEqual(calls('[configure(enabled=True, disabled=False, optional=None)]'), [
    ['configure', { enabled: true, disabled: false, optional: null }],
  ]);
  assert.deepEqual(
    calls('[process_data(items=[1, 2, 3], config={"key": "value", "nested": {"deep": True}})]'),
    [['process_data', { items: [1, 2, 3], config: { key: 'value', nested: { deep: true } } }]],
  );
  assert.deepEqual(calls('[math_eval(expression="(2 + 3) * (4 - 1)", round_to=2)]'), [
    ['math_eval', { expression: '(2 + 3) * (4 - 1)', round_to: 2 }],
  ]);
  assert.deepEqual(calls('[ping()]'), [['ping', {}]]);
  assert.deepEqual(calls('[process_matrix(data=[[1, 2], [3, 4]], labels=["row[0]", "row[1]"])]'), [
    [
      'process_matrix',
      {
        data: [
          [1, 2],
          [3, 4],
        ],
        labels: ['row[0]', 'row[1]'],
      },
    ],
  ]);
  assert.deepEqual(
    calls(`[ transform(\n  matrix=[[1, [2, 3]]],\n  ops=[{"t": "scale"}],\n) ,\n]`),
    [['transform', { matrix: [[1, [2, 3]]], ops: [{ t: 'scale' }] }]],
  );
});

test('python literal: strings in either quote, escaped, triple-quoted, raw, bytes, joined', () => {
  assert.deepEqual(calls(String.raw`[f(a='It\'s', b="She said \"Hi\"", c='say "x"')]`), [
    ['f', { a: "It's", b: 'She said "Hi"', c: 'say "x"' }],
  ]);
  assert.deepEqual(calls(String.raw`[f(a="\x41\u00e9\U0001F600\101\n\t\\", b="\d\q")]`), [
    ['f', { a: 'Aé😀A\n\t\\', b: '\\d\\q' }],
  ]);
  assert.deepEqual(calls(`[f(code="""print("hi")\n'x'""", s='''a''')]`), [
    ['f', { code: `print("hi")\n'x'`, s: 'a' }],
  ]);
  assert.deepEqual(calls(String.raw`[f(p=r"C:\new\"", q=R'\d+')]`), [
    ['f', { p: 'C:\\new\\"', q: '\\d+' }],
  ]);
  assert.deepEqual(calls(String.raw`[f(b=b"caf\xc3\xa9", bad=rb"\xff", lossy=b"\xff")]`), [
    ['f', { b: 'café', bad: '\\xff', lossy: '\uFFFD' }],
  ]);
  assert.deepEqual(calls(`[f(s="a" 'b'\n  u"c", e="", t="line \\\ncontinued")]`), [
    ['f', { s: 'abc', e: '', t: 'line continued' }],
  ]);
});

test('python literal: numbers keep their value; past 64 bits they become strings, as in SMG', () => {
  assert.equal(
    argumentsOf(
      '[f(a=-3, b=+2, c=0x1F, d=0o17, e=0b101, f=1_000, g=-1.5e3, h=.5, i=5., j=- 0, k=00)]',
    ),
    '{"a":-3,"b":2,"c":31,"d":15,"e":5,"f":1000,"g":-1500,"h":0.5,"i":5,"j":0,"k":0}',
  );
  assert.equal(
    argumentsOf('[f(a=18446744073709551615, b=18446744073709551616, c=-9223372036854775808)]'),
    '{"a":18446744073709551615,"b":"18446744073709551616","c":"-9223372036854775808"}',
  );
  assert.equal(argumentsOf('[f(a=-9223372036854775807)]'), '{"a":-9223372036854775807}');
});

test('python literal: tuples, dict keys, repeated dict keys, and bare names', () => {
  assert.equal(
    argumentsOf(
      '[f(t=(1, "a"), one=(1,), empty=(), paren=(5), d={1: "x", True: 2, None: 3, k: 4})]',
    ),
    '{"t":[1,"a"],"one":[1],"empty":[],"paren":5,"d":{"1":"x","true":2,"null":3,"k":4}}',
  );
  assert.equal(argumentsOf('[f(d={"a": 1, "b": 2, "a": 3})]'), '{"d":{"a":3,"b":2}}');
  assert.equal(argumentsOf('[f(unit=celsius)]'), '{"unit":"celsius"}');
});

test('python literal: what is not a list of keyword calls on literals is invalid', () => {
  for (const text of [
    '[]',
    '[1, 2]',
    '[f(1)]',
    '[f(x)]',
    '[f(=1)]',
    '[f(x==1)]',
    '[f(x=1, x=2)]',
    '[f(**kw)]',
    '[f(x=g())]',
    '[f(x=a.b)]',
    '[f(x=1 + 2)]',
    '[f(x=f"{y}")]',
    '[f(x={1, 2})]',
    '[f(x={[1]: 2})]',
    '[f(x=-True)]',
    '[f(x=007)]',
    '[f(x=1e999)]',
    '[f(x=2j)]',
    '[f(x=1.2.3)]',
    '[f(x="a\nb")]',
    '[f(x="\\N{BULLET}")]',
    '[f(x="a" b"c")]',
    '[f(x=1) g(y=2)]',
    '[mod.f(x=1)]',
    `[f(x=${'['.repeat(300)}${']'.repeat(300)})]`,
  ]) {
    assert.deepEqual(readCallList(text), { kind: 'invalid' }, text);
  }
});

test('python literal: text after the list is not read', () => {
  assert.deepEqual(readCallList('[f(x=1)] and [more'), {
    kind: 'calls',
    calls: [{ name: 'f', arguments: '{"x":1}' }],
    end: 8,
  });
});
