// SMG sets x-request-id on every response of the main listener, its own errors included,
// because its request-id layer wraps the whole router. A client's id is echoed on errors too,
// so a failed request can be found in the logs by the id the client sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { COMPLETION_BODY, holdPermit, partialRequest } from '../helpers/slow-clients.js';

const ID = /^(req|cmpl)-[A-Za-z0-9]{24}$/;
let worker: SimWorker;
/** No key; small limits, so each error is easy to provoke. */
let open: Gateway;
/** `--api-key` and no worker at all. */
let keyed: Gateway;

before(async () => {
  worker = await startSimWorker({ ttftMs: 1, itlMs: 40 });
  open = await startTestGateway([
    '--worker-urls',
    worker.url,
    '--max-payload-size',
    '2048',
    '--max-concurrent-requests',
    '1',
    '--queue-size',
    '0',
    '--request-body-timeout-secs',
    '1',
  ]);
  keyed = await startTestGateway(['--api-key', 'sk-gw']);
  await waitForReadyWorkers(open, 1);
});

after(async () => {
  await open.close();
  await keyed.close();
  await worker.close();
});

async function assertErrorWithId(
  res: Response,
  status: number,
  code: string,
  id: RegExp | string,
): Promise<void> {
  const header = res.headers.get('x-request-id') ?? '';
  await assertGatewayError(res, status, code);
  if (typeof id === 'string') assert.equal(header, id, `${status} ${code}`);
  else assert.match(header, id, `${status} ${code}`);
}

test('gateway errors before routing carry x-request-id: 404, 405, 401', async () => {
  await assertErrorWithId(await fetch(`${open.url}/no/such/route`), 404, 'not_found', ID);
  await assertErrorWithId(
    await fetch(`${open.url}/liveness`, { method: 'POST' }),
    405,
    'method_not_allowed',
    ID,
  );
  await assertErrorWithId(
    await postJson(`${keyed.url}/v1/completions`, COMPLETION_BODY),
    401,
    'unauthorized',
    /^cmpl-/,
  );
  const echoed = await fetch(`${open.url}/no/such/route`, {
    headers: { 'x-request-id': 'client-7' },
  });
  await assertErrorWithId(echoed, 404, 'not_found', 'client-7');
});

test('body and admission errors carry x-request-id: 400, 413, 429, 503', async () => {
  await assertErrorWithId(
    await postJson(`${open.url}/v1/completions`, '{not json'),
    400,
    'invalid_json',
    /^cmpl-/,
  );
  await assertErrorWithId(
    await postJson(`${open.url}/v1/completions`, { prompt: 'x'.repeat(4096) }),
    413,
    'payload_too_large',
    /^cmpl-/,
  );
  const release = await holdPermit(open);
  await assertErrorWithId(
    await postJson(`${open.url}/v1/chat/completions`, { model: 'sim-model', messages: [] }),
    429,
    'admission_queue_full',
    /^chatcmpl-/,
  );
  release();
  await waitFor(() => open.internals.limiter?.inflight === 0, 'permit released');
  const noWorker = await postJson(
    `${keyed.url}/generate`,
    { text: 'x' },
    { authorization: 'Bearer sk-gw', 'x-trace-id': 'trace-503' },
  );
  assert.equal(noWorker.status, 503);
  assert.equal(noWorker.headers.get('x-request-id'), 'trace-503');
});

test('the 408 for a body that never arrives carries x-request-id', async () => {
  const raw = partialRequest(open, 10);
  const answer = await raw.answer;
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.match(answer.split('\r\n\r\n')[0] ?? '', /\r\nx-request-id: cmpl-[A-Za-z0-9]{24}\r\n/i);
});

test('probes, model list and admin routes carry x-request-id', async () => {
  for (const path of ['/liveness', '/health', '/readiness', '/v1/models', '/workers']) {
    const res = await fetch(`${open.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('x-request-id') ?? '', /^req-[A-Za-z0-9]{24}$/, path);
    await res.arrayBuffer();
  }
});

test('no load lease or permit is left behind', async () => {
  await assertAllReleased(open);
});
