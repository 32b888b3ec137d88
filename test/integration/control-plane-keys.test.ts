// SMG's split of keys: with --control-plane-api-keys, admin routes take only those keys
// (`admin` may do anything, `user` may only read), and --api-key opens the data plane alone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { startRecordingWorker, type RecordingWorker } from '../helpers/recording-worker.js';

let worker: RecordingWorker;
let gateway: Gateway;
const DATA = { authorization: 'Bearer data-key' };
const ADMIN = { authorization: 'Bearer cp-admin' };
// The key part may hold colons: only the first three split the entry.
const READER = { authorization: 'Bearer cp:reader:key' };

before(async () => {
  worker = await startRecordingWorker();
  gateway = await startTestGateway([
    '--api-key',
    'data-key',
    '--control-plane-api-keys',
    'ops:Operations:admin:cp-admin',
    'ro:Dashboards:USER:cp:reader:key',
    '--worker-urls',
    worker.url,
  ]);
  await waitForReadyWorkers(gateway, 1);
});

after(async () => {
  await gateway.close();
  await worker.close();
});

test('--api-key no longer opens admin routes once control-plane keys are set', async () => {
  await assertGatewayError(
    await fetch(`${gateway.url}/workers`, { headers: DATA }),
    401,
    'unauthorized',
  );
  await assertGatewayError(
    await postJson(`${gateway.url}/flush_cache`, {}, DATA),
    401,
    'unauthorized',
  );
  await assertGatewayError(await fetch(`${gateway.url}/workers`), 401, 'unauthorized');
});

test('an admin control-plane key opens every admin route and method', async () => {
  const list = await fetch(`${gateway.url}/workers`, { headers: ADMIN });
  assert.equal(list.status, 200);
  await list.arrayBuffer();
  const added = await postJson(`${gateway.url}/workers`, { url: 'http://127.0.0.1:9' }, ADMIN);
  assert.equal(added.status, 202, await added.text());
  const id = added.headers.get('location') ?? '';
  const removed = await fetch(`${gateway.url}${id}`, { method: 'DELETE', headers: ADMIN });
  assert.equal(removed.status, 202);
  await removed.arrayBuffer();
});

test('a user control-plane key may read but not change anything', async () => {
  const list = await fetch(`${gateway.url}/workers`, { headers: READER });
  assert.equal(list.status, 200);
  await list.arrayBuffer();
  await assertGatewayError(
    await postJson(`${gateway.url}/workers`, { url: 'http://127.0.0.1:9' }, READER),
    403,
    'forbidden',
  );
  await assertGatewayError(
    await postJson(`${gateway.url}/flush_cache`, {}, READER),
    403,
    'forbidden',
  );
});

test('the data plane takes --api-key, never a control-plane key', async () => {
  const body = { model: 'recorded-model', prompt: 'x', max_tokens: 1 };
  await assertGatewayError(
    await postJson(`${gateway.url}/v1/completions`, body, ADMIN),
    401,
    'unauthorized',
  );
  const ok = await postJson(`${gateway.url}/v1/completions`, body, DATA);
  assert.equal(ok.status, 200);
  await ok.arrayBuffer();
});

test('no load lease is left behind', async () => {
  await assertAllReleased(gateway);
});
