// SMG's policy values on the real binary: `passthrough` runs; `bucket`, which Switchyard does
// not implement, exits 2 with one line saying so (not "must be one of", which would suggest a
// typo); `passthrough` is not a leg policy, in SMG either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, runMain, startCli, waitForLog, LOOPBACK_EPHEMERAL } from '../helpers/cli.js';

// '--policy bucket' runs the real binary; the leg flags run the same command table in process.
for (const flag of ['--policy', '--prefill-policy', '--decode-policy']) {
  test(`'${flag} bucket' exits 2: the bucket policy is not supported by Switchyard`, async () => {
    const argv = ['launch', '--pd-disaggregation', flag, 'bucket'];
    const { status, stderr } = flag === '--policy' ? runCli(argv) : await runMain(argv);
    assert.equal(status, 2);
    assert.equal(
      stderr,
      `switchyard launch: ${flag} bucket: the bucket policy is not supported by Switchyard (see docs/compat.md)\n`,
    );
  });
}

test("'--prefill-policy passthrough' is not a value SMG offers for a leg", async () => {
  const { status, stderr } = await runMain([
    'launch',
    '--pd-disaggregation',
    '--prefill-policy',
    'passthrough',
  ]);
  assert.equal(status, 2);
  assert.equal(stderr.trim().split('\n').length, 1);
  assert.match(stderr, /--prefill-policy must be one of .*, got 'passthrough'/);
});

test("'--policy passthrough' launches", async () => {
  const run = startCli(['launch', ...LOOPBACK_EPHEMERAL, '--log-json', '--policy', 'passthrough']);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    assert.equal(listening.policy, 'passthrough');
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});
