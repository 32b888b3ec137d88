/**
 * Markup kept as content because it did not parse is still counted as a parse failure: the chat
 * output finds the parser's marker (`toolMarkerOf`) in the content, whole and streamed, now that
 * a broken section keeps its own markers around the call markers too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatOutput, parseChatAnswer, type ChatParsing } from '../../../src/grpc/chat-output.js';
import { chatToolsOf } from '../../../src/grpc/tools.js';
import { toolMarkerOf, toolParserNamed } from '../../../src/parsers/catalog.js';
import { TOOL_CALL_MARKERS } from '../../../src/parsers/tool/registry.js';

const XML = '<tool_call>{"name": f}</tool_call>';
const DEEPSEEK =
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1,}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';

/** A reply of each parser that has a marker, in which no call parses. */
const BROKEN: Record<string, string> = {
  qwen: XML,
  qwen_xml: '<tool_call><function=></function></tool_call>',
  qwen_coder: '<tool_call>garbage</tool_call>',
  nemotron: '<tool_call>\n<parameter=a>1</parameter>\n</tool_call>',
  llama: '<|python_tag|>{"name": f}',
  mistral: '[TOOL_CALLS] [{"name": f}]',
  deepseek: DEEPSEEK,
  deepseek31:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{bad}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  kimik2:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a"<|tool_call_end|><|tool_calls_section_end|>',
  glm45_moe: '<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\njunk</tool_call>',
  glm47_moe: '<tool_call>f junk</tool_call>',
};

const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };

function parsing(name: string, unparsed: string[]): ChatParsing {
  const info = chatToolsOf({ tools: [tool] });
  const parser = toolParserNamed(name);
  assert.ok(info && parser, name);
  const tools = { info, parser, marker: toolMarkerOf(name) };
  return { tools, model: 'm', onUnparsed: (parser) => unparsed.push(parser) };
}

test('every parser with a marker has a broken reply here', () => {
  assert.deepEqual(Object.keys(BROKEN).sort(), Object.keys(TOOL_CALL_MARKERS).sort());
});

for (const [name, broken] of Object.entries(BROKEN)) {
  test(`${name}: a broken reply is content as written and counted once, whole and streamed`, () => {
    const text = `Sure.\n${broken}\nDone.`;
    // The metric is labelled with the parser's own name (an alias counts as `qwen_xml`).
    const label = toolParserNamed(name)?.name;
    const unparsed: string[] = [];
    const whole = parseChatAnswer(text, parsing(name, unparsed));
    assert.equal(whole.content, text);
    assert.deepEqual(whole.toolCalls, []);
    assert.deepEqual(unparsed, [label]);
    for (let size = 1; size <= 7; size++) {
      const counted: string[] = [];
      const out = new ChatOutput(parsing(name, counted));
      let content = '';
      for (let i = 0; i < text.length; i += size)
        content += out.push(text.slice(i, i + size)).content;
      const last = out.finish();
      content += last.content;
      assert.equal(content, text, `pieces of ${size}`);
      assert.equal(out.calls, 0);
      assert.deepEqual(counted, [label], `pieces of ${size}`);
    }
  });
}
