// SIGTERM: the gateway stops accepting, finishes the stream in flight, and exits 0. SIGTERM is
// sent once the first event arrived, so the worker is mid-stream and the gateway must drain it.
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
    // Read until the first whole event: the worker is then mid-stream (20 tokens, 40 ms apart).
    let text = '';
    const body = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    while (!text.includes('\n\n')) {
      const chunk = await body.next();
      assert.ok(!chunk.done, 'the stream ended before its first event');
      text += chunk.value.toString();
    }
    const atSigterm = parseSseData(text.slice(0, text.lastIndexOf('\n\n') + 2)).length;
    assert.ok(!text.includes('[DONE]'), 'the stream was still running at SIGTERM');
    run.child.kill('SIGTERM');
    await waitForLog(run, 'shutting down');
    await assert.rejects(request(`${url}/liveness`), 'new connections are refused while draining');
    for (let chunk = await body.next(); !chunk.done; chunk = await body.next())
      text += chunk.value.toString();
    const events = parseSseData(text);
    assert.equal(events.at(-1), '[DONE]', 'the in-flight stream finished');
    assert.equal(events.length, 22, '20 tokens, the finish chunk and [DONE]');
    assert.ok(events.length > atSigterm, `${atSigterm} events before SIGTERM, none after`);
    assert.equal(await run.exited, 0);
    assert.equal(worker.stats().aborted, 0);
  } finally {
    run.child.kill('SIGKILL');
  }
});
