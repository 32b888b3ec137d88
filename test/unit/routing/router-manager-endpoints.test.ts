// A router is never picked for an endpoint it cannot serve (SMG sent response cancellations to
// the PD router, which answered 501), and only registered routers take part.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { RouterManager } from '../../../src/routing/router-manager.js';
import { seededRandom } from '@switchyard/kit';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { ctxFor, FakeRouter, harness } from './router-manager-fixtures.js';

describe('router manager endpoints', () => {
  it('never sends embeddings or rerank to the PD router, however heavy PD is', () => {
    const h = harness();
    h.add('prefill', 8);
    h.add('decode', 8);
    h.add('regular', 1);
    for (const endpoint of ['embeddings', 'rerank'] as const) {
      assert.equal(h.pdShare(1000, { endpoint }), 0, endpoint);
    }
    assert.ok(h.pdShare(1000, { endpoint: 'chat' }) > 900, 'chat still goes mostly to PD');
  });

  it("answers 404 to an endpoint that only the model's absent workers could serve", () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('decode', 1);
    assert.throws(
      () => h.manager.choose(ctxFor({ endpoint: 'embeddings' })),
      (err: unknown) => {
        assert.ok(err instanceof GatewayError);
        assert.equal(err.code, 'model_not_found');
        assert.match(err.message, /embeddings/);
        return true;
      },
    );
  });

  it('asks a router that says what it supports', () => {
    const regular = new FakeRouter('http-regular', (e) => e !== 'responses');
    const pd = new FakeRouter('http-pd', () => true);
    const h = harness({ regular, pd });
    h.add('prefill', 1);
    h.add('decode', 1);
    h.add('regular', 8);
    assert.equal(
      h.pdShare(500, { endpoint: 'responses' }),
      500,
      'responses only to the router that takes them',
    );
    assert.ok(
      h.pdShare(500, { endpoint: 'embeddings' }) > 0,
      'the override replaces the default table',
    );
  });

  it('leaves PD workers idle when no PD router is registered', () => {
    const h = harness({ pd: null });
    h.add('prefill', 4);
    h.add('decode', 4);
    h.add('regular', 1);
    assert.equal(h.pdShare(1000), 0);
    h.registry.remove(h.registry.ofType('regular')[0]?.id ?? '');
    assert.throws(
      () => h.manager.choose(ctxFor()),
      (err: unknown) => err instanceof GatewayError && err.code === 'model_not_found',
    );
  });

  it('routes the request through the chosen router and counts the choice under its type', async () => {
    const h = harness();
    h.add('prefill', 1);
    h.add('decode', 1);
    const ctx = ctxFor();
    await h.manager.route(ctx);
    assert.deepEqual(h.pd.routed, [ctx]);
    assert.deepEqual(h.regular.routed, []);
    assert.deepEqual(h.choices, [{ type: 'http-pd', model: 'm' }]);
  });

  it('refuses two routers of one type', () => {
    assert.throws(
      () =>
        new RouterManager({
          registry: new WorkerRegistry(new GatewayMetrics()),
          regular: new FakeRouter('http-regular'),
          pd: new FakeRouter('http-regular'),
          weightMode: 'paired',
          random: seededRandom(1),
        }),
      /Two routers of type http-regular/,
    );
  });
});
