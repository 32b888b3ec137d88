// The README's first command: `switchyard demo` starts a fleet and the gateway and answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';

test('switchyard demo serves a request through the gateway and prints how to try it', () => {
  const { status, stdout, stderr } = runCli(
    ['demo', '--port', '0', '--prometheus-port', '0', '--log-level', 'warn', '--exit-after-check'],
    30_000,
  );
  assert.equal(status, 0, stderr);
  assert.match(
    stdout,
    /Switchyard demo: gateway http:\/\/127\.0\.0\.1:\d+ in front of 4 simulated sglang workers \(mixed\)/,
  );
  assert.match(stdout, /First request answered 200 by http:\/\/127\.0\.0\.1:\d+: "/);
  assert.match(stdout, /curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/);
});

test('switchyard demo --shape pd runs a PD-only gateway', () => {
  const { status, stdout, stderr } = runCli(
    [
      'demo',
      '--shape',
      'pd',
      '--port',
      '0',
      '--prometheus-port',
      '0',
      '--log-level',
      'warn',
      '--exit-after-check',
    ],
    30_000,
  );
  assert.equal(status, 0, stderr);
  assert.match(stdout, /2 simulated sglang workers \(pd\)/);
  assert.match(stdout, /First request answered 200/);
});
