// A worker host name that resolved to a worker at registration and later resolves to the cloud
// metadata address (DNS rebinding), or outside --worker-allow-cidr, is refused each time a
// connection is opened: inference, proxied GETs, load polls and health probes fail as a
// connection failure of that worker, and no connection is attempted to the refused address.
//
// The name is `localhost`, resolved by an injected lookup: without the connect-time guard the
// gateway would resolve it for real, so even then every connection stays on loopback.
import assert from 'node:assert/strict';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, test } from 'node:test';
import OpenAI, { APIError } from 'openai';
import { createLogger } from '../../src/observability/logger.js';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';
import { startRecordingWorker, type RecordingWorker } from '../helpers/recording-worker.js';

const NAME = 'localhost';

/** Every address a client socket of this process started connecting to. */
const attempted: string[] = [];
subscribe('net.client.socket', (message) => {
  const { socket } = message as { socket: Socket };
  socket.on('connectionAttempt', (ip: string) => attempted.push(ip));
});

/** The test's DNS: what NAME resolves to right now, and every answer it gave. */
let answer: string[] = ['127.0.0.1'];
const answered: string[][] = [];
const lookup = (host: string): Promise<string[]> => {
  if (host !== NAME) return Promise.reject(new Error(`ENOTFOUND ${host}`));
  answered.push(answer);
  return Promise.resolve(answer);
};
const lookupsOf = (address: string): number => answered.filter((a) => a.includes(address)).length;

let worker: RecordingWorker;
let gateway: Gateway | undefined;
const logLines: { msg: string; host?: string; address?: string }[] = [];

async function startRebindableGateway(flags: string[] = []): Promise<Gateway> {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line) logLines.push(JSON.parse(line) as { msg: string });
      }
      done();
    },
  });
  const logger = createLogger({ level: 'warn', json: true, destination });
  const workerUrl = `http://${NAME}:${new URL(worker.url).port}`;
  gateway = await startTestGateway(['--worker-urls', workerUrl, ...flags], { lookup, logger });
  await waitForReadyWorkers(gateway, 1);
  assert.ok(attempted.includes('127.0.0.1'), 'registration connected to the loopback worker');
  return gateway;
}

/** Drops the keep-alive connections of registration, so the next call must open (and resolve) anew. */
async function dropWorkerConnections(gw: Gateway): Promise<void> {
  worker.closeIdleConnections();
  await waitFor(
    () => Object.values(gw.internals.workerDispatcher.stats).every((s) => s.connected === 0),
    'registration connections closed',
  );
}

function refusalLogs(address: string): number {
  return logLines.filter((l) => l.host === NAME && l.address === address).length;
}

beforeEach(async () => {
  answer = ['127.0.0.1'];
  attempted.length = 0;
  answered.length = 0;
  logLines.length = 0;
  worker = await startRecordingWorker('rebind-model');
});

afterEach(async () => {
  if (gateway) await assertAllReleased(gateway);
  await gateway?.close();
  gateway = undefined;
  await worker.close();
});

void describe('a worker name that rebinds to the metadata address', () => {
  test('inference is answered 500 call_upstream_connection_failed, logged once, never connected', async () => {
    const gw = await startRebindableGateway();
    answer = ['169.254.169.254'];
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const err = await client.completions
      .create({ model: 'rebind-model', prompt: 'hi', max_tokens: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof APIError, `the request was answered: ${String(err)}`);
    assert.equal(err.status, 500);
    assert.equal(err.code, 'call_upstream_connection_failed');
    assert.match(err.message, /link-local or cloud metadata address/);
    // The gateway retried on new connections (default 5 attempts), each refused at its lookup.
    assert.ok(lookupsOf('169.254.169.254') > 1, 'each attempt resolved the name again');
    assert.equal(worker.to('/v1/completions').length, 0, 'nothing reached the worker');
    assert.ok(!attempted.includes('169.254.169.254'), 'no connection to the metadata address');
    assert.equal(refusalLogs('169.254.169.254'), 1, 'the refusal is logged once, not per request');
    const text = await scrapeMetrics(gw);
    const url = gw.internals.registry.all()[0]?.url ?? '';
    assert.ok(
      (metricValue(text, 'smg_worker_errors_total', { error_type: 'connection' }) ?? 0) > 0,
    );
    assert.ok((metricValue(text, 'smg_worker_cb_consecutive_failures', { worker: url }) ?? 0) > 0);
  });

  test('a proxied GET is answered 500 call_upstream_connection_failed', async () => {
    const gw = await startRebindableGateway();
    answer = ['169.254.169.254'];
    const before = worker.to('/get_server_info').length;
    await assertGatewayError(
      await fetch(`${gw.url}/get_server_info`),
      500,
      'call_upstream_connection_failed',
    );
    assert.equal(worker.to('/get_server_info').length, before, 'nothing reached the worker');
    assert.ok(!attempted.includes('169.254.169.254'), 'no connection to the metadata address');
  });

  test('load polls and health probes fail as connection failures', async () => {
    const gw = await startRebindableGateway();
    const registered = gw.internals.registry.all()[0];
    assert.ok(registered);
    await dropWorkerConnections(gw);
    answer = ['169.254.169.254'];
    const healthBefore = worker.to('/health').length;
    await gw.internals.loadMonitor?.pollAll();
    await gw.internals.health.probeOnce(registered);
    assert.equal(worker.to('/v1/loads').length, 0, 'no load poll reached the worker');
    assert.equal(worker.to('/metrics').length, 0, 'no metrics poll reached the worker');
    assert.equal(worker.to('/health').length, healthBefore, 'no probe reached the worker');
    assert.equal(registered.loadSnapshot, undefined, 'no load was recorded');
    const text = await scrapeMetrics(gw);
    assert.ok(
      (metricValue(text, 'smg_worker_health_checks_total', { result: 'failure' }) ?? 0) > 0,
    );
    assert.ok(!attempted.includes('169.254.169.254'), 'no connection to the metadata address');
  });
});

void describe('--worker-allow-cidr at connect time', () => {
  test('a name that later resolves outside the ranges is refused', async () => {
    const gw = await startRebindableGateway(['--worker-allow-cidr', '127.0.0.0/8']);
    answer = ['10.20.30.40'];
    const res = await fetch(`${gw.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'rebind-model', prompt: 'hi', max_tokens: 1 }),
    });
    const error = await assertGatewayError(res, 500, 'call_upstream_connection_failed');
    assert.match(error.message, /--worker-allow-cidr \(localhost resolves to 10\.20\.30\.40\)/);
    assert.equal(worker.to('/v1/completions').length, 0, 'nothing reached the worker');
    assert.ok(!attempted.includes('10.20.30.40'), 'no connection outside the ranges');
    assert.equal(refusalLogs('10.20.30.40'), 1);
  });
});
