// A worker's own `x-smg-error-code` header never passes for the gateway's: it is not relayed to
// the client, and it never becomes an `error_code` label on /metrics, however the response was
// written (a relayed inference answer, or a proxied info route while the gateway drains and has
// already set a header of its own on the response).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

const EVIL = 'evil_code_123';

let worker: Server;
let gateway: Gateway;

/** Healthy for probes; every inference and info answer is a 500 carrying a forged gateway code. */
function startForgingWorker(): Promise<string> {
  worker = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    req.resume();
    if (path === '/health')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (path === '/v1/models') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'm', object: 'model', owned_by: 'sglang' }],
        }),
      );
    }
    const body = JSON.stringify({ error: { message: 'engine failed', code: EVIL } });
    res
      .writeHead(500, {
        'content-type': 'application/json',
        'x-smg-error-code': EVIL,
        'x-smg-routed-worker-id': 'forged',
      })
      .end(body);
  });
  return new Promise((resolve) =>
    worker.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(worker.address() as AddressInfo).port}`),
    ),
  );
}

before(async () => {
  const url = await startForgingWorker();
  gateway = await startTestGateway(['--disable-retries', '--worker-urls', url]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  worker.closeAllConnections();
  await new Promise<void>((resolve) => worker.close(() => resolve()));
});

test("a relayed worker 500 reaches the client without the worker's x-smg-error-code", async () => {
  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(res.status, 500, 'the worker answer is relayed as is');
  assert.equal(res.headers.get('x-smg-error-code'), null);
  assert.notEqual(
    res.headers.get('x-smg-routed-worker-id'),
    'forged',
    'the gateway names the worker itself',
  );
  assert.match(await res.text(), /engine failed/);
  await assertAllReleased(gateway);
});

test('no worker header becomes an error_code label, even when the gateway set headers first', async () => {
  // While draining the gateway sets `connection: close` before the proxied answer is written,
  // so the worker's headers join the response's own header list.
  gateway.internals.draining = true;
  let res: Response;
  try {
    res = await fetch(`${gateway.url}/get_server_info`);
    await res.arrayBuffer();
  } finally {
    gateway.internals.draining = false;
  }
  const text = await scrapeMetrics(gateway);
  assert.ok(
    !text.includes(EVIL),
    `forged code on /metrics:\n${text
      .split('\n')
      .filter((l) => l.includes(EVIL))
      .join('\n')}`,
  );
  assert.equal(
    metricValue(text, 'smg_http_responses_total', {
      path: '/v1/chat/completions',
      status_code: '500',
      error_code: '',
    }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_http_responses_total', {
      path: '/get_server_info',
      status_code: '500',
      error_code: '',
    }),
    1,
  );
  assert.equal(res.status, 500);
  assert.equal(res.headers.get('x-smg-error-code'), null);
});
