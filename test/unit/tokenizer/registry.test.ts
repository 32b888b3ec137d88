// The tokenizer registry on a ManualClock: one load per model however many register it, three
// attempts 2 s apart, the failure recorded and announced, a later registration that succeeds,
// the 5 min overall timeout, and close() stopping a pending retry.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { TokenizerRegistry } from '../../../src/tokenizer/registry.js';
import type { ModelTokenizer } from '../../../src/tokenizer/types.js';
import { loadQwen3 } from './qwen3-fixture.js';

const MODEL = 'Qwen/Qwen3-0.6B';

void describe('tokenizer registry', () => {
  let tok: ModelTokenizer;
  before(async () => {
    tok = await loadQwen3();
  });

  function setup(): { clock: ManualClock; registry: TokenizerRegistry; changes: string[] } {
    const clock = new ManualClock();
    const registry = new TokenizerRegistry({ clock });
    const changes: string[] = [];
    registry.onChange((id) => changes.push(id));
    return { clock, registry, changes };
  }

  it('loads once for concurrent registrations and returns the same tokenizer after', async () => {
    const { registry, changes } = setup();
    let calls = 0;
    const load = async (): Promise<ModelTokenizer> => {
      calls++;
      return tok;
    };
    const first = registry.register(MODEL, load);
    const second = registry.register(MODEL, load);
    assert.equal(first, second, 'the same promise while loading');
    assert.equal(registry.loading(MODEL), true);
    assert.equal(await first, tok);
    assert.equal(await registry.register(MODEL, load), tok);
    assert.equal(calls, 1);
    assert.equal(registry.get(MODEL), tok);
    assert.equal(registry.has(MODEL), true);
    assert.equal(registry.loading(MODEL), false);
    assert.deepEqual(registry.models(), [MODEL]);
    assert.deepEqual(changes, [MODEL]);
  });

  it('retries twice, 2 s apart, then records the failure and tells listeners', async () => {
    const { clock, registry, changes } = setup();
    const calledAt: number[] = [];
    const result = registry.register(MODEL, async () => {
      calledAt.push(clock.now());
      throw new Error(`no tokenizer (${calledAt.length})`);
    });
    await clock.settle(10_000);
    await assert.rejects(result, /no tokenizer \(3\)/);
    assert.deepEqual(calledAt, [0, 2_000, 4_000]);
    assert.equal(registry.failure(MODEL), 'no tokenizer (3)');
    assert.equal(registry.has(MODEL), false);
    assert.deepEqual(changes, [MODEL]);
    assert.equal(clock.size, 0, 'no timer left armed');

    // A later registration tries again, and its success clears the failure.
    const again = registry.register(MODEL, async () => tok);
    assert.equal(await again, tok);
    assert.equal(registry.failure(MODEL), undefined);
    assert.deepEqual(changes, [MODEL, MODEL]);
  });

  it('succeeds on a later attempt', async () => {
    const { clock, registry } = setup();
    let calls = 0;
    const result = registry.register(MODEL, async () => {
      if (++calls < 3) throw new Error('not yet');
      return tok;
    });
    await clock.settle(4_000);
    assert.equal(await result, tok);
    assert.equal(calls, 3);
    assert.equal(registry.failure(MODEL), undefined);
  });

  it('gives up after 5 minutes of a load that never settles', async () => {
    const { clock, registry, changes } = setup();
    const result = registry.register(MODEL, () => new Promise<ModelTokenizer>(() => undefined));
    await clock.settle(299_999);
    assert.equal(registry.loading(MODEL), true);
    await clock.settle(1);
    await assert.rejects(result, /timed out after 300 s/);
    assert.match(registry.failure(MODEL) ?? '', /timed out/);
    assert.deepEqual(changes, [MODEL]);
  });

  it('close() stops a pending retry and refuses new registrations', async () => {
    const { clock, registry, changes } = setup();
    let calls = 0;
    const result = registry.register(MODEL, async () => {
      calls++;
      throw new Error('down');
    });
    await clock.settle(0);
    registry.close();
    await assert.rejects(result, /registry closed/);
    await clock.settle(10_000);
    assert.equal(calls, 1, 'no retry after close');
    assert.deepEqual(changes, [], 'closing is not a registration failure');
    await assert.rejects(
      registry.register('other', async () => tok),
      /registry closed/,
    );
  });

  it('set() registers a ready tokenizer and tells listeners', () => {
    const { registry, changes } = setup();
    registry.set(tok);
    assert.equal(registry.get(tok.modelId), tok);
    assert.deepEqual(changes, [tok.modelId]);
  });
});
