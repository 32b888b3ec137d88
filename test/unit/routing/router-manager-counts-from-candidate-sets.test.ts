// The IGW router manager weighs routers by the registered and available workers of the model,
// read from the registry's maintained candidate sets: choosing a router checks no worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from '../../../src/workers/worker.js';
import { ctxFor, harness } from './router-manager-fixtures.js';

void describe('router manager counts', () => {
  it('come from the candidate sets, not from a pass over the workers', () => {
    const h = harness();
    const workers = [...h.add('regular', 500), ...h.add('prefill', 250), ...h.add('decode', 250)];
    let checks = 0;
    for (const w of workers) {
      // Counts availability checks (an own property shadows the prototype method).
      w.isAvailable = function (this: Worker): boolean {
        checks++;
        return Worker.prototype.isAvailable.call(this);
      };
    }
    h.manager.choose(ctxFor());
    checks = 0;
    for (let i = 0; i < 10; i++) h.manager.choose(ctxFor());
    assert.equal(checks, 0);

    h.registry.setStatus(workers[0] as Worker, 'not_ready');
    assert.deepEqual(h.manager.weightsFor('m'), { 'http-pd': 500, 'http-regular': 499 });
  });
});
