// The IGW router manager splits a model's traffic between the regular and PD routers in
// proportion to the available capacity of each, per model, and follows the fleet as it changes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertShare } from '../../helpers/share.js';
import { ctxFor, harness } from './router-manager-fixtures.js';

const N = 10_000;

describe('router manager split', () => {
  it('sends about 40 % to PD with 2 prefill + 2 decode + 6 regular workers', () => {
    for (const mode of ['paired', 'sum'] as const) {
      const h = harness({ mode });
      h.add('prefill', 2);
      h.add('decode', 2);
      h.add('regular', 6);
      assertShare(h.pdShare(N), N, 0.4, `${mode} PD share`);
    }
  });

  it('sends nothing to PD while only a prefill worker exists', () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('regular', 2);
    assert.equal(h.pdShare(1000), 0);
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 0, 'http-regular': 2 });
  });

  it('weighs 4 prefill + 1 decode as 2 in paired mode and 5 in sum mode', () => {
    const shares = { paired: 0, sum: 0 };
    for (const mode of ['paired', 'sum'] as const) {
      const h = harness({ mode });
      h.add('prefill', 4);
      h.add('decode', 1);
      h.add('regular', 3);
      assert.equal(h.manager.weightsFor('m')['http-pd'], mode === 'paired' ? 2 : 5);
      shares[mode] = h.pdShare(N);
    }
    assertShare(shares.paired, N, 2 / 5, 'paired PD share');
    assertShare(shares.sum, N, 5 / 8, 'sum PD share');
  });

  it('shifts the split as workers are added and removed', () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('decode', 1);
    const regulars = h.add('regular', 6);
    assertShare(h.pdShare(N), N, 2 / 8, 'PD share with one pair');

    h.add('prefill', 1);
    h.add('decode', 1);
    assertShare(h.pdShare(N), N, 4 / 10, 'PD share with two pairs');

    for (const w of regulars.slice(0, 4)) h.registry.remove(w.id);
    assertShare(h.pdShare(N), N, 4 / 6, 'PD share after removing four regular workers');

    for (const w of regulars.slice(4)) h.registry.remove(w.id);
    assert.equal(h.pdShare(1000), 1000, 'all PD once the regular pool is gone');
  });

  it('weighs each model by its own workers', () => {
    const h = harness();
    h.add('prefill', 2, 'pd-model');
    h.add('decode', 2, 'pd-model');
    h.add('regular', 3, 'regular-model');
    h.add('prefill', 1, 'mixed');
    h.add('decode', 3, 'mixed');
    h.add('regular', 2, 'mixed');

    assert.equal(h.pdShare(1000, { model: 'pd-model' }), 1000);
    assert.equal(h.pdShare(1000, { model: 'regular-model' }), 0);
    assertShare(h.pdShare(N, { model: 'mixed' }), N, 2 / 4, 'mixed PD share');
    assert.deepEqual(h.manager.weightsFor('pd-model'), { 'http-pd': 4, 'http-regular': 0 });
    assert.deepEqual(h.manager.weightsFor('regular-model'), { 'http-pd': 0, 'http-regular': 3 });
  });

  it('counts workers that announce no model for every model', () => {
    const h = harness();
    h.add('regular', 2, 'm');
    const wildcard = [
      ...h.add('prefill', 1, 'x', { models: [] }),
      ...h.add('decode', 1, 'x', { models: [] }),
    ];
    assert.ok(wildcard.every((w) => w.servesAnyModel));
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 2, 'http-regular': 2 });
  });

  it('counts each choice and reports weights only when they change', () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('decode', 1);
    h.add('regular', 2);
    for (let i = 0; i < 50; i++) h.manager.choose(ctxFor());
    assert.equal(h.choices.length, 50);
    assert.ok(h.choices.every((c) => c.model === 'm'));
    assert.deepEqual(h.weights, [{ model: 'm', weights: { 'http-pd': 2, 'http-regular': 2 } }]);

    h.add('regular', 1);
    h.manager.choose(ctxFor());
    assert.deepEqual(h.weights.at(-1), {
      model: 'm',
      weights: { 'http-pd': 2, 'http-regular': 3 },
    });
    assert.equal(h.weights.length, 2);
  });

  it('reportWeights refreshes every model and zeroes a model whose workers are gone', () => {
    const h = harness();
    const [gone] = h.add('regular', 1, 'old');
    h.add('regular', 2, 'kept');
    h.manager.choose(ctxFor({ model: 'old' }));
    assert.ok(gone);
    h.registry.remove(gone.id);
    h.weights.length = 0;

    h.manager.reportWeights();
    assert.deepEqual(h.weights, [
      { model: 'kept', weights: { 'http-pd': 0, 'http-regular': 2 } },
      { model: 'old', weights: { 'http-pd': 0, 'http-regular': 0 } },
    ]);
    h.weights.length = 0;
    h.manager.reportWeights();
    assert.deepEqual(
      h.weights.map((w) => w.model),
      ['kept'],
      'a gone model is zeroed once, then forgotten',
    );
  });
});
