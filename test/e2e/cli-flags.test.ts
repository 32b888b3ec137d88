// The CLI as a user runs it: help lists every flag with its default; a bad flag exits 2 with one
// line naming it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { runCli, runMain } from '../helpers/cli.js';

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

test('start is an alias of launch', async () => {
  // The command table in process: the binary's own --help output is checked above.
  assert.equal(
    (await runMain(['start', '--help'])).stdout,
    (await runMain(['launch', '--help'])).stdout,
  );
});

// One usage error through the real binary: parse, cross-field validation, one line, exit 2. The
// validation rules themselves are unit tests (build-config, flag-parser, duration bounds, main).
test('a usage error exits 2 with one line naming the flags', () => {
  const { status, stderr } = runCli([
    'launch',
    '--retry-initial-backoff-ms',
    '100',
    '--retry-max-backoff-ms',
    '10',
  ]);
  assert.equal(status, 2);
  assert.equal(
    stderr,
    'switchyard launch: --retry-max-backoff-ms: must be >= --retry-initial-backoff-ms (100) (got 10)\n',
  );
});

test('version prints the package version', () => {
  const { status, stdout } = runCli(['version']);
  assert.equal(status, 0);
  assert.match(stdout, /^switchyard \d+\.\d+\.\d+\n$/);
});
