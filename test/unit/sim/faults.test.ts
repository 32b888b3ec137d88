import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultInjector, parseFaults } from '../../../src/sim/faults.js';

void describe('FaultInjector', () => {
  void it('does nothing without faults', () => {
    const f = new FaultInjector(0, {});
    for (let i = 0; i < 100; i++) assert.equal(f.decide(), 'none');
    assert.equal(f.errorStatus(), 500);
    assert.equal(f.healthStatus(), undefined);
  });

  void it('always errors at rate 1 and prefers hang over errors', () => {
    const f = new FaultInjector(0, { errorRate: 1, errorStatus: 503 });
    assert.equal(f.decide(), 'error');
    assert.equal(f.errorStatus(), 503);
    f.set({ errorRate: 1, hang: true });
    assert.equal(f.decide(), 'hang');
    f.set({});
    assert.equal(f.decide(), 'none');
  });

  void it('errors at about the configured rate, reproducibly under a seed', () => {
    const count = (seed: number): number => {
      const f = new FaultInjector(seed, { errorRate: 0.5 });
      let errors = 0;
      for (let i = 0; i < 4000; i++) if (f.decide() === 'error') errors++;
      return errors;
    };
    const errors = count(3);
    // Binomial(4000, 0.5): sd ≈ 31.6, so ±200 is more than 6 sigma.
    assert.ok(Math.abs(errors - 2000) < 200, `errors=${errors}`);
    assert.equal(count(3), errors);
  });

  void it('rejects out-of-range faults passed directly', () => {
    assert.throws(() => new FaultInjector(0, { errorRate: 2 }), /errorRate/);
    assert.throws(() => new FaultInjector(0, { dropAfterChunks: -1 }), /dropAfterChunks/);
  });
});

void describe('parseFaults', () => {
  void it('accepts every fault and {}', () => {
    const all = {
      errorRate: 0.1,
      errorStatus: 429,
      hang: false,
      dropAfterChunks: 3,
      healthStatus: 503,
    };
    assert.deepEqual(parseFaults(all), { ok: true, faults: all });
    assert.deepEqual(parseFaults({}), { ok: true, faults: {} });
  });

  void it('rejects unknown keys and bad values with a message', () => {
    const bad: unknown[] = [
      null,
      [],
      { errorrate: 1 },
      { errorRate: '1' },
      { errorStatus: 99 },
      { healthStatus: 700 },
      { hang: 1 },
      { dropAfterChunks: 1.5 },
    ];
    for (const value of bad) {
      const r = parseFaults(value);
      assert.equal(r.ok, false, JSON.stringify(value));
      if (!r.ok) assert.ok(r.message.length > 0);
    }
  });
});
