// The `<sim-answer>` directive of a prompt: the last complete one, exactly; and a prompt with no
// token that can hold the tag's '-' is not decoded at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastDirective, promptDirective } from '../../src/answer-directive.js';
import { loadSimTokenizer } from '../../src/sim-tokenizer.js';

void describe('answer directive', () => {
  void it('the last complete <sim-answer>, exactly as written', () => {
    assert.equal(lastDirective('say <sim-answer>hi</sim-answer>'), 'hi');
    assert.equal(
      lastDirective('<sim-answer>a</sim-answer> x <sim-answer>b\n c</sim-answer>'),
      'b\n c',
    );
    assert.equal(lastDirective('<sim-answer></sim-answer>'), '');
    assert.equal(
      lastDirective('<sim-answer><tool_call>{"a": 1}</tool_call></sim-answer>'),
      '<tool_call>{"a": 1}</tool_call>',
    );
    assert.equal(lastDirective('<sim-answer>a</sim-answer> then <sim-answer>open'), 'a');
    assert.equal(lastDirective('no tag'), undefined);
    assert.equal(lastDirective('</sim-answer><sim-answer>'), undefined);
  });

  void it('reads the directive of token ids with the tiny tokenizer', async () => {
    const tok = await loadSimTokenizer(undefined);
    const ids = tok.encode('<|im_start|>user\nx <sim-answer><think>\nhm</think></sim-answer>');
    assert.equal(promptDirective(tok, ids), '<think>\nhm</think>');
    assert.ok(tok.encode('<sim-answer>').some((id) => tok.hyphenIds.has(id)));
    assert.ok(!tok.encode('a prompt without a hyphen').some((id) => tok.hyphenIds.has(id)));
  });

  void it('decodes only a prompt that has a token with a hyphen', () => {
    let decoded = 0;
    const tok = {
      hyphenIds: new Set([7]),
      decode: (ids: readonly number[]): string => {
        decoded++;
        return ids.includes(8) ? '<sim-answer>yes</sim-answer>' : 'well-known';
      },
    };
    assert.equal(promptDirective(tok, [1, 2, 8]), undefined);
    assert.equal(decoded, 0);
    assert.equal(promptDirective(tok, [1, 7]), undefined);
    assert.equal(promptDirective(tok, [7, 8]), 'yes');
    assert.equal(decoded, 2);
  });
});
