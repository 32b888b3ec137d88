// The CLI as a user runs it: help lists every flag with its default; bad flags exit 2 with one
// line naming the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { runCli } from '../helpers/cli.js';

test('launch --help lists every flag with its SMG default', () => {
  const { status, stdout } = runCli(['launch', '--help']);
  assert.equal(status, 0);
  for (const flag of GATEWAY_FLAGS.filter((f) => f.status !== 'unsupported')) {
    assert.match(stdout, new RegExp(`--${flag.name}\\b`), `--${flag.name} missing`);
  }
  assert.match(stdout, /docs\/compat\.md/);
  assert.match(stdout, /--port <int>\s+Main port \(0 = ephemeral\) \[default: 30000\]/);
  assert.match(stdout, /--prometheus-port <int>\s+.*\[default: 29000\]/);
  assert.match(stdout, /--max-payload-size <int>\s+.*\[default: 536870912\]/);
  assert.match(stdout, /--request-timeout-secs <int>\s+.*\[default: 1800\]/);
});

test('start is an alias of launch', () => {
  assert.equal(runCli(['start', '--help']).stdout, runCli(['launch', '--help']).stdout);
});

const usageErrors: [string[], RegExp][] = [
  [['launch', '--no-such-flag'], /unknown flag --no-such-flag/],
  [['launch', '--port', 'abc'], /--port expects an integer, got 'abc'/],
  [['launch', '--port', '70000'], /--port/],
  [['launch', '--policy', 'fastest'], /--policy must be one of/],
  [['launch', '--worker-urls', 'not-a-url'], /--worker-urls/],
  [['launch', '--log-level'], /--log-level expects a value/],
  [['launch', '--model-alias', 'a=a'], /--model-alias/],
  [
    ['launch', '--retry-initial-backoff-ms', '100', '--retry-max-backoff-ms', '10'],
    /--retry-max-backoff-ms: must be >= --retry-initial-backoff-ms \(100\) \(got 10\)/,
  ],
  [['frobnicate'], /unknown command 'frobnicate'/],
  [
    ['launch', '--pd-disaggregation', '--prefill-queue-size', '5'],
    /need a positive --prefill-max-inflight-requests-per-worker/,
  ],
  [
    [
      'launch',
      '--pd-disaggregation',
      '--prefill-queue-timeout-secs',
      '5',
      '--prefill-max-inflight-requests-per-worker',
      '-1',
    ],
    /need a positive/,
  ],
  [['launch', '--prefill-max-inflight-requests-per-worker', '4'], /needs --pd-disaggregation/],
  [
    ['launch', '--worker-urls', 'grpc://127.0.0.1:9'],
    /--worker-urls: gRPC workers \(grpc:\/\/, grpcs:\/\/\) are not supported yet/,
  ],
  // 30 days: Node would fire the timer after 1 ms instead, flooding every worker with probes.
  [
    ['launch', '--health-check-interval-secs', '2592000'],
    /--health-check-interval-secs: must be at most 2147483 s/,
  ],
  [['sim', '--ttft-ms', '1e12'], /ttft-ms/],
];

for (const [args, message] of usageErrors) {
  test(`'${args.join(' ')}' exits 2 with one line naming the problem`, () => {
    const { status, stderr } = runCli(args);
    assert.equal(status, 2);
    assert.equal(stderr.trim().split('\n').length, 1, `stderr: ${stderr}`);
    assert.match(stderr, message);
  });
}

test('version prints the package version', () => {
  const { status, stdout } = runCli(['version']);
  assert.equal(status, 0);
  assert.match(stdout, /^switchyard \d+\.\d+\.\d+\n$/);
});
