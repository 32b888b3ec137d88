// Durations become Node timers, which hold at most 2^31-1 ms; a larger value fires after 1 ms
// instead, so a probe meant for once a month would flood its worker. Every duration flag is bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TIMER_MS, MAX_TIMER_SECS, UsageError, parseFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { buildConfig } from '../../../src/config/validate.js';
import { parseWorkerSpec } from '../../../src/workers/spec.js';

/**
 * Every flag that is a duration, found by its name, so a new one cannot be added unbounded. SMG
 * flags accepted without effect or refused never become timers.
 */
const DURATION_FLAGS = GATEWAY_FLAGS.filter(
  (f) =>
    (f.status === 'implemented' || f.status === 'switchyard-only') &&
    f.kind === 'int' &&
    /(-secs|-ms|-interval|-delay)$/.test(f.name),
);

function refusal(argv: string[]): string {
  try {
    buildConfig(parseFlags(argv, GATEWAY_FLAGS));
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
    return err.message;
  }
  return '';
}

void describe('duration flags are bounded by what a timer can hold', () => {
  it('finds the duration flags by name', () => {
    const names = DURATION_FLAGS.map((f) => f.name);
    for (const expected of [
      'health-check-interval-secs',
      'load-monitor-interval',
      'request-timeout-secs',
      'retry-max-backoff-ms',
      'worker-startup-delay',
    ]) {
      assert.ok(names.includes(expected), `${expected} not found among ${names.join(', ')}`);
    }
  });

  for (const flag of DURATION_FLAGS) {
    const max = flag.name.endsWith('-ms') ? MAX_TIMER_MS : MAX_TIMER_SECS;
    it(`--${flag.name} ${max + 1} is refused naming the flag and the limit`, () => {
      const message = refusal([
        '--pd-disaggregation',
        '--prefill-max-inflight-requests-per-worker',
        '1',
        `--${flag.name}`,
        String(max + 1),
      ]);
      assert.ok(message.includes(`--${flag.name}`), `'${message}' does not name --${flag.name}`);
      assert.match(message, new RegExp(`at most ${max} `));
    });
  }

  it('accepts the largest value a timer can hold', () => {
    const config = buildConfig(
      parseFlags(
        [
          '--health-check-interval-secs',
          String(MAX_TIMER_SECS),
          '--health-check-timeout-secs',
          String(MAX_TIMER_SECS),
          '--retry-max-backoff-ms',
          String(MAX_TIMER_MS),
        ],
        GATEWAY_FLAGS,
      ),
    );
    assert.equal(config.healthCheckIntervalSecs, MAX_TIMER_SECS);
    assert.equal(config.retryMaxBackoffMs, MAX_TIMER_MS);
  });

  it('takes whole token rates only (SMG i32), so the wait for one token is at most a second', () => {
    assert.match(
      refusal(['--max-concurrent-requests', '1', '--rate-limit-tokens-per-second', '1e-9']),
      /--rate-limit-tokens-per-second expects an integer/,
    );
  });

  it('bounds the health overrides of a worker spec the same way', () => {
    for (const field of ['timeout_secs', 'check_interval_secs', 'drain_settle_secs']) {
      const result = parseWorkerSpec({
        url: 'http://127.0.0.1:1',
        health: { [field]: MAX_TIMER_SECS + 1 },
      });
      assert.equal(result.ok, false, field);
      if (!result.ok)
        assert.match(result.message, new RegExp(`health\\.${field}.*at most ${MAX_TIMER_SECS} s`));
    }
  });
});
