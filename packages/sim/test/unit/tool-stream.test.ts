// A tool-parsed answer token by token: what the stream releases adds up to the whole answer (the
// same content and the same calls, however the text is split into tokens), a call's header comes
// with the token that closes its name, and whitespace around the markup opens nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolAnswer } from '../../src/tool-stream.js';
import { toolAnswer, toolCallHex } from '../../src/tool-stream.js';
import { answerTokens } from '../../src/text.js';

const CALL_A =
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2]}}\n</tool_call>';
const CALL_B = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>';
const ANSWERS = [
  CALL_A,
  `Let me check.\n${CALL_A}`,
  `${CALL_A}\n${CALL_B}`,
  `First.\n${CALL_A}\nand then\n${CALL_B}\nDone.`,
  // Compact JSON, arguments before the name.
  '<tool_call>{"arguments":{"q":"x y"},"name":"search"}</tool_call>',
];

const idOf = (k: number): string => `call_${k}`;

function splits(text: string): string[][] {
  return [answerTokens(text).map((t) => t.text), [...text], [text]];
}

/** What a client rebuilds from the stream: the content and each call's id, name and arguments. */
function reassemble(a: ToolAnswer): { content: string; calls: string[][] } {
  let content = '';
  const calls: string[][] = [];
  for (const step of a.steps) {
    content += step.content;
    for (const d of step.calls) {
      if (d.header !== undefined) calls[d.index] = [d.header.id, d.header.name, ''];
      const call = calls[d.index];
      assert.ok(call, 'arguments never come before their header');
      call[2] += d.arguments;
    }
  }
  return { content, calls };
}

void describe('toolAnswer', () => {
  void it('the stream adds up to the whole answer, whatever the token split', () => {
    for (const text of ANSWERS) {
      for (const tokens of splits(text)) {
        const a = toolAnswer(tokens, idOf);
        assert.ok(a, text);
        assert.equal(a.steps.length, tokens.length);
        const r = reassemble(a);
        assert.equal(r.content, a.content ?? '', text);
        assert.deepEqual(
          r.calls,
          a.calls.map((c) => [c.id, c.name, c.arguments]),
          text,
        );
      }
    }
  });

  void it('content is the text outside the markup, trimmed; null when only whitespace', () => {
    const tokens = (t: string): string[] => answerTokens(t).map((x) => x.text);
    assert.equal(toolAnswer(tokens(`\n${CALL_A}\n\n${CALL_B}\n`), idOf)?.content, null);
    assert.equal(
      toolAnswer(tokens(ANSWERS[3] ?? ''), idOf)?.content,
      'First.\n\nand then\n\nDone.',
    );
    const quiet = toolAnswer(tokens(`\n${CALL_A}\n`), idOf);
    assert.ok(
      quiet?.steps.every((s) => s.content === ''),
      'no whitespace-only content delta',
    );
  });

  void it('a call header comes with the token that closes the name, arguments after it', () => {
    const tokens = answerTokens(CALL_A).map((t) => t.text);
    const a = toolAnswer(tokens, idOf);
    const at = a?.steps.findIndex((s) => s.calls.some((d) => d.header !== undefined)) ?? -1;
    assert.equal(
      tokens
        .slice(0, at + 1)
        .join('')
        .endsWith('"get_weather"'),
      true,
    );
    assert.deepEqual(a?.steps[at]?.calls[0]?.header, { id: 'call_0', name: 'get_weather' });
    assert.equal(a?.steps[at]?.calls[0]?.arguments, '');
    // The arguments then come in more than one piece, as the raw JSON arrives.
    const pieces = a?.steps.flatMap((s) => s.calls).filter((d) => d.arguments !== '') ?? [];
    assert.ok(pieces.length > 3, `${pieces.length} pieces`);
  });

  void it('arguments that do not re-space to json.dumps come whole when the block closes', () => {
    const text = '<tool_call>\n{"name": "f", "arguments": {"c": "\\u00e9"}}\n</tool_call>';
    const a = toolAnswer(
      answerTokens(text).map((t) => t.text),
      idOf,
    );
    const pieces = a?.steps.flatMap((s) => s.calls).filter((d) => d.arguments !== '');
    assert.deepEqual(
      pieces?.map((d) => d.arguments),
      ['{"c": "é"}'],
    );
    assert.ok(a?.steps.at(-1)?.calls.length === 1, 'on the last token, `>` of </tool_call>');
  });

  void it('plain text, or markup that does not parse, is no tool answer', () => {
    assert.equal(toolAnswer(['Hello', ' world'], idOf), undefined);
    assert.equal(toolAnswer(['<tool_call>', '{"name": ', '</tool_call>'], idOf), undefined);
  });

  void it('call ids: 24 stable hex digits per output and index', () => {
    assert.match(toolCallHex('chatcmpl-w-1/0', 0), /^[0-9a-f]{24}$/);
    assert.equal(toolCallHex('chatcmpl-w-1/0', 0), toolCallHex('chatcmpl-w-1/0', 0));
    assert.notEqual(toolCallHex('chatcmpl-w-1/0', 0), toolCallHex('chatcmpl-w-1/0', 1));
    assert.notEqual(toolCallHex('chatcmpl-w-1/0', 0), toolCallHex('chatcmpl-w-1/1', 0));
  });
});
