// The pure weighting arithmetic of IGW router choice: weights from available worker counts,
// the weighted pick, endpoint support defaults, and the sticky point of a routing key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterType } from '../../../src/routing/router.js';
import {
  defaultSupports,
  pdWeight,
  pickWeighted,
  routerWeights,
  stickyPoint,
} from '../../../src/routing/router-weights.js';
import { seededRandom } from '@switchyard/kit';
import { assertShare } from '../../helpers/share.js';

const all = (): boolean => true;

describe('pdWeight', () => {
  it('is zero without at least one prefill and one decode', () => {
    for (const mode of ['paired', 'sum'] as const) {
      assert.equal(pdWeight(0, 0, mode), 0);
      assert.equal(pdWeight(1, 0, mode), 0);
      assert.equal(pdWeight(0, 3, mode), 0);
    }
  });

  it('paired is 2·min(P, D): an unbalanced 4 prefill + 1 decode weighs 2, not 5', () => {
    assert.equal(pdWeight(4, 1, 'paired'), 2);
    assert.equal(pdWeight(4, 1, 'sum'), 5);
    assert.equal(pdWeight(1, 4, 'paired'), 2);
  });

  it('paired equals sum when the pool is balanced', () => {
    for (const n of [1, 2, 7]) assert.equal(pdWeight(n, n, 'paired'), pdWeight(n, n, 'sum'));
  });
});

describe('routerWeights', () => {
  it('weighs 2 prefill + 2 decode + 6 regular as PD 4, regular 6', () => {
    assert.deepEqual(routerWeights({ prefill: 2, decode: 2, regular: 6 }, 'paired'), {
      'http-pd': 4,
      'http-regular': 6,
    });
  });

  it('gives a lone prefill worker no PD weight', () => {
    assert.deepEqual(routerWeights({ prefill: 1, decode: 0, regular: 3 }, 'sum'), {
      'http-pd': 0,
      'http-regular': 3,
    });
  });
});

describe('pickWeighted', () => {
  const weights = { 'http-pd': 4, 'http-regular': 6 };

  it('walks PD first, then regular, by floor(u·total)', () => {
    assert.equal(pickWeighted(weights, all, 0), 'http-pd');
    assert.equal(pickWeighted(weights, all, 0.399), 'http-pd');
    assert.equal(pickWeighted(weights, all, 0.4), 'http-regular');
    assert.equal(pickWeighted(weights, all, 0.9999999999999999), 'http-regular');
  });

  it('never picks a router of zero weight, at either end of [0, 1)', () => {
    const regularOnly = { 'http-pd': 0, 'http-regular': 3 };
    const pdOnly = { 'http-pd': 2, 'http-regular': 0 };
    for (const u of [0, 0.5, 0.9999999999999999]) {
      assert.equal(pickWeighted(regularOnly, all, u), 'http-regular');
      assert.equal(pickWeighted(pdOnly, all, u), 'http-pd');
    }
  });

  it('leaves ineligible routers out of the total', () => {
    const noPd = (t: RouterType): boolean => t !== 'http-pd';
    for (const u of [0, 0.3, 0.99]) assert.equal(pickWeighted(weights, noPd, u), 'http-regular');
  });

  it('returns undefined when nothing eligible has weight', () => {
    assert.equal(pickWeighted({ 'http-pd': 0, 'http-regular': 0 }, all, 0.5), undefined);
    assert.equal(
      pickWeighted({ 'http-pd': 2, 'http-regular': 0 }, (t) => t === 'http-regular', 0.5),
      undefined,
    );
  });

  it('splits in proportion to the weights over many draws', () => {
    const random = seededRandom(7);
    const n = 10_000;
    let pd = 0;
    for (let i = 0; i < n; i++)
      if (pickWeighted(weights, all, random.next()) === 'http-pd') pd += 1;
    assertShare(pd, n, 0.4, 'PD share');
  });
});

describe('defaultSupports', () => {
  it('keeps embeddings and rerank off the PD router and everything on the regular router', () => {
    assert.equal(defaultSupports('http-pd', 'embeddings'), false);
    assert.equal(defaultSupports('http-pd', 'rerank'), false);
    for (const e of ['chat', 'completion', 'generate', 'responses'] as const)
      assert.equal(defaultSupports('http-pd', e), true);
    for (const e of [
      'chat',
      'completion',
      'generate',
      'responses',
      'embeddings',
      'rerank',
    ] as const) {
      assert.equal(defaultSupports('http-regular', e), true);
    }
  });
});

describe('stickyPoint', () => {
  it('is a fixed point in [0, 1) per key', () => {
    for (const key of ['a', 'session-1', '']) {
      const u = stickyPoint(key);
      assert.ok(u >= 0 && u < 1);
      assert.equal(stickyPoint(key), u);
    }
    assert.notEqual(stickyPoint('session-1'), stickyPoint('session-2'));
  });

  it('spreads distinct keys evenly, so sticky traffic still splits by weight', () => {
    const n = 10_000;
    let below = 0;
    for (let i = 0; i < n; i++) if (stickyPoint(`user-${i}`) < 0.4) below += 1;
    assertShare(below, n, 0.4, 'keys below 0.4');
  });
});
