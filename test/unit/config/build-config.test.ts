import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError, parseFlags, parseFlagsTracked } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import type { GatewayConfig } from '../../../src/config/schema.js';
import { buildConfig, buildConfigWithWarnings } from '../../../src/config/validate.js';

/** argv -> config as `switchyard launch` builds it, with the rules on which flags were typed. */
function build(argv: readonly string[]): GatewayConfig {
  const { values, given } = parseFlagsTracked(argv, GATEWAY_FLAGS);
  const typed = new Set(given.map(({ spec }) => spec.key));
  return buildConfigWithWarnings(values, GATEWAY_FLAGS, typed).config;
}

/** Asserts a UsageError whose message names `flag` and matches `pattern`. */
function rejects(argv: readonly string[], flag: string, pattern?: RegExp): void {
  assert.throws(
    () => build(argv),
    (err: unknown) => {
      assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
      assert.ok(err.message.includes(flag), `'${err.message}' does not name ${flag}`);
      if (pattern) assert.match(err.message, pattern);
      return true;
    },
  );
}

void describe('GATEWAY_FLAGS defaults', () => {
  // SMG's CLI defaults, by flag name.
  const SMG_DEFAULTS: Record<string, string | number> = {
    host: '0.0.0.0',
    port: 30000,
    'prometheus-host': '0.0.0.0',
    'prometheus-port': 29000,
    'max-payload-size': 536870912,
    'request-timeout-secs': 1800,
    'upstream-pool-idle-timeout-secs': 3,
    'shutdown-grace-period-secs': 180,
    'health-check-interval-secs': 60,
    'health-check-timeout-secs': 5,
    'health-check-endpoint': '/health',
    'health-failure-threshold': 3,
    'health-success-threshold': 2,
    'drain-settle-secs': 5,
    'worker-startup-timeout-secs': 1800,
    'worker-startup-delay': 0,
    'worker-startup-check-interval': 30,
    'log-level': 'info',
  };

  for (const [name, expected] of Object.entries(SMG_DEFAULTS)) {
    void it(`--${name} defaults to ${expected}`, () => {
      const spec = GATEWAY_FLAGS.find((s) => s.name === name);
      assert.ok(spec, `--${name} is not a gateway flag`);
      assert.equal(spec.default, expected);
      // The default survives parsing and validation unchanged.
      const config = build([]) as unknown as Record<string, unknown>;
      assert.equal(config[spec.key], expected);
    });
  }

  void it('defaults the boolean flags to false and the list flags to empty', () => {
    const config = build([]);
    assert.equal(config.logJson, false);
    assert.equal(config.disableHealthCheck, false);
    assert.equal(config.removeUnhealthyWorkers, false);
    assert.deepEqual(config.workerUrls, []);
    assert.deepEqual(config.requestIdHeaders, []);
    assert.deepEqual(config.modelAlias, []);
    assert.equal(config.apiKey, undefined);
  });

  void it('has unique flag names and keys', () => {
    assert.equal(new Set(GATEWAY_FLAGS.map((s) => s.name)).size, GATEWAY_FLAGS.length);
    assert.equal(new Set(GATEWAY_FLAGS.map((s) => s.key)).size, GATEWAY_FLAGS.length);
  });
});

void describe('buildConfig: accepted values', () => {
  void it('builds a config from real flags', () => {
    const config = build([
      '--port',
      '0',
      '--worker-urls',
      'http://127.0.0.1:8000',
      'https://w2:8443/',
      '--policy',
      'random',
      '--api-key',
      'k',
      '--model-alias',
      'gpt=llama-3',
      '--model-alias',
      'small=qwen',
      '--request-id-headers',
      'x-trace-id',
      '--log-level',
      'debug',
      '--log-json',
    ]);
    assert.equal(config.port, 0);
    assert.deepEqual(config.workerUrls, ['http://127.0.0.1:8000', 'https://w2:8443']);
    assert.equal(config.policy, 'random');
    assert.equal(config.apiKey, 'k');
    assert.deepEqual(config.modelAlias, ['gpt=llama-3', 'small=qwen']);
    assert.deepEqual(config.requestIdHeaders, ['x-trace-id']);
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.logJson, true);
  });

  void it('accepts the port bounds 0 and 65535', () => {
    assert.equal(build(['--port', '65535']).port, 65535);
    assert.equal(build(['--prometheus-port', '0']).prometheusPort, 0);
  });

  void it('accepts a health timeout equal to the interval', () => {
    const config = build(['--health-check-interval-secs', '5', '--health-check-timeout-secs', '5']);
    assert.equal(config.healthCheckTimeoutSecs, 5);
  });
});

void describe('buildConfig: single-field ranges name the flag', () => {
  void it('--port out of range', () => {
    rejects(['--port', '70000'], '--port', /\(got 70000\)$/);
    rejects(['--port', '-1'], '--port', /\(got -1\)$/);
  });

  void it('--prometheus-port out of range', () => {
    rejects(['--prometheus-port', '65536'], '--prometheus-port');
  });

  void it('a worker URL that is not http(s) names --worker-urls and the bad value', () => {
    rejects(['--worker-urls', 'http://ok:1', 'ftp://w:21'], '--worker-urls', /"ftp:\/\/w:21"/);
    rejects(['--worker-urls', 'not a url'], '--worker-urls', /"not a url"/);
  });

  void it('worker URLs are normalised like POST /workers: trimmed, lower-case host, no default port or trailing slash', () => {
    const config = build([
      '--pd-disaggregation',
      '--prefill',
      ' http://P.example:80/ ',
      '9001',
      '--decode',
      'http://D.example:8000//',
    ]);
    assert.deepEqual(config.prefill, [{ url: 'http://p.example', bootstrapPort: 9001 }]);
    assert.deepEqual(config.decode, ['http://d.example:8000']);
  });

  void it('credentials in a worker URL name the flag, point at api_key and are not echoed', () => {
    for (const argv of [
      ['--worker-urls', 'http://u:hunter2@w:1'],
      ['--pd-disaggregation', '--prefill', 'http://u:hunter2@p:1', 'none'],
      ['--pd-disaggregation', '--decode', 'http://u:hunter2@d:1'],
    ]) {
      const flag = argv.find((a) => a !== '--pd-disaggregation' && a.startsWith('--')) ?? '';
      rejects(argv, flag, /credentials.*api_key.*\(got .*\*\*\*@/);
      assert.throws(
        () => build(argv),
        (err: Error) => !err.message.includes('hunter2'),
      );
    }
  });

  void it('a link-local or metadata worker URL names the flag', () => {
    rejects(
      ['--worker-urls', 'http://169.254.169.254'],
      '--worker-urls',
      /link-local or cloud metadata/,
    );
    rejects(
      ['--worker-urls', 'http://metadata.google.internal'],
      '--worker-urls',
      /metadata service/,
    );
  });

  void it('--worker-allow-cidr takes IPv4 and IPv6 ranges and names itself on a bad one', () => {
    assert.deepEqual(
      build(['--worker-allow-cidr', '10.0.0.0/8', 'fd00::/8', '192.168.1.7']).workerAllowCidr,
      ['10.0.0.0/8', 'fd00::/8', '192.168.1.7'],
    );
    assert.deepEqual(build([]).workerAllowCidr, []);
    rejects(['--worker-allow-cidr', '10.0.0.0/33'], '--worker-allow-cidr', /CIDR/);
    rejects(['--worker-allow-cidr', 'example.com/8'], '--worker-allow-cidr', /CIDR/);
  });

  void it('zero where a positive integer is required', () => {
    rejects(['--max-payload-size', '0'], '--max-payload-size');
    rejects(['--request-timeout-secs', '0'], '--request-timeout-secs');
    rejects(['--worker-startup-timeout-secs', '0'], '--worker-startup-timeout-secs');
    rejects(['--worker-startup-check-interval', '0'], '--worker-startup-check-interval');
  });

  void it('negative where zero is the minimum', () => {
    rejects(['--shutdown-grace-period-secs', '-1'], '--shutdown-grace-period-secs');
    rejects(['--drain-settle-secs', '-1'], '--drain-settle-secs');
    rejects(['--worker-startup-delay', '-5'], '--worker-startup-delay');
  });

  void it('empty strings', () => {
    rejects(['--host='], '--host');
    rejects(['--api-key='], '--api-key');
    rejects(['--request-id-headers='], '--request-id-headers');
  });

  void it('a model alias without an alias, a model or a =', () => {
    rejects(['--model-alias', 'gpt'], '--model-alias', /"gpt"/);
    rejects(['--model-alias', '=b'], '--model-alias');
    rejects(['--model-alias', 'a='], '--model-alias');
  });

  void it('reports the first bad field when several are bad', () => {
    rejects(['--port', '70000', '--prometheus-port', '70000'], '--port');
  });

  void it('names the flag for raw input that skipped the parser', () => {
    const raw = parseFlags([], GATEWAY_FLAGS);
    assert.throws(
      () => buildConfig({ ...raw, requestTimeoutSecs: 1.5 }),
      /^UsageError: --request-timeout-secs: /,
    );
  });
});

void describe('buildConfig: cross-field rules', () => {
  void it('prefill queue flags need a positive --prefill-max-inflight-requests-per-worker', () => {
    const need = /need a positive --prefill-max-inflight-requests-per-worker/;
    rejects(['--pd-disaggregation', '--prefill-queue-size', '5'], '--prefill-queue-size', need);
    rejects(
      [
        '--pd-disaggregation',
        '--prefill-queue-timeout-secs',
        '5',
        '--prefill-max-inflight-requests-per-worker',
        '-1',
      ],
      '--prefill-queue-timeout-secs',
      need,
    );
  });

  void it('prefill admission needs PD or IGW mode', () => {
    rejects(
      ['--prefill-max-inflight-requests-per-worker', '4'],
      '--prefill-max-inflight-requests-per-worker',
      /needs --pd-disaggregation or --enable-igw/,
    );
    assert.equal(
      build(['--enable-igw', '--prefill-max-inflight-requests-per-worker', '4'])
        .prefillMaxInflightRequestsPerWorker,
      4,
    );
  });

  void it('rejects an alias that maps a model to itself', () => {
    rejects(
      ['--model-alias', 'llama=llama'],
      '--model-alias',
      /alias must differ from the canonical model ID \(got 'llama=llama'\)/,
    );
  });

  void it('rejects an alias that maps to two models, as SMG', () => {
    rejects(
      ['--model-alias', 'gpt=a', '--model-alias', 'gpt=b'],
      '--model-alias',
      /alias 'gpt' maps to both 'a' and 'b'/,
    );
  });

  void it('allows two aliases for the same canonical model', () => {
    assert.deepEqual(build(['--model-alias', 'a=m', '--model-alias', 'b=m']).modelAlias, [
      'a=m',
      'b=m',
    ]);
  });
});
