// Hermes/Qwen `<tool_call>` markup read as the engines' tool parsers read it: each block's JSON,
// the arguments re-serialized with Python's separators, where the parts sit in the text, and the
// whole text left as content when any block is not a call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findToolCalls, pythonJson } from '../../src/tool-markup.js';

const block = (json: string): string => `<tool_call>\n${json}\n</tool_call>`;

void describe('findToolCalls', () => {
  void it('reads one call: name, Python-spaced arguments, input and offsets', () => {
    const text = `Let me look.\n${block('{"name": "get_weather", "arguments": {"city":"Paris","days":[1,2]}}')}`;
    const [call, ...rest] = findToolCalls(text) ?? [];
    assert.equal(rest.length, 0);
    assert.ok(call);
    assert.equal(call.name, 'get_weather');
    assert.equal(call.arguments, '{"city": "Paris", "days": [1, 2]}');
    assert.deepEqual(call.input, { city: 'Paris', days: [1, 2] });
    assert.equal(text.slice(call.start, call.end), text.slice(text.indexOf('<tool_call>')));
    assert.equal(text.slice(0, call.nameEnd).endsWith('"get_weather"'), true);
    assert.equal(text.slice(call.argsStart, call.argsEnd), '{"city":"Paris","days":[1,2]}');
    // Raw value and re-serialization differ only in spacing: every raw character maps.
    assert.equal(call.settled?.length, call.argsEnd - call.argsStart + 1);
    assert.equal(call.settled?.at(-1), call.arguments.length);
  });

  void it('reads several calls in order, with text between them', () => {
    const text = `${block('{"name": "a", "arguments": {}}')}\nthen\n${block('{"name": "b", "arguments": {"x": 1}}')}`;
    const calls = findToolCalls(text) ?? [];
    assert.deepEqual(
      calls.map((c) => [c.name, c.arguments]),
      [
        ['a', '{}'],
        ['b', '{"x": 1}'],
      ],
    );
    assert.ok((calls[0]?.end ?? 0) < (calls[1]?.start ?? 0));
  });

  void it("takes SGLang's `parameters`, and no arguments as {}", () => {
    assert.equal(
      findToolCalls(block('{"name": "f", "parameters": {"q": "x"}}'))?.[0]?.arguments,
      '{"q": "x"}',
    );
    const bare = findToolCalls(block('{"name": "f"}'))?.[0];
    assert.deepEqual([bare?.arguments, bare?.input], ['{}', {}]);
    assert.equal(bare?.settled, undefined, 'released when the block closes');
  });

  void it('leaves the whole text as content when any block is not a call', () => {
    const good = block('{"name": "f", "arguments": {}}');
    for (const text of [
      'no markup at all',
      block('{"name": "f", "arguments": {'),
      block('{"arguments": {}}'),
      block('{"name": 3, "arguments": {}}'),
      block('{"name": "f", "arguments": "{}"}'),
      block('["f"]'),
      `${good}\n<tool_call>\n{"name": "g", "arguments": {}}`,
      `${good}${block('not json')}`,
    ]) {
      assert.equal(findToolCalls(text), undefined, text);
    }
  });

  void it('arguments spelled differently from json.dumps still parse, whole at the end', () => {
    const call = findToolCalls(
      block('{"name": "f", "arguments": {"c": "\\u00e9", "n": 1.50}}'),
    )?.[0];
    assert.equal(call?.arguments, '{"c": "é", "n": 1.5}');
    assert.equal(call?.settled, undefined);
  });
});

void describe('pythonJson', () => {
  void it("writes json.dumps(value, ensure_ascii=False)'s text", () => {
    assert.equal(
      pythonJson({ a: [1, { b: null }], s: 'é "q"\n', t: true, e: {}, l: [] }),
      '{"a": [1, {"b": null}], "s": "é \\"q\\"\\n", "t": true, "e": {}, "l": []}',
    );
  });
});
