// The split of a chat sample's text with real parsers: where reasoning starts, constrained JSON
// read back (or left as content however odd it is), and the same result streamed and whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatOutput, parseChatAnswer, type ChatParsing } from '../../../src/grpc/chat-output.js';
import { endsInsideBlock } from '../../../src/grpc/chat-parsing.js';
import { chatToolsOf } from '../../../src/grpc/tools.js';
import { reasoningParserNamed, toolParserNamed } from '../../../src/parsers/catalog.js';

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object' } },
};

test('a prompt ends inside a block only when its last start tag closes it off', () => {
  assert.equal(endsInsideBlock('<|Assistant|><think>\n', '<think>'), true);
  assert.equal(endsInsideBlock('<think>\n\n</think>\n\n', '<think>'), false);
  assert.equal(
    endsInsideBlock('user: what does a <think> tag do?\nassistant:\n', '<think>'),
    false,
    'a tag the user mentions is not the template opening a block',
  );
  assert.equal(endsInsideBlock('no tags', '<think>'), false);
});

test('a named choice reads the JSON back as that call, its text kept as written', () => {
  const info = chatToolsOf({
    tools: [weather],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
  });
  assert.ok(info);
  const p: ChatParsing = { tools: { info, parser: undefined }, model: 'm' };
  const text = '{"big": 12345678901234567890, "x": 1.0}';
  const whole = parseChatAnswer(text, p);
  assert.equal(whole.content, '');
  assert.equal(whole.toolCalls[0]?.function.arguments, text);
});

test('constrained JSON too deep to serialize is content, counted, never thrown', () => {
  const info = chatToolsOf({ tools: [weather], tool_choice: 'required' });
  assert.ok(info);
  const unparsed: string[] = [];
  const p: ChatParsing = {
    tools: { info, parser: undefined },
    model: 'm',
    onUnparsed: (name) => unparsed.push(name),
  };
  const deep = `[{"name":"get_weather","parameters":${'['.repeat(5000)}${']'.repeat(5000)}}]`;
  const whole = parseChatAnswer(deep, p);
  assert.equal(whole.content, deep);
  assert.deepEqual(whole.toolCalls, []);
  const stream = new ChatOutput(p);
  const got = stream.pushLast(deep);
  assert.equal(got.content, deep);
  assert.deepEqual(unparsed, ['json', 'json']);
});

test('reasoning then tool calls: streamed piece by piece equals the whole split', () => {
  const info = chatToolsOf({ tools: [weather] });
  const reasoning = reasoningParserNamed('qwen3');
  const tool = toolParserNamed('qwen');
  assert.ok(info && reasoning && tool);
  const p: ChatParsing = {
    reasoning: { parser: reasoning, start: { inReasoning: false } },
    tools: { info, parser: tool },
    model: 'm',
  };
  const text =
    '<think>look it up</think>Sure.<tool_call>\n{"name": "get_weather", "arguments": {"q": "a"}}\n</tool_call>';
  const whole = parseChatAnswer(text, p);
  for (let size = 1; size <= 7; size++) {
    const s = new ChatOutput(p);
    let reasoningText = '';
    let content = '';
    const args: string[] = [];
    const names: string[] = [];
    for (let i = 0; i < text.length; i += size) {
      const d =
        i + size >= text.length ? s.pushLast(text.slice(i)) : s.push(text.slice(i, i + size));
      reasoningText += d.reasoning;
      content += d.content;
      for (const c of d.toolCalls) {
        if (c.function.name !== undefined) names.push(c.function.name);
        args[c.index] = (args[c.index] ?? '') + c.function.arguments;
      }
    }
    assert.equal(reasoningText, whole.reasoning, `size ${size}`);
    assert.equal(content, whole.content, `size ${size}`);
    assert.deepEqual(names, ['get_weather']);
    assert.deepEqual(args, [whole.toolCalls[0]?.function.arguments]);
    assert.equal(s.calls, 1);
  }
});
