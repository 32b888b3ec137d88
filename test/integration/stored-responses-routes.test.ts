// The stored-response routes (GET/DELETE /v1/responses/{id}, input_items, cancel) on a real
// gateway in front of a simulated worker, over the default memory history store: the responses
// are put into the gateway's own store, as POST /v1/responses would store them, and read back
// through the routes with SMG's bodies and codes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import type { StoredResponse } from '../../src/storage/history-store.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';

let fleet: SimWorker[];
let gateway: Gateway;
let client: OpenAI;
let base: string;

before(async () => {
  fleet = await startSimFleet(1, { model: 'sim-model' });
  gateway = await startTestGateway(['--worker-urls', ...fleet.map((w) => w.url)]);
  await waitForReadyWorkers(gateway, 1);
  base = `${gateway.url}/v1/responses`;
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

let seq = 0;
async function store(status: string, input: StoredResponse['input'] = []): Promise<StoredResponse> {
  seq += 1;
  const id = `resp_test${seq}`;
  const stored: StoredResponse = {
    id,
    input,
    response: {
      id,
      object: 'response',
      created_at: 1700000000 + seq,
      status,
      model: 'sim-model',
      output: [
        {
          id: `msg_out${seq}`,
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'hello', annotations: [] }],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
    },
    model: 'sim-model',
    createdAt: 1700000000 + seq,
  };
  await gateway.internals.history.putResponse(stored);
  return stored;
}

test('GET answers the stored response body as it was; the openai client reads it', async () => {
  const stored = await store('completed');
  const res = await fetch(`${base}/${stored.id}`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), stored.response);
  const read = await client.responses.retrieve(stored.id);
  assert.equal(read.id, stored.id);
  assert.equal(read.output_text, 'hello');
  const head = await fetch(`${base}/${stored.id}`, { method: 'HEAD' });
  assert.equal(head.status, 200);
});

test('an unknown id: 404 not_found on GET, DELETE and input_items', async () => {
  for (const [method, path] of [
    ['GET', '/resp_nope'],
    ['DELETE', '/resp_nope'],
    ['GET', '/resp_nope/input_items'],
  ] as const) {
    const err = await assertGatewayError(
      await fetch(`${base}${path}`, { method }),
      404,
      'not_found',
    );
    assert.equal(err.message, "No response found with id 'resp_nope'");
  }
});

test('DELETE answers response.deleted, and the response is gone', async () => {
  const stored = await store('completed');
  const res = await fetch(`${base}/${stored.id}`, { method: 'DELETE' });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { id: stored.id, object: 'response.deleted', deleted: true });
  assert.equal((await fetch(`${base}/${stored.id}`)).status, 404);
  assert.equal(await gateway.internals.history.getResponse(stored.id), undefined);
  await assertGatewayError(
    await fetch(`${base}/${stored.id}`, { method: 'DELETE' }),
    404,
    'not_found',
  );
  const viaClient = await store('completed');
  await client.responses.delete(viaClient.id);
  assert.equal(await gateway.internals.history.getResponse(viaClient.id), undefined);
});

test('input_items lists the stored input at once; an item without id is shown with a msg_ id', async () => {
  const withId = {
    id: 'msg_in1',
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'hi' }],
  };
  const output = { id: 'fc_1', type: 'function_call_output', call_id: 'c1', output: '42' };
  const noId = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] };
  const stored = await store('completed', [withId, output, noId]);
  // Query parameters are not read: there is no pagination.
  const res = await fetch(`${base}/${stored.id}/input_items?limit=1&order=desc`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    object: string;
    data: Record<string, unknown>[];
    first_id: string;
    last_id: string;
    has_more: boolean;
  };
  assert.equal(body.object, 'list');
  assert.equal(body.has_more, false);
  assert.equal(body.data.length, 3);
  assert.deepEqual(body.data[0], withId);
  assert.deepEqual(body.data[1], output);
  const { id, ...rest } = body.data[2] ?? {};
  assert.match(String(id), /^msg_[0-9a-f]{50}$/);
  assert.deepEqual(rest, noId);
  assert.equal(body.first_id, 'msg_in1');
  assert.equal(body.last_id, id);
  const empty = await store('completed', []);
  const none = (await (await fetch(`${base}/${empty.id}/input_items`)).json()) as Record<
    string,
    unknown
  >;
  assert.deepEqual(none, {
    object: 'list',
    data: [],
    first_id: null,
    last_id: null,
    has_more: false,
  });
});

test('cancel: 404 response_not_found, else a 400 for how the response ended', async () => {
  const missing = await assertGatewayError(
    await fetch(`${base}/resp_nope/cancel`, { method: 'POST' }),
    404,
    'response_not_found',
  );
  assert.equal(missing.message, "Response with id 'resp_nope' not found");
  const cases: [string, string, string][] = [
    ['completed', 'response_already_completed', 'Cannot cancel completed response'],
    ['failed', 'response_already_failed', 'Cannot cancel failed response'],
    [
      'in_progress',
      'cancellation_not_supported',
      'Background mode is not supported. Synchronous and streaming responses cannot be cancelled.',
    ],
    [
      'incomplete',
      'cancellation_not_supported',
      'Background mode is not supported. Synchronous and streaming responses cannot be cancelled.',
    ],
  ];
  for (const [status, code, message] of cases) {
    const stored = await store(status);
    const err = await assertGatewayError(
      await fetch(`${base}/${stored.id}/cancel`, { method: 'POST' }),
      400,
      code,
    );
    assert.equal(err.message, message);
    // Cancel never changes what is stored.
    assert.deepEqual(await (await fetch(`${base}/${stored.id}`)).json(), stored.response);
  }
  await assert.rejects(client.responses.cancel('resp_nope'), OpenAI.NotFoundError);
});

test('PD mode answers from the store as well (SMG’s HTTP PD router answers cancel 501)', async () => {
  const pd = await startTestGateway(['--pd-disaggregation']);
  try {
    const id = 'resp_pd1';
    await pd.internals.history.putResponse({
      id,
      input: [],
      response: { id, object: 'response', status: 'completed', output: [] },
      createdAt: 1700000000,
    });
    const got = await fetch(`${pd.url}/v1/responses/${id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), { id, object: 'response', status: 'completed', output: [] });
    await assertGatewayError(
      await fetch(`${pd.url}/v1/responses/${id}/cancel`, { method: 'POST' }),
      400,
      'response_already_completed',
    );
    const deleted = await fetch(`${pd.url}/v1/responses/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    await assertAllReleased(pd);
  } finally {
    await pd.close();
  }
});
