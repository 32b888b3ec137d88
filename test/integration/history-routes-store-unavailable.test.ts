// A history store that cannot answer (Redis or Postgres down): every stored-response and
// conversation route answers 503 history_store_unavailable in the gateway's envelope, and a
// write that failed part-way leaves nothing a client can see. The store is a real memory store
// behind a wrapper whose chosen methods reject with HistoryStoreError, as a backend does when its
// server is unreachable.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  HistoryStoreError,
  type Conversation,
  type HistoryStore,
  type ItemPage,
  type ListItemsQuery,
  type StoredItem,
  type StoredResponse,
} from '../../src/storage/history-store.js';
import { MemoryHistoryStore } from '../../src/storage/memory-history-store.js';
import type { JsonObject } from '../../src/util/json.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError, postJson } from '../helpers/http.js';

type Method = Exclude<keyof HistoryStore, 'backend'>;

/** The memory store, except that the methods in `failing` (or all, with `'all'`) reject. */
class OutageStore implements HistoryStore {
  readonly backend = 'redis' as const;
  readonly inner = new MemoryHistoryStore({ maxResponses: 100, maxConversations: 100 });
  failing: ReadonlySet<Method> | 'all' = new Set();
  /** Every conversation id a create was asked for, whether it failed or not. */
  readonly created: string[] = [];

  #call<T>(method: Method, run: () => Promise<T>): Promise<T> {
    if (this.failing === 'all' || this.failing.has(method))
      return Promise.reject(new HistoryStoreError('redis', `connect ECONNREFUSED (${method})`));
    return run();
  }

  putResponse(r: StoredResponse): Promise<void> {
    return this.#call('putResponse', () => this.inner.putResponse(r));
  }
  getResponse(id: string): Promise<StoredResponse | undefined> {
    return this.#call('getResponse', () => this.inner.getResponse(id));
  }
  deleteResponse(id: string): Promise<boolean> {
    return this.#call('deleteResponse', () => this.inner.deleteResponse(id));
  }
  responseChain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    return this.#call('responseChain', () => this.inner.responseChain(id, maxDepth));
  }
  createConversation(c: Conversation): Promise<void> {
    this.created.push(c.id);
    return this.#call('createConversation', () => this.inner.createConversation(c));
  }
  getConversation(id: string): Promise<Conversation | undefined> {
    return this.#call('getConversation', () => this.inner.getConversation(id));
  }
  setConversationMetadata(id: string, m: JsonObject): Promise<Conversation | undefined> {
    return this.#call('setConversationMetadata', () => this.inner.setConversationMetadata(id, m));
  }
  deleteConversation(id: string): Promise<boolean> {
    return this.#call('deleteConversation', () => this.inner.deleteConversation(id));
  }
  putItems(items: readonly StoredItem[]): Promise<void> {
    return this.#call('putItems', () => this.inner.putItems(items));
  }
  getItem(id: string): Promise<StoredItem | undefined> {
    return this.#call('getItem', () => this.inner.getItem(id));
  }
  linkItems(conversationId: string, ids: readonly string[]): Promise<void> {
    return this.#call('linkItems', () => this.inner.linkItems(conversationId, ids));
  }
  isLinked(conversationId: string, itemId: string): Promise<boolean> {
    return this.#call('isLinked', () => this.inner.isLinked(conversationId, itemId));
  }
  listItems(conversationId: string, q: ListItemsQuery): Promise<ItemPage> {
    return this.#call('listItems', () => this.inner.listItems(conversationId, q));
  }
  unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    return this.#call('unlinkItem', () => this.inner.unlinkItem(conversationId, itemId));
  }
  reachable(): Promise<boolean> {
    return Promise.resolve(this.failing !== 'all');
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const store = new OutageStore();
let fleet: SimWorker[];
let gateway: Gateway;
let base: string;

before(async () => {
  fleet = await startSimFleet(1, { model: 'sim-model' });
  gateway = await startTestGateway(['--worker-urls', ...fleet.map((w) => w.url)], {
    history: store,
  });
  await waitForReadyWorkers(gateway, 1);
  base = gateway.url;
});

afterEach(() => {
  store.failing = new Set();
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
  await Promise.all(fleet.map((w) => w.close()));
});

const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] };

async function assertUnavailable(res: Response): Promise<void> {
  const err = await assertGatewayError(res, 503, 'history_store_unavailable');
  assert.match(err.message, /history store \(redis\)/);
}

test('every route answers 503 history_store_unavailable while the store is down', async () => {
  await store.inner.createConversation({ id: 'conv_up', createdAt: 1, metadata: {} });
  store.failing = 'all';
  const calls: [string, string, unknown?][] = [
    ['GET', '/v1/responses/resp_1'],
    ['DELETE', '/v1/responses/resp_1'],
    ['GET', '/v1/responses/resp_1/input_items'],
    ['POST', '/v1/responses/resp_1/cancel'],
    ['POST', '/v1/conversations', {}],
    ['GET', '/v1/conversations/conv_up'],
    ['POST', '/v1/conversations/conv_up', { metadata: { a: '1' } }],
    ['DELETE', '/v1/conversations/conv_up'],
    ['GET', '/v1/conversations/conv_up/items'],
    ['POST', '/v1/conversations/conv_up/items', { items: [user] }],
    ['GET', '/v1/conversations/conv_up/items/msg_1'],
    ['DELETE', '/v1/conversations/conv_up/items/msg_1'],
  ];
  for (const [method, path, body] of calls) {
    const res = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    await assertUnavailable(res);
  }
  store.failing = new Set();
  // Nothing the failed calls asked for happened.
  for (const id of store.created) assert.equal(await store.inner.getConversation(id), undefined);
  assert.deepEqual(await store.inner.getConversation('conv_up'), {
    id: 'conv_up',
    createdAt: 1,
    metadata: {},
  });
});

test('items whose store write fails are not added, and retrying adds them once', async () => {
  await store.inner.createConversation({ id: 'conv_w', createdAt: 1, metadata: {} });
  const items = [
    { ...user, id: 'msg_w1' },
    { ...user, id: 'msg_w2' },
  ];
  for (const failing of ['putItems', 'linkItems'] as const) {
    store.failing = new Set([failing]);
    await assertUnavailable(await postJson(`${base}/v1/conversations/conv_w/items`, { items }));
    store.failing = new Set();
    const page = await store.inner.listItems('conv_w', { limit: 10, order: 'asc' });
    assert.deepEqual(page.items, [], failing);
  }
  const retry = await postJson(`${base}/v1/conversations/conv_w/items`, { items });
  assert.equal(retry.status, 200);
  const page = await store.inner.listItems('conv_w', { limit: 10, order: 'asc' });
  assert.deepEqual(
    page.items.map((i) => i.id),
    ['msg_w1', 'msg_w2'],
  );
});

test('a conversation created with items whose links fail is removed again', async () => {
  store.failing = new Set(['linkItems']);
  await assertUnavailable(await postJson(`${base}/v1/conversations`, { items: [user] }));
  store.failing = new Set();
  const id = store.created.at(-1) as string;
  assert.match(id, /^conv_/);
  assert.equal(await store.inner.getConversation(id), undefined);
});

test('a metadata update whose write fails leaves the metadata as it was', async () => {
  await store.inner.createConversation({ id: 'conv_m', createdAt: 1, metadata: { a: '1' } });
  store.failing = new Set(['setConversationMetadata']);
  await assertUnavailable(
    await postJson(`${base}/v1/conversations/conv_m`, { metadata: { a: null, b: '2' } }),
  );
  store.failing = new Set();
  const res = await fetch(`${base}/v1/conversations/conv_m`);
  assert.deepEqual(((await res.json()) as { metadata: unknown }).metadata, { a: '1' });
});
