// A request's thinking wish (Anthropic's `thinking`) set under the template's own toggle name:
// `enable_thinking` for Qwen3-style templates, a bare `thinking` for DeepSeek V3.1-style ones,
// nothing for a template without a toggle; explicit chat_template_kwargs still win.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatTemplate } from '../../../src/tokenizer/chat-template.js';

const QWEN_STYLE =
  '{% if enable_thinking is defined and enable_thinking is false %}off{% else %}on{% endif %}';
const DEEPSEEK_STYLE =
  '{% if not thinking is defined %}{% set thinking = false %}{% endif %}{% if thinking %}on{% else %}off{% endif %}';
const NO_TOGGLE = '{{ thinking_budget is defined }}';

function render(source: string, thinking: boolean | undefined, kwargs?: Record<string, unknown>) {
  const template = new ChatTemplate(source, 'test');
  return template.render(
    { messages: [], addGenerationPrompt: false, thinking, chatTemplateKwargs: kwargs },
    {},
  );
}

void describe('chat template thinking toggle', () => {
  void it('finds the toggle variable the template reads', () => {
    assert.equal(new ChatTemplate(QWEN_STYLE, 'q').thinkingKey, 'enable_thinking');
    assert.equal(new ChatTemplate(DEEPSEEK_STYLE, 'd').thinkingKey, 'thinking');
    assert.equal(new ChatTemplate(NO_TOGGLE, 'n').thinkingKey, undefined);
  });

  void it('sets it from the request, leaves the default when unset, and yields to kwargs', () => {
    assert.equal(render(QWEN_STYLE, undefined), 'on');
    assert.equal(render(QWEN_STYLE, false), 'off');
    assert.equal(render(QWEN_STYLE, true), 'on');
    assert.equal(render(DEEPSEEK_STYLE, undefined), 'off');
    assert.equal(render(DEEPSEEK_STYLE, true), 'on');
    assert.equal(render(QWEN_STYLE, false, { enable_thinking: true }), 'on');
    // A template without a toggle gets no stray variable.
    assert.equal(render(NO_TOGGLE, true), 'false');
  });
});
