// SIGTERM: the gateway stops accepting, finishes the stream in flight, and exits 0.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { parseSseData } from '@switchyard/sim/testing';
import { startCli, waitForLog, LOOPBACK_EPHEMERAL } from '../helpers/cli.js';

let worker: SimWorker | undefined;
after(async () => worker?.close());

test('SIGTERM drains the in-flight stream, refuses new connections, exits 0', async () => {
  worker = await startSimWorker({ model: 'sim-model', ttftMs: 5, itlMs: 40 });
  const run = startCli([
    'launch',
    ...LOOPBACK_EPHEMERAL,
    '--log-json',
    '--shutdown-grace-period-secs',
    '20',
    '--worker-urls',
    worker.url,
  ]);
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    const url = String(listening.url);
    await waitForLog(run, 'worker registered');
    const res = await request(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim-model',
        prompt: 'drain me',
        max_tokens: 20,
        stream: true,
      }),
    });
    assert.equal(res.statusCode, 200);
    const bodyText = res.body.text();
    await new Promise((r) => setTimeout(r, 100));
    run.child.kill('SIGTERM');
    await waitForLog(run, 'shutting down');
    await assert.rejects(request(`${url}/liveness`), 'new connections are refused while draining');
    const events = parseSseData(await bodyText);
    assert.equal(events.at(-1), '[DONE]', 'the in-flight stream finished');
    assert.equal(events.length, 22, '20 tokens, the finish chunk and [DONE]');
    assert.equal(await run.exited, 0);
    assert.equal(worker.stats().aborted, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});
