// The README's first command: `switchyard demo` starts a fleet and the gateway and answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

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
  assert.match(stdout, /^ {2}dashboard http:\/\/127\.0\.0\.1:\d+\/dashboard$/m);
  assert.match(stdout, /Open http:\/\/127\.0\.0\.1:\d+\/dashboard in a browser .*add --load/);
});

test('switchyard demo --load keeps traffic flowing until Ctrl+C, then stops cleanly', async () => {
  const run = startCli([
    'demo',
    '--port',
    '0',
    '--prometheus-port',
    '0',
    '--log-level',
    'warn',
    '--load',
    '--load-rps',
    '20',
  ]);
  try {
    await waitFor(() => /Press Ctrl\+C/.test(run.stdout()), 'the demo to start', 30_000);
    const metricsUrl = /metrics (http\S+)/.exec(run.stdout())?.[1];
    assert.ok(metricsUrl, run.stdout());
    assert.match(run.stdout(), /background load running/);
    const served = async (): Promise<number> => {
      const text = await (await fetch(metricsUrl)).text();
      return text
        .split('\n')
        .filter((l) => l.startsWith('smg_router_requests_total{'))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    // The first request is the demo's own check; the load adds the rest.
    await waitFor(async () => (await served()) >= 10, 'ten requests of background load', 20_000);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0, run.stderr());
  } finally {
    run.child.kill('SIGKILL');
  }
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
