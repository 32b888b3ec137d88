// Startup validation as SMG's (config/validation.rs, main.rs): what SMG accepts starts, what SMG
// refuses is refused with one line naming the flag, the value and the rule. One row per class of
// configuration SMG accepts, and per rule by which it refuses one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@switchyard/kit';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import type { GatewayConfig } from '../../../src/config/schema.js';

interface Accepted {
  readonly argv: readonly string[];
  /** What the config holds afterwards, when the row is about a value's meaning. */
  readonly check?: (c: GatewayConfig) => void;
  /** The warning lines logged at startup (none when absent). */
  readonly warnings?: readonly string[];
}

const W = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `http://127.0.0.1:${9000 + i}`);

/** SMG starts with these, so Switchyard does. */
const ACCEPTED: Record<string, Accepted> = {
  'a probe interval shorter than the timeout': { argv: ['--health-check-interval-secs', '1'] },
  'health timeout and thresholds of 0': {
    argv: [
      '--health-check-timeout-secs',
      '0',
      '--health-failure-threshold',
      '0',
      '--health-success-threshold',
      '0',
    ],
    warnings: [
      '--health-check-timeout-secs 0: every health probe times out at once (as SMG), so no worker passes one',
    ],
  },
  'a 0 probe interval with health checks disabled': {
    argv: ['--disable-health-check', '--health-check-interval-secs', '0'],
  },
  'a health endpoint without a leading /': {
    argv: ['--health-check-endpoint', 'health'],
    check: (c) => assert.equal(c.healthCheckEndpoint, '/health'),
    warnings: ["--health-check-endpoint 'health' has no leading '/': probing '/health'"],
  },
  'an upstream pool idle timeout of 0': { argv: ['--upstream-pool-idle-timeout-secs', '0'] },
  'no admission queue and no queue timeout': {
    argv: ['--queue-size', '0', '--queue-timeout-secs', '0'],
  },
  'a token rate of 0 (pure concurrency limit)': {
    argv: ['--max-concurrent-requests', '4', '--rate-limit-tokens-per-second', '0'],
    check: (c) => assert.equal(c.rateLimitTokensPerSecond, 0),
  },
  'any --max-concurrent-requests <= 0': { argv: ['--max-concurrent-requests', '-2'] },
  'a sticky idle TTL of 0': { argv: ['--max-idle-secs', '0'] },
  'cache_aware values out of range under another policy': {
    argv: [
      '--policy',
      'round_robin',
      '--cache-threshold',
      '5',
      '--balance-rel-threshold',
      '0.5',
      '--eviction-interval',
      '0',
      '--max-tree-size',
      '0',
    ],
  },
  'prefix_hash values out of range under another policy': {
    argv: ['--policy', 'random', '--prefix-hash-load-factor', '0.5', '--prefix-token-count', '0'],
  },
  'least_load values out of range under another policy': {
    argv: [
      '--policy',
      'random',
      '--least-load-default-throughput',
      '0',
      '--least-load-mean-prefill-tokens',
      '0',
    ],
  },
  'token-usage thresholds above 1 (SMG: >= 1.0 disables)': {
    argv: ['--balance-token-usage-threshold', '2', '--overload-token-usage-threshold', '1.5'],
  },
  'a failure threshold of 0 with the circuit breaker disabled': {
    argv: ['--disable-circuit-breaker', '--cb-failure-threshold', '0'],
  },
  '--retry-max-retries 0 with retries disabled': {
    argv: ['--disable-retries', '--retry-max-retries', '0'],
  },
  '--worker-urls in PD mode (ignored)': {
    argv: [
      '--pd-disaggregation',
      '--prefill',
      'http://127.0.0.1:9001',
      '--decode',
      'http://127.0.0.1:9002',
      '--worker-urls',
      'http://127.0.0.1:9003',
    ],
    check: (c) => assert.deepEqual(c.workerUrls, []),
    warnings: [
      '--worker-urls is ignored with --pd-disaggregation (as SMG); PD workers come from --prefill and --decode',
    ],
  },
  '--prefill and --decode without PD (ignored)': {
    argv: ['--prefill', 'http://127.0.0.1:9001', '--decode', 'http://127.0.0.1:9002'],
    check: (c) => assert.deepEqual([c.prefill, c.decode], [[], []]),
    warnings: [
      '--prefill is ignored without --pd-disaggregation or --enable-igw (as SMG)',
      '--decode is ignored without --pd-disaggregation or --enable-igw (as SMG)',
    ],
  },
  '--prefill-policy without PD (ignored, its values unchecked)': {
    argv: ['--prefill-policy', 'prefix_hash', '--prefix-token-count', '0'],
    check: (c) => assert.equal(c.prefillPolicy, undefined),
    warnings: ['--prefill-policy is ignored without --pd-disaggregation or --enable-igw (as SMG)'],
  },
  'the same --model-alias twice': {
    argv: ['--model-alias', 'a=b', '--model-alias', 'a=b', '--model-alias', 'a=b'],
    check: (c) => assert.deepEqual(c.modelAlias, ['a=b']),
    warnings: ["--model-alias 'a=b' is given more than once; it counts once"],
  },
  "a --model-alias whose model contains '='": {
    argv: ['--model-alias', 'a=b=c'],
    warnings: [
      "--model-alias 'a=b=c' maps 'a' to the model 'b=c' (split at the first '=', as SMG)",
    ],
  },
  'upper-case --routing-key-headers names (lower-cased, as SMG)': {
    argv: ['--routing-key-headers', 'X-Session-Id'],
    check: (c) => assert.deepEqual(c.routingKeyHeaders, ['x-session-id']),
  },
  'an empty --routing-key-headers list': {
    argv: ['--routing-key-headers'],
    check: (c) => assert.deepEqual(c.routingKeyHeaders, []),
  },
  'power_of_two with 2 workers': {
    argv: ['--policy', 'power_of_two', '--worker-urls', ...W(2)],
  },
  'power_of_two under IGW with no static worker': {
    argv: ['--enable-igw', '--policy', 'power_of_two'],
  },
  // Deliberate deviation (src/compat/deviations.ts): tests and the demo bind ephemeral ports.
  '--port 0 and --prometheus-port 0': { argv: ['--port', '0', '--prometheus-port', '0'] },
};

/** SMG's startup rules and the selected-policy bounds: SMG refuses these, so Switchyard does. */
const REFUSED: Record<string, [readonly string[], string]> = {
  'max backoff below the initial backoff': [
    ['--retry-initial-backoff-ms', '100', '--retry-max-backoff-ms', '10'],
    '--retry-max-backoff-ms: must be >= --retry-initial-backoff-ms (100) (got 10)',
  ],
  'an initial backoff of 0': [
    ['--retry-initial-backoff-ms', '0'],
    '--retry-initial-backoff-ms: Too small: expected number to be >=1 (got 0)',
  ],
  '--retry-max-retries 0 with retries on': [
    ['--retry-max-retries', '0'],
    '--retry-max-retries: must be >= 1 (1 = no retry, or give --disable-retries) (got 0)',
  ],
  'a failure threshold of 0 with the breaker on': [
    ['--cb-failure-threshold', '0'],
    '--cb-failure-threshold: must be >= 1, or give --disable-circuit-breaker (got 0)',
  ],
  'a circuit-breaker timeout of 0': [
    ['--cb-timeout-duration-secs', '0'],
    '--cb-timeout-duration-secs: Too small: expected number to be >=1 (got 0)',
  ],
  'a queue timeout of 0 while requests can queue': [
    ['--queue-timeout-secs', '0'],
    '--queue-timeout-secs: must be > 0 when --queue-size is above 0 (got 0 with --queue-size 100)',
  ],
  'power_of_two with one worker': [
    ['--policy', 'power_of_two', '--worker-urls', ...W(1)],
    '--policy power_of_two: requires at least 2 workers (got 1)',
  ],
  'power_of_two on a PD leg with one worker': [
    [
      '--pd-disaggregation',
      '--prefill-policy',
      'power_of_two',
      '--prefill',
      'http://127.0.0.1:9001',
      '--decode',
      ...W(1),
    ],
    '--prefill-policy power_of_two: requires at least 2 prefill workers (got 1)',
  ],
  'a token-usage threshold of 0 under cache_aware': [
    ['--balance-token-usage-threshold', '0'],
    '--balance-token-usage-threshold: must be > 0.0 (use >= 1.0 to disable) when --policy is cache_aware (got 0)',
  ],
  'a cache_aware value out of range on a PD leg': [
    [
      '--pd-disaggregation',
      '--policy',
      'random',
      '--decode-policy',
      'cache_aware',
      '--cache-threshold',
      '1.5',
    ],
    '--cache-threshold: must be between 0.0 and 1.0 when --decode-policy is cache_aware (got 1.5)',
  ],
  'a prefix_hash value out of range when selected': [
    ['--policy', 'prefix_hash', '--prefix-hash-load-factor', '0.5'],
    '--prefix-hash-load-factor: must be >= 1.0 when --policy is prefix_hash (got 0.5)',
  ],
  'an eviction interval of 0 under cache_aware': [
    ['--eviction-interval', '0'],
    '--eviction-interval: must be > 0 when --policy is cache_aware (got 0)',
  ],
  'a bad routing-key header name': [
    ['--routing-key-headers', 'bad header'],
    '--routing-key-headers: must be a valid HTTP header name (got "bad header")',
  ],
  'an upper-case worker URL scheme': [
    ['--worker-urls', 'HTTP://127.0.0.1:9'],
    '--worker-urls: the scheme must be lower-case (http://), as SMG requires (got "HTTP://127.0.0.1:9")',
  ],
  'an ipc (ZMQ) worker (not supported yet)': [
    ['--worker-urls', 'ipc:///tmp/engine.sock'],
    '--worker-urls: ipc:// (ZMQ) workers are not supported yet; use the http:// or grpc:// URL of the worker (got "ipc:///tmp/engine.sock")',
  ],
  'an upper-case gRPC scheme': [
    ['--worker-urls', 'GRPC://127.0.0.1:9'],
    '--worker-urls: the scheme must be lower-case (grpc://), as SMG requires (got "GRPC://127.0.0.1:9")',
  ],
  'a fractional token rate (SMG parses an i32)': [
    ['--rate-limit-tokens-per-second', '0.5'],
    "--rate-limit-tokens-per-second expects an integer, got '0.5'",
  ],
  'an alias mapped to two models': [
    ['--model-alias', 'a=b', '--model-alias', 'a=c'],
    "--model-alias: alias 'a' maps to both 'b' and 'c'",
  ],
};

void describe('SMG accepts it, so Switchyard starts', () => {
  for (const [name, row] of Object.entries(ACCEPTED)) {
    void it(name, () => {
      const { config, warnings } = resolveLaunchFlags(row.argv);
      row.check?.(config);
      assert.deepEqual(warnings, row.warnings ?? []);
    });
  }
});

void describe('SMG refuses it, so Switchyard exits with one line naming flag, value and rule', () => {
  for (const [name, [argv, line]] of Object.entries(REFUSED)) {
    void it(name, () => {
      assert.throws(
        () => resolveLaunchFlags(argv),
        (err: unknown) => err instanceof UsageError && err.message === line,
      );
    });
  }
});
