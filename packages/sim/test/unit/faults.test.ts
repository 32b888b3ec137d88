import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { FaultInjector, parseFaults } from '../../src/faults.js';
import type { SimFaults } from '../../src/options.js';

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

  void it('dropAfterHead wins over dropAfterChunks and clears after maxFires', () => {
    const f = new FaultInjector(0, { dropAfterHead: true, dropAfterChunks: 2, maxFires: 1 });
    assert.equal(f.takeDrop(), 'head');
    assert.equal(f.takeDrop(), undefined);
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
      dropAfterHead: true,
      healthStatus: 503,
      slowStartMs: 10,
      flapPeriodMs: 20,
      slowdown: 2.5,
      durationMs: 1000,
      maxFires: 3,
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
      { dropAfterHead: 'yes' },
    ];
    for (const value of bad) {
      const r = parseFaults(value);
      assert.equal(r.ok, false, JSON.stringify(value));
      if (!r.ok) assert.ok(r.message.length > 0);
    }
  });
});

void describe('FaultInjector timed and bounded faults (manual clock)', () => {
  void it('slow start answers 503 until it has passed', () => {
    const clock = new ManualClock();
    const f = new FaultInjector(0, { slowStartMs: 100 }, clock);
    assert.equal(f.healthStatus(), 503);
    clock.advance(99);
    assert.equal(f.healthStatus(), 503);
    clock.advance(1);
    assert.equal(f.healthStatus(), undefined);
  });

  void it('flapping alternates 503 and healthy every period, starting unhealthy', () => {
    const clock = new ManualClock();
    const f = new FaultInjector(0, { flapPeriodMs: 10 }, clock);
    const seen: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push(f.healthStatus());
      clock.advance(10);
    }
    assert.deepEqual(seen, [503, undefined, 503, undefined]);
  });

  void it('durationMs clears every fault and reports the change', () => {
    const clock = new ManualClock();
    const changes: SimFaults[] = [];
    const f = new FaultInjector(0, { slowdown: 4, hang: true, durationMs: 50 }, clock, (c) =>
      changes.push(c),
    );
    assert.equal(f.slowdown(), 4);
    assert.equal(f.decide(), 'hang');
    clock.advance(50);
    assert.deepEqual(f.current(), {});
    assert.equal(f.slowdown(), 1);
    assert.equal(f.decide(), 'none');
    assert.deepEqual(changes.at(-1), {});
    f.set({ durationMs: 10, healthStatus: 500 });
    f.set({});
    clock.advance(100);
    assert.equal(clock.size, 0, 'replacing faults cancels the old expiry');
  });

  void it('maxFires clears the request faults after that many fires, keeping the rest', () => {
    const f = new FaultInjector(0, { errorRate: 1, maxFires: 2, healthStatus: 503 });
    assert.deepEqual([f.decide(), f.decide(), f.decide()], ['error', 'error', 'none']);
    assert.deepEqual(f.current(), { healthStatus: 503 });
    const drop = new FaultInjector(0, { dropAfterChunks: 1, maxFires: 1 });
    assert.equal(drop.takeDrop(), 1);
    assert.equal(drop.takeDrop(), undefined);
  });

  void it('rejects bad timed faults', () => {
    for (const bad of [{ slowdown: 0 }, { slowdown: 5000 }, { durationMs: 0 }, { maxFires: 0 }]) {
      assert.equal(parseFaults(bad).ok, false, JSON.stringify(bad));
    }
  });
});
