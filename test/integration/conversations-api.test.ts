// The Conversations API on a real gateway (the default memory history store) in front of a
// simulated worker: the official openai client's conversations.* calls, then raw requests for
// SMG's exact bodies, its `{"error": "<message>"}` errors and the one error it shapes as OpenAI's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

let fleet: SimWorker[];
let gateway: Gateway;
let client: OpenAI;
let base: string;

before(async () => {
  fleet = await startSimFleet(1, { model: 'sim-model' });
  gateway = await startTestGateway(['--worker-urls', ...fleet.map((w) => w.url)]);
  await waitForReadyWorkers(gateway, 1);
  base = `${gateway.url}/v1/conversations`;
  client = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

const user = (text: string): Record<string, unknown> => ({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});

async function newConversation(body: Record<string, unknown> = {}): Promise<string> {
  const res = await postJson(base, body);
  assert.equal(res.status, 200);
  return ((await res.json()) as { id: string }).id;
}

async function addItems(id: string, items: unknown[]): Promise<Response> {
  return postJson(`${base}/${id}/items`, { items });
}

async function listIds(id: string, query = ''): Promise<string[]> {
  const res = await fetch(`${base}/${id}/items${query}`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { data: { id: string }[] }).data.map((i) => i.id);
}

/** SMG's conversation error: exactly `{"error": message}`. */
async function assertConversationError(
  res: Response,
  status: number,
  message: string | RegExp,
): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['error']);
  if (typeof message === 'string') assert.equal(body.error, message);
  else assert.match(String(body.error), message);
}

describe('the openai client', () => {
  test('create, retrieve, update and delete a conversation', async () => {
    const created = await client.conversations.create({ metadata: { topic: 'demo', a: '1' } });
    assert.match(created.id, /^conv_[0-9a-f]{50}$/);
    assert.equal(created.object, 'conversation');
    assert.ok(Math.abs(created.created_at - Date.now() / 1000) < 120);
    assert.deepEqual(created.metadata, { topic: 'demo', a: '1' });
    const got = await client.conversations.retrieve(created.id);
    assert.deepEqual(got, created);
    // A patch: `a` removed by null, `b` added, `topic` kept.
    const updated = await client.conversations.update(created.id, {
      metadata: { a: null, b: '2' } as unknown as Record<string, string>,
    });
    assert.deepEqual(updated.metadata, { topic: 'demo', b: '2' });
    assert.deepEqual((await client.conversations.retrieve(created.id)).metadata, updated.metadata);
    const deleted = await client.conversations.delete(created.id);
    assert.deepEqual(deleted, { id: created.id, object: 'conversation.deleted', deleted: true });
    await assert.rejects(client.conversations.retrieve(created.id), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      return true;
    });
  });

  test('items: create, list with limit, order and after, retrieve and delete', async () => {
    const conv = await client.conversations.create();
    const added = await client.conversations.items.create(conv.id, {
      items: [1, 2, 3, 4, 5].map((n) => ({ type: 'message', role: 'user', content: `m${n}` })),
    });
    assert.equal(added.object, 'list');
    assert.equal(added.data.length, 5);
    const ids = added.data.map((i) => String(i.id));
    for (const id of ids) assert.match(id, /^msg_[0-9a-f]{50}$/);
    assert.equal(added.first_id, ids[0]);
    assert.equal(added.last_id, ids[4]);
    assert.equal(added.has_more, false);

    const asc = await client.conversations.items.list(conv.id, { order: 'asc', limit: 2 });
    assert.deepEqual(
      asc.data.map((i) => i.id),
      ids.slice(0, 2),
    );
    assert.equal(asc.has_more, true);
    const next = await client.conversations.items.list(conv.id, {
      order: 'asc',
      limit: 2,
      after: asc.last_id,
    });
    assert.deepEqual(
      next.data.map((i) => i.id),
      ids.slice(2, 4),
    );
    // Every page in turn, as the client pages with `after`.
    const all: string[] = [];
    for await (const item of client.conversations.items.list(conv.id, { order: 'asc', limit: 2 }))
      all.push(String(item.id));
    assert.deepEqual(all, ids);
    // Newest first when no order is given.
    const desc = await client.conversations.items.list(conv.id);
    assert.deepEqual(
      desc.data.map((i) => i.id),
      [...ids].reverse(),
    );
    assert.equal(desc.has_more, false);

    const one = await client.conversations.items.retrieve(ids[1] as string, {
      conversation_id: conv.id,
    });
    assert.deepEqual(one, {
      id: ids[1],
      type: 'message',
      role: 'user',
      content: 'm2',
      status: 'completed',
    });
    const after = await client.conversations.items.delete(ids[1] as string, {
      conversation_id: conv.id,
    });
    assert.deepEqual(after, { id: conv.id, object: 'conversation', created_at: conv.created_at });
    assert.deepEqual(await listIds(conv.id, '?order=asc'), [ids[0], ids[2], ids[3], ids[4]]);
    await assert.rejects(
      client.conversations.items.retrieve(ids[1] as string, { conversation_id: conv.id }),
      OpenAI.NotFoundError,
    );
  });
});

describe('exact bodies', () => {
  test('a conversation without metadata has none in its body; 404s are {"error": message}', async () => {
    const res = await postJson(base, {});
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'id', 'object']);
    for (const method of ['GET', 'DELETE'])
      await assertConversationError(
        await fetch(`${base}/conv_missing`, { method }),
        404,
        'Conversation not found',
      );
    await assertConversationError(
      await postJson(`${base}/conv_missing`, { metadata: {} }),
      404,
      'Conversation not found',
    );
    for (const path of ['/items', '/items/msg_x'])
      await assertConversationError(
        await fetch(`${base}/conv_missing${path}`),
        404,
        'Conversation not found',
      );
    await assertConversationError(
      await addItems('conv_missing', [user('x')]),
      404,
      'Conversation not found',
    );
    const head = await fetch(`${base}/${String(body.id)}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('metadata: more than 16 keys, or not an object, is a 400 that changes nothing', async () => {
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = 'metadata cannot have more than 16 properties';
    await assertConversationError(await postJson(base, { metadata: many }), 400, tooMany);
    await assertConversationError(
      await postJson(base, { metadata: 'x' }),
      400,
      'metadata must be an object',
    );
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v']));
    const id = await newConversation({ metadata: sixteen });
    await assertConversationError(
      await postJson(`${base}/${id}`, { metadata: { extra: 'v' } }),
      400,
      tooMany,
    );
    const kept = (await (await fetch(`${base}/${id}`)).json()) as { metadata: unknown };
    assert.deepEqual(kept.metadata, sixteen);
    // Replacing one key within the limit is fine.
    const swapped = await postJson(`${base}/${id}`, { metadata: { k0: null, extra: 'v' } });
    assert.equal(swapped.status, 200);
    const meta = ((await swapped.json()) as { metadata: Record<string, string> }).metadata;
    assert.equal(Object.keys(meta).length, 16);
    assert.equal(meta.extra, 'v');
    assert.equal(meta.k0, undefined);
  });

  test('body errors keep axum’s statuses in the gateway envelope', async () => {
    const noType = await fetch(base, { method: 'POST', body: '{}' });
    await assertGatewayError(noType, 415, 'unsupported_media_type');
    await assertGatewayError(await postJson(base, '{not json'), 400, 'invalid_json');
  });

  test('more than 20 items, an unknown type, or a message without role: 400 and nothing added', async () => {
    const id = await newConversation();
    const many = Array.from({ length: 21 }, (_, i) => user(`m${i}`));
    await assertConversationError(
      await addItems(id, many),
      400,
      'Cannot add more than 20 items at a time',
    );
    await assertConversationError(
      await addItems(id, [user('ok'), { type: 'bogus' }]),
      400,
      /^Unsupported item type 'bogus'\. Supported types: message, reasoning, /,
    );
    await assertConversationError(
      await addItems(id, [user('ok'), { type: 'message', content: 'no role' }]),
      400,
      "Message items require 'role' field",
    );
    await assertConversationError(
      await postJson(`${base}/${id}/items`, { items: 'x' }),
      400,
      "Missing or invalid 'items' field",
    );
    assert.deepEqual(await listIds(id), []);
    const twenty = await addItems(id, many.slice(0, 20));
    assert.equal(twenty.status, 200);
    assert.equal((await listIds(id)).length, 20);
  });

  test('an answer lists each item as stored; a list adds created_at', async () => {
    const id = await newConversation();
    const res = await addItems(id, [
      { role: 'user', content: 'bare' },
      {
        id: 'fc_own',
        type: 'function_call',
        call_id: 'call_1',
        name: 'lookup',
        arguments: '{}',
        junk: 1,
      },
      { type: 'function_call_output', call_id: 'call_1', output: '42' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'think' }] },
    ]);
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      data: Record<string, unknown>[];
      warnings: string[];
      first_id: string;
      last_id: string;
    };
    const [message, call, output, reasoning] = body.data;
    assert.deepEqual(message, {
      id: message?.id,
      type: 'message',
      role: 'user',
      content: 'bare',
      status: 'completed',
    });
    assert.deepEqual(call, {
      id: 'fc_own',
      type: 'function_call',
      call_id: 'call_1',
      name: 'lookup',
      arguments: '{}',
      status: 'completed',
    });
    assert.match(String(output?.id), /^fun_[0-9a-f]{50}$/);
    assert.match(String(reasoning?.id), /^rs_[0-9a-f]{50}$/);
    assert.equal(body.first_id, message?.id);
    assert.equal(body.last_id, reasoning?.id);
    // SMG's warning for each stored type it calls not yet implemented.
    assert.deepEqual(body.warnings, [
      "Item type 'function_call' is accepted but not yet implemented. The item will be stored but may not function as expected.",
      "Item type 'function_call_output' is accepted but not yet implemented. The item will be stored but may not function as expected.",
    ]);
    const list = (await (await fetch(`${base}/${id}/items?order=asc`)).json()) as {
      object: string;
      data: Record<string, unknown>[];
      first_id: string;
      last_id: string;
      has_more: boolean;
    };
    assert.equal(list.object, 'list');
    assert.deepEqual(
      list.data.map(({ created_at: _, ...rest }) => rest),
      body.data,
    );
    for (const item of list.data) assert.equal(typeof item.created_at, 'number');
    assert.equal(list.first_id, message?.id);
    assert.equal(list.has_more, false);
    // A list answer without warnings has no `warnings` key.
    const plain = (await (await addItems(id, [user('x')])).json()) as Record<string, unknown>;
    assert.equal('warnings' in plain, false);
  });

  test('item_reference links an existing item; an unknown one is a 404', async () => {
    const a = await newConversation();
    const b = await newConversation();
    const made = (await (await addItems(a, [user('shared')])).json()) as {
      data: { id: string }[];
    };
    const shared = made.data[0]?.id as string;
    const ref = await addItems(b, [{ type: 'item_reference', id: shared }]);
    assert.equal(ref.status, 200);
    const refBody = (await ref.json()) as { data: { id: string; content: unknown }[] };
    assert.equal(refBody.data[0]?.id, shared);
    assert.deepEqual(refBody.data[0]?.content, [{ type: 'input_text', text: 'shared' }]);
    assert.deepEqual(await listIds(b), [shared]);
    await assertConversationError(
      await addItems(b, [user('first'), { type: 'item_reference', id: 'msg_nope' }]),
      404,
      "Referenced item 'msg_nope' not found",
    );
    await assertConversationError(
      await addItems(b, [{ type: 'item_reference' }]),
      400,
      "item_reference requires 'id' field",
    );
    assert.deepEqual(await listIds(b), [shared]);
    // Deleting a conversation leaves its items: they can still be referenced.
    assert.equal((await fetch(`${base}/${a}`, { method: 'DELETE' })).status, 200);
    const c = await newConversation();
    assert.equal((await addItems(c, [{ type: 'item_reference', id: shared }])).status, 200);
  });

  test('an id already linked is item_already_in_conversation; an unlinked one is linked again', async () => {
    const id = await newConversation();
    assert.equal((await addItems(id, [{ ...user('one'), id: 'msg_fixed' }])).status, 200);
    const again = await addItems(id, [user('other'), { ...user('two'), id: 'msg_fixed' }]);
    const text = await again.text();
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('x-smg-error-code'), 'item_already_in_conversation');
    assert.deepEqual(JSON.parse(text), {
      error: {
        message: 'Item already in conversation',
        type: 'invalid_request_error',
        param: 'items',
        code: 'item_already_in_conversation',
      },
    });
    assert.deepEqual(await listIds(id), ['msg_fixed']);
    // Unlinked, the same id links the stored item again: what was posted with it is not stored.
    const unlinked = await fetch(`${base}/${id}/items/msg_fixed`, { method: 'DELETE' });
    assert.equal(unlinked.status, 200);
    await assertConversationError(
      await fetch(`${base}/${id}/items/msg_fixed`),
      404,
      'Item not found in this conversation',
    );
    const relinked = (await (
      await addItems(id, [{ ...user('three'), id: 'msg_fixed' }])
    ).json()) as {
      data: { content: unknown }[];
    };
    assert.deepEqual(relinked.data[0]?.content, [{ type: 'input_text', text: 'one' }]);
    assert.deepEqual(await listIds(id), ['msg_fixed']);
  });

  test('list query: a bad limit is a 400, a limit over 100 gets 100', async () => {
    const id = await newConversation();
    for (const limit of ['abc', '0', '-1', '1.5'])
      await assertConversationError(
        await fetch(`${base}/${id}/items?limit=${limit}`),
        400,
        `limit must be a positive integer, got '${limit}'`,
      );
    for (let n = 0; n < 6; n++)
      await addItems(
        id,
        Array.from({ length: 20 }, () => user('x')),
      );
    const page = (await (await fetch(`${base}/${id}/items?limit=500`)).json()) as {
      data: unknown[];
      has_more: boolean;
    };
    assert.equal(page.data.length, 100);
    assert.equal(page.has_more, true);
  });

  test('create with items adds them, checked as the items route checks them', async () => {
    const res = await postJson(base, {
      items: [user('hello'), { role: 'assistant', content: 'hi' }],
    });
    assert.equal(res.status, 200);
    const id = ((await res.json()) as { id: string }).id;
    const items = (await (await fetch(`${base}/${id}/items?order=asc`)).json()) as {
      data: { role: string }[];
    };
    assert.deepEqual(
      items.data.map((i) => i.role),
      ['user', 'assistant'],
    );
    await assertConversationError(
      await postJson(base, { items: [{ type: 'bogus' }] }),
      400,
      /^Unsupported item type 'bogus'/,
    );
  });

  test('metrics name the route pattern, never an id', async () => {
    const id = await newConversation();
    await fetch(`${base}/${id}/items/msg_metric_probe`);
    const text = await scrapeMetrics(gateway);
    assert.match(
      text,
      /smg_http_requests_total\{[^}]*path="\/v1\/conversations\/\{conversation_id\}\/items\/\{item_id\}"/,
    );
    assert.equal(text.includes(id), false);
    assert.equal(text.includes('msg_metric_probe'), false);
  });
});
