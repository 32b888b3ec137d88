// `switchyard launch --health-check-port`: the binary opens the probe listener on --host, says
// where in its 'switchyard listening' line, answers the probes there (an inference route is 404),
// and closes it on SIGTERM.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { startCli, waitForLog, LOOPBACK_EPHEMERAL } from '../helpers/cli.js';

let worker: SimWorker | undefined;
after(async () => worker?.close());

test('--health-check-port serves the probes from the binary and closes on SIGTERM', async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  const run = startCli([
    'launch',
    ...LOOPBACK_EPHEMERAL,
    '--health-check-port',
    '0',
    '--log-json',
    '--worker-urls',
    worker.url,
  ]);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    const probe = String(listening.healthCheck);
    assert.match(probe, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(probe, String(listening.url));
    await waitForLog(run, 'worker registered');
    const live = await fetch(`${probe}/liveness`);
    assert.equal(live.status, 200);
    assert.equal(await live.text(), 'OK');
    const ready = await fetch(`${probe}/readiness`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');
    const chat = await fetch(`${probe}/v1/chat/completions`, { method: 'POST', body: '{}' });
    assert.equal(chat.status, 404);
    await chat.arrayBuffer();
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
    await assert.rejects(fetch(`${probe}/liveness`), 'the probe port is closed');
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('without --health-check-port no probe listener is announced', async () => {
  const run = startCli(['launch', ...LOOPBACK_EPHEMERAL, '--log-json']);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    assert.equal(listening.healthCheck, undefined);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});
