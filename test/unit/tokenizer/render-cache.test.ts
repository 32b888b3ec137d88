// The rendered-prompt cache: the same template input renders once; a hit refreshes the entry so
// a conversation still in use survives a stream of one-off prompts; a template that raises is
// not cached.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache } from '../../../src/tokenizer/render-cache.js';
import type { ChatTemplateInput } from '../../../src/tokenizer/types.js';

const input = (text: string): ChatTemplateInput => ({
  messages: [{ role: 'user', content: text }],
  addGenerationPrompt: true,
});

void describe('render cache', () => {
  void it('renders an input once and answers repeats from the cache', () => {
    const cache = new RenderCache(4);
    let renders = 0;
    const render = () => `rendered ${++renders}`;
    assert.equal(cache.render(input('a'), render), 'rendered 1');
    assert.equal(cache.render(input('a'), render), 'rendered 1');
    assert.equal(cache.render(input('b'), render), 'rendered 2');
    assert.deepEqual([cache.hits, cache.misses, renders], [1, 2, 2]);
  });

  void it('keeps a recently used entry while one-off inputs evict the oldest', () => {
    const cache = new RenderCache(3);
    cache.render(input('kept'), () => 'k');
    for (let i = 0; i < 10; i++) {
      cache.render(input(`one-off ${i}`), () => 'x');
      assert.equal(
        cache.render(input('kept'), () => 'rendered again'),
        'k',
      );
    }
    assert.equal(cache.size, 3);
    assert.equal(
      cache.render(input('one-off 0'), () => 'fresh'),
      'fresh',
    );
  });

  void it('does not keep inputs longer than its bound', () => {
    const cache = new RenderCache(3);
    cache.render(input('x'.repeat(70 * 1024)), () => 'long');
    assert.equal(cache.size, 0);
  });

  void it('does not cache a render that throws', () => {
    const cache = new RenderCache(3);
    assert.throws(() =>
      cache.render(input('bad'), () => {
        throw new Error('raise_exception');
      }),
    );
    assert.equal(cache.size, 0);
    assert.equal(
      cache.render(input('bad'), () => 'ok'),
      'ok',
    );
  });
});
