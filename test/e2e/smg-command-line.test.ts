// An SMG command line, copied from a deployment, runs Switchyard: no `launch` subcommand (SMG
// flattens its flags), SMG's aliases and the tuning flags the SMG Helm chart always passes.
// Flags of subsystems Switchyard lacks exit 2 with one line naming the subsystem.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { runCli, runMain, startCli, waitForLog, LOOPBACK_EPHEMERAL } from '../helpers/cli.js';

let worker: SimWorker | undefined;
after(async () => worker?.close());

test('a Helm-chart-style argv with no subcommand starts, warns once about --block-size, and is ready', async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  // The chart's routerArgs shape (deploy/helm/smg/templates/_helpers.tpl:74-310), on loopback
  // with free ports. A probe interval (2 s) shorter than the default 5 s timeout is valid, as in
  // SMG, which has no rule between the two.
  const run = startCli([
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--policy',
    'cache_aware',
    '--worker-urls',
    worker.url,
    '--model-path',
    'org/model',
    '--cache-threshold',
    '0.3',
    '--balance-abs-threshold',
    '64',
    '--balance-rel-threshold',
    '1.5',
    '--eviction-interval',
    '120',
    '--max-tree-size',
    '67108864',
    '--block-size',
    '16',
    '--max-payload-size',
    '536870912',
    '--request-timeout-secs',
    '1800',
    '--max-concurrent-requests',
    '-1',
    '--queue-size',
    '100',
    '--queue-timeout-secs',
    '60',
    '--health-check-interval-secs',
    '2',
    '--health-check-endpoint',
    '/health',
    '--prometheus-host',
    '127.0.0.1',
    '--prometheus-port',
    '0',
    '--log-level',
    'info',
    '--log-json',
    '--log-dir',
    '/tmp/smg-logs',
    '--sticky-sessions',
    '--worker-auto-recovery',
  ]);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    await waitForLog(run, 'worker registered');
    const res = await request(`${String(listening.url)}/readiness`);
    assert.equal(res.statusCode, 200);
    assert.equal(((await res.body.json()) as { status: string }).status, 'ready');
    const warnings = run
      .stderr()
      .split('\n')
      .filter((line) => line.includes('accepted with no effect'));
    assert.equal(warnings.length, 1, run.stderr());
    assert.deepEqual((JSON.parse(warnings[0] ?? '{}') as { flags: string[] }).flags, [
      '--block-size',
      '--log-dir',
    ]);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('combinations SMG ignores start with one warning line each and are ignored', async () => {
  worker ??= await startSimWorker({ model: 'sim-model' });
  const run = startCli([
    ...LOOPBACK_EPHEMERAL,
    '--log-json',
    '--worker-urls',
    worker.url,
    '--prefill',
    'http://127.0.0.1:9',
    '--decode-policy',
    'random',
    '--model-alias',
    'gpt=sim-model',
    '--model-alias',
    'gpt=sim-model',
    '--model-alias',
    'gpt=sim-model',
  ]);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    await waitForLog(run, 'worker registered');
    const warnings = run
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"level":40') && !line.includes('accepted with no effect'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(warnings, [
      '--prefill is ignored without --pd-disaggregation or --enable-igw (as SMG)',
      '--decode-policy is ignored without --pd-disaggregation or --enable-igw (as SMG)',
      "--model-alias 'gpt=sim-model' is given more than once; it counts once",
    ]);
    // The ignored prefill is not a worker; the alias resolves to the served model.
    const workers = (await (await request(`${String(listening.url)}/workers`)).body.json()) as {
      workers: unknown[];
    };
    assert.equal(workers.workers.length, 1);
    const res = await request(`${String(listening.url)}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 2,
      }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.dump();
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});

const refusals: [string[], string][] = [
  [
    ['--worker-urls', 'http://127.0.0.1:9', '--enable-mesh'],
    'switchyard launch: --enable-mesh: the HA mesh is not supported by Switchyard (see docs/compat.md)',
  ],
  [
    ['launch', '--service-discovery', '--selector', 'app=worker', '--router-selector', 'app=r'],
    'switchyard launch: --router-selector: the HA mesh is not supported by Switchyard (see docs/compat.md)',
  ],
  [
    ['--runtime', 'anthropic'],
    'switchyard launch: --runtime anthropic: this backend is not supported by Switchyard (see docs/compat.md)',
  ],
  // An alias sets its target: the range check names --cache-threshold.
  [
    ['--cache-match-threshold', '2'],
    'switchyard launch: --cache-threshold: must be between 0.0 and 1.0 when --policy is cache_aware (got 2)',
  ],
  [['--block-size', 'big'], "switchyard launch: --block-size expects an integer, got 'big'"],
  // What SMG refuses at startup, Switchyard refuses: one line naming flag, value and rule.
  [
    ['--policy', 'power_of_two', '--worker-urls', 'http://127.0.0.1:9'],
    'switchyard launch: --policy power_of_two: requires at least 2 workers (got 1)',
  ],
  [
    ['--routing-key-headers', 'bad header'],
    'switchyard launch: --routing-key-headers: must be a valid HTTP header name (got "bad header")',
  ],
  [
    ['--worker-urls', 'ipc:///tmp/engine.sock'],
    'switchyard launch: --worker-urls: ipc:// (ZMQ) workers are not supported yet; use the http:// or grpc:// URL of the worker (got "ipc:///tmp/engine.sock")',
  ],
];

// The first refusal goes through the real binary; the rest run the same command table in process.
for (const [i, [args, line]] of refusals.entries()) {
  test(`'switchyard ${args.join(' ')}' exits 2 with one line`, async () => {
    const { status, stderr } = i === 0 ? runCli(args) : await runMain(args);
    assert.equal(status, 2);
    assert.equal(stderr, `${line}\n`);
  });
}

// The version is read from the installed package.json, so these run the real binary.
for (const args of [['--version'], ['--worker-urls', 'x', '-V'], ['sim', '--version']]) {
  test(`'switchyard ${args.join(' ')}' prints the version`, () => {
    const { status, stdout } = runCli(args);
    assert.equal(status, 0);
    assert.match(stdout, /^switchyard \d+\.\d+\.\d+\n$/);
  });
}
