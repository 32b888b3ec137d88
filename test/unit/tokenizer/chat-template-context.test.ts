// What a chat template sees: keys left out of the context are undefined (so `is defined` guards
// work) rather than none, special tokens only when the tokenizer has them, kwargs on top,
// raise_exception as a ChatTemplateError, tojson as HF's Python json.dumps, content parts kept
// for a template that iterates them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatTemplate } from '../../../src/tokenizer/chat-template.js';
import { ChatTemplateError } from '../../../src/tokenizer/types.js';

const user = (content: unknown): Record<string, unknown> => ({ role: 'user', content });

function render(
  source: string,
  input: Partial<Parameters<ChatTemplate['render']>[0]> = {},
): string {
  return new ChatTemplate(source, 'test').render(
    { messages: [user('hi')], addGenerationPrompt: false, ...input },
    { eos_token: '</s>' },
  );
}

void describe('chat template context', () => {
  it('leaves tools, documents and absent special tokens undefined, not none', () => {
    const src =
      '{% if tools is defined %}T{% else %}t{% endif %}' +
      '{% if documents is defined %}D{% else %}d{% endif %}' +
      '{% if bos_token is defined %}B{% else %}b{% endif %}' +
      '{% if eos_token is defined %}{{ eos_token }}{% endif %}';
    assert.equal(render(src), 'tdb</s>');
    assert.equal(render(src, { tools: [], documents: [{ text: 'x' }] }), 'TDb</s>');
  });

  it('merges chat_template_kwargs over the context', () => {
    const src = '{{ add_generation_prompt }} {{ custom }} {{ eos_token }}';
    assert.equal(
      render(src, { chatTemplateKwargs: { custom: 'yes', eos_token: '<eos>' } }),
      'false yes <eos>',
    );
  });

  it('raise_exception becomes a ChatTemplateError with the template message', () => {
    const src =
      "{% if messages[0].role != 'system' %}{{ raise_exception('system first') }}{% endif %}";
    assert.throws(
      () => render(src),
      (err: unknown) => {
        assert.ok(err instanceof ChatTemplateError);
        assert.equal(err.message, 'system first');
        return true;
      },
    );
  });

  it('a template that does not parse is a ChatTemplateError naming it', () => {
    assert.throws(() => new ChatTemplate('{% if %}', 'x.jinja'), /x\.jinja does not parse/);
  });

  it('tojson takes indent, sort_keys, separators and ensure_ascii as json.dumps does', () => {
    const value = { b: 1, a: [1, 2], e: {}, s: 'é☃😀' };
    const cases: [string, string][] = [
      ['{{ v | tojson }}', '{"b": 1, "a": [1, 2], "e": {}, "s": "é☃😀"}'],
      [
        '{{ v | tojson(indent=2) }}',
        '{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ],\n  "e": {},\n  "s": "é☃😀"\n}',
      ],
      ['{{ v | tojson(sort_keys=true) }}', '{"a": [1, 2], "b": 1, "e": {}, "s": "é☃😀"}'],
      ["{{ v | tojson(separators=(',', ':')) }}", '{"b":1,"a":[1,2],"e":{},"s":"é☃😀"}'],
      ['{{ v.s | tojson(ensure_ascii=true) }}', '"\\u00e9\\u2603\\ud83d\\ude00"'],
    ];
    for (const [src, expected] of cases) {
      assert.equal(render(src, { chatTemplateKwargs: { v: value } }), expected, src);
    }
  });

  it('keeps content parts for a template that iterates message content', () => {
    const src =
      '{% for m in messages %}{% for part in m.content %}[{{ part.text }}]{% endfor %}{% endfor %}';
    const parts = [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ];
    assert.equal(render(src, { messages: [user(parts)] }), '[a][b]');
    // The same parts joined with a newline (SMG's and vLLM's joiner) for a template that prints
    // content as a string.
    assert.equal(render('{{ messages[0].content }}', { messages: [user(parts)] }), 'a\nb');
  });
});
