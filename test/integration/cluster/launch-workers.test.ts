// `switchyard launch --workers 2`, run as a user would: one 'switchyard listening' line for two
// gateway processes sharing one port (asked for as port 0), requests spread over both, one
// aggregated /metrics that counts the sum and does not multiply fleet state, a SIGKILLed process
// forked again while the service goes on, and SIGTERM draining both (a stream in flight
// finishes) and exiting 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { startCli, waitForLog, LOOPBACK_EPHEMERAL, type Running } from '../../helpers/cli.js';
import { openDashboardEvents } from '../../helpers/dashboard-events.js';
import { IN_FLIGHT_GAUGES, metricValue } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let worker: SimWorker | undefined;
after(async () => worker?.close());

function logs(run: Running, msg: string): Record<string, unknown>[] {
  return run
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.msg === msg);
}

/** One completion on a connection of its own: the primary hands each connection to the next process. */
async function complete(url: string): Promise<number> {
  const res = await request(`${url}/v1/completions`, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-model', prompt: 'spread me', max_tokens: 2 }),
  });
  await res.body.text();
  return res.statusCode;
}

async function scrape(metricsUrl: string): Promise<string> {
  const res = await fetch(metricsUrl);
  assert.equal(res.status, 200);
  return res.text();
}

function promtool(): string {
  const local = '.tmp/tools/root/usr/bin/promtool';
  return process.env.PROMTOOL ?? (existsSync(local) ? local : 'promtool');
}

const COMPLETIONS = { method: 'POST', path: '/v1/completions' };

test('launch --workers 2: one port, two processes, aggregated metrics, restart, drain', async () => {
  worker = await startSimWorker({ model: 'sim-model', ttftMs: 1, itlMs: 20 });
  const run = startCli([
    'launch',
    ...LOOPBACK_EPHEMERAL,
    '--workers',
    '2',
    '--health-check-port',
    '0',
    '--log-json',
    '--shutdown-grace-period-secs',
    '5',
    // A second before the first probe: a restarted process would take connections for that
    // second without a worker, were it to listen before its worker serves.
    '--worker-startup-delay',
    '1',
    '--worker-urls',
    worker.url,
  ]);
  try {
    const listening = await waitForLog(run, 'switchyard listening', 20_000);
    const url = String(listening.url);
    const metricsUrl = String(listening.metrics);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(url).port, '0');
    assert.equal(listening.processes, 2);
    const pids = listening.pids as number[];
    assert.equal(new Set(pids).size, 2, 'two gateway processes');
    assert.ok(!pids.includes(run.child.pid ?? -1), 'the primary serves no clients itself');
    await waitFor(() => logs(run, 'worker registered').length === 2, 'both to register', 10_000);
    // A second port-0 listener in each process is shared as well (the probe port, per process).
    const probe = String(listening.healthCheck);
    assert.match(probe, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(probe, url);
    for (let i = 0; i < 4; i++) {
      const ready = await request(`${probe}/readiness`, { reset: true });
      assert.equal(ready.statusCode, 200);
      await ready.body.dump();
    }

    for (let i = 0; i < 10; i++) assert.equal(await complete(url), 200);
    const text = await scrape(metricsUrl);
    assert.equal(metricValue(text, 'smg_http_requests_total', COMPLETIONS), 10, 'the sum');
    const perProcess = ['0', '1'].map(
      (process) => metricValue(text, 'smg_cluster_process_http_requests_total', { process }) ?? 0,
    );
    assert.ok(
      perProcess.every((n) => n > 0),
      `both processes served: ${perProcess.join(', ')}`,
    );
    assert.equal(
      metricValue(text, 'smg_worker_health', { worker: worker.url }),
      1,
      'fleet state is not multiplied by the processes',
    );
    assert.equal(metricValue(text, 'smg_cluster_processes'), 2);
    // The primary's dashboard reads the same aggregate: one row for the worker, not one per process.
    const dashboardUrl = String(listening.dashboard);
    assert.equal(dashboardUrl, metricsUrl.replace(/\/metrics$/, '/dashboard'));
    const events = await openDashboardEvents(dashboardUrl);
    try {
      const frame = await events.until((f) => f.workers.length > 0, 'the worker');
      assert.deepEqual(
        frame.workers.map((w) => [w.worker, w.type, w.runtime, w.healthy, w.circuit]),
        [[worker.url, 'regular', 'sglang', true, 'closed']],
      );
    } finally {
      events.close();
    }
    const check = spawnSync(promtool(), ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.ok(!check.error, `promtool not runnable (${String(check.error)})`);
    assert.equal(check.status, 0, `promtool said: ${check.stdout}${check.stderr}`);

    process.kill(pids[0] ?? -1, 'SIGKILL');
    await waitForLog(run, 'gateway process exited unexpectedly');
    // Requests keep coming, each on a new connection, through the restart and right after it:
    // the new process takes connections only once its worker serves, so none is answered 503.
    let restartSeen = false;
    const restartLog = waitForLog(run, 'gateway process restarted', 20_000).finally(
      () => (restartSeen = true),
    );
    const statuses: number[] = [];
    while (!restartSeen) statuses.push(await complete(url));
    const restarted = await restartLog;
    assert.ok(!pids.includes(Number(restarted.pid)), 'a new process');
    assert.equal(logs(run, 'worker registered').length, 3, 'registered before it listened');
    for (let i = 0; i < 6; i++) statuses.push(await complete(url));
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
      'no request failed while a process restarted',
    );
    const later = await scrape(metricsUrl);
    assert.equal(metricValue(later, 'smg_cluster_process_restarts_total'), 1);
    assert.equal(metricValue(later, 'smg_cluster_processes'), 2);
    assert.equal(
      metricValue(later, 'smg_http_requests_total', COMPLETIONS),
      10 + statuses.length,
      "the killed process's requests are still counted: the sum never goes backwards",
    );
    const held = later
      .split('\n')
      .filter((line) =>
        IN_FLIGHT_GAUGES.some((g) => line.startsWith(`${g} `) || line.startsWith(`${g}{`)),
      )
      .filter((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) !== 0);
    assert.deepEqual(held, [], 'in-flight gauges back to zero');

    // A stream in flight at SIGTERM: its process drains it before exiting (30 tokens, 20 ms apart).
    const stream = await request(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-model', prompt: 'drain', max_tokens: 30, stream: true }),
    });
    assert.equal(stream.statusCode, 200);
    const body = stream.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let streamed = '';
    while (!streamed.includes('\n\n')) {
      const chunk = await body.next();
      assert.ok(!chunk.done, 'the stream ended before its first event');
      streamed += chunk.value.toString();
    }
    assert.ok(!streamed.includes('[DONE]'), 'the stream was still running at SIGTERM');
    run.child.kill('SIGTERM');
    for (let chunk = await body.next(); !chunk.done; chunk = await body.next())
      streamed += chunk.value.toString();
    assert.ok(streamed.trimEnd().endsWith('data: [DONE]'), 'the in-flight stream finished');
    assert.equal(await run.exited, 0);
    assert.equal(logs(run, 'stopped').length, 1);
    assert.equal(logs(run, 'switchyard listening').length, 1, 'one line for the launch');
    await assert.rejects(request(`${url}/liveness`), 'the shared port is closed');
  } finally {
    run.child.kill('SIGKILL');
  }
});
