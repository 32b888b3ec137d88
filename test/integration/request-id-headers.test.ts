// The request id as SMG's RequestIdLayer: taken from x-request-id, x-correlation-id, x-trace-id
// or request-id (first present wins) unless --request-id-headers replaces that list; otherwise
// generated per route (chatcmpl-, cmpl-, gnt-, ... req-). The id is echoed as x-request-id and
// sent to the worker as x-request-id.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import {
  rawPost,
  startRecordingWorker,
  type RecordingWorker,
} from '../helpers/recording-worker.js';

let worker: RecordingWorker;
let byDefault: Gateway;
let replaced: Gateway;
const body = { model: 'recorded-model', prompt: 'x', max_tokens: 1 };

before(async () => {
  worker = await startRecordingWorker();
  byDefault = await startTestGateway(['--worker-urls', worker.url]);
  replaced = await startTestGateway(['--worker-urls', worker.url, '--request-id-headers', 'foo']);
  await waitForReadyWorkers(byDefault, 1);
  await waitForReadyWorkers(replaced, 1);
});

after(async () => {
  await byDefault.close();
  await replaced.close();
  await worker.close();
});

function lastUpstreamId(): string | string[] | undefined {
  return worker.to('/v1/completions').at(-1)?.headers['x-request-id'];
}

test('a client x-correlation-id is the request id: echoed to the client and sent to the worker', async () => {
  const client = new OpenAI({ baseURL: `${byDefault.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const { response } = await client.completions
    .create(body, { headers: { 'x-correlation-id': 'corr-42' } })
    .withResponse();
  assert.equal(response.headers.get('x-request-id'), 'corr-42');
  assert.equal(lastUpstreamId(), 'corr-42');
  assert.equal(worker.to('/v1/completions').at(-1)?.headers['x-correlation-id'], 'corr-42');
});

test('the default list is read in SMG order: x-request-id, x-correlation-id, x-trace-id, request-id', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ 'x-trace-id': 'trace-1' }, 'trace-1'],
    [{ 'request-id': 'plain-1' }, 'plain-1'],
    [{ 'request-id': 'plain-2', 'x-trace-id': 'trace-2' }, 'trace-2'],
    [{ 'x-trace-id': 'trace-3', 'x-correlation-id': 'corr-3', 'x-request-id': 'req-3' }, 'req-3'],
  ];
  for (const [headers, expected] of cases) {
    const res = await rawPost(`${byDefault.url}/v1/completions`, body, headers);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-request-id'], expected, JSON.stringify(headers));
    assert.equal(lastUpstreamId(), expected);
  }
});

test('--request-id-headers replaces the default list instead of adding to it', async () => {
  const named = await rawPost(`${replaced.url}/v1/completions`, body, {
    foo: 'from-foo',
    'x-request-id': 'ignored',
  });
  assert.equal(named.headers['x-request-id'], 'from-foo');
  assert.equal(lastUpstreamId(), 'from-foo');

  const unnamed = await rawPost(`${replaced.url}/v1/completions`, body, {
    'x-request-id': 'not-listed',
    'x-correlation-id': 'nor-this',
  });
  const id = String(unnamed.headers['x-request-id']);
  assert.match(id, /^cmpl-[A-Za-z0-9]{24}$/, 'a header outside the list is not an id source');
  assert.equal(lastUpstreamId(), id);
});

test("a generated id has SMG's route prefix and reaches the worker", async () => {
  const res = await rawPost(`${byDefault.url}/v1/completions`, body, {});
  const id = String(res.headers['x-request-id']);
  assert.match(id, /^cmpl-[A-Za-z0-9]{24}$/);
  assert.equal(lastUpstreamId(), id);
});

test('a request-id header the client names in Connection is not used', async () => {
  const res = await rawPost(`${byDefault.url}/v1/completions`, body, {
    connection: 'keep-alive, x-correlation-id',
    'x-correlation-id': 'hop-only',
    'x-trace-id': 'end-to-end',
  });
  assert.equal(res.headers['x-request-id'], 'end-to-end');
  assert.equal(lastUpstreamId(), 'end-to-end');
});

test('no load lease is left behind', async () => {
  await assertAllReleased(byDefault);
  await assertAllReleased(replaced);
});
