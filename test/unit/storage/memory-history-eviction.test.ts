// The memory history store's bounds: the oldest responses and conversations go first, a chain
// ends at a response that went, and an evicted conversation takes its links and the items it
// alone linked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { StoredItem, StoredResponse } from '../../../src/storage/history-store.js';
import { MemoryHistoryStore } from '../../../src/storage/memory-history-store.js';

const response = (id: string, previousResponseId?: string): StoredResponse => ({
  id,
  previousResponseId,
  input: [],
  response: { id, object: 'response' },
  createdAt: 1,
});
const item = (id: string): StoredItem => ({ id, item: { id, type: 'message' }, createdAt: 1 });
const conversation = (id: string) => ({ id, createdAt: 1, metadata: {} });

async function presentResponses(store: MemoryHistoryStore, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) if (await store.getResponse(id)) out.push(id);
  return out;
}

async function presentItems(store: MemoryHistoryStore, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) if (await store.getItem(id)) out.push(id);
  return out;
}

describe('memory history store: response bound', () => {
  it('keeps the newest maxResponses responses', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 3, maxConversations: 10 });
    for (const id of ['r1', 'r2', 'r3', 'r4', 'r5']) await store.putResponse(response(id));
    assert.deepEqual(await presentResponses(store, ['r1', 'r2', 'r3', 'r4', 'r5']), [
      'r3',
      'r4',
      'r5',
    ]);
  });

  it('counts an overwrite as the newest write', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 3, maxConversations: 10 });
    for (const id of ['r1', 'r2', 'r3', 'r1', 'r4']) await store.putResponse(response(id));
    assert.deepEqual(await presentResponses(store, ['r1', 'r2', 'r3', 'r4']), ['r1', 'r3', 'r4']);
  });

  it('ends a chain at the response that was evicted', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 3, maxConversations: 10 });
    await store.putResponse(response('r1'));
    await store.putResponse(response('r2', 'r1'));
    await store.putResponse(response('r3', 'r2'));
    await store.putResponse(response('r4', 'r3'));
    const chain = await store.responseChain('r4', 100);
    assert.deepEqual(
      chain.map((r) => r.id),
      ['r2', 'r3', 'r4'],
    );
  });

  it('frees the room of a deleted response', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 2, maxConversations: 10 });
    await store.putResponse(response('r1'));
    await store.putResponse(response('r2'));
    assert.equal(await store.deleteResponse('r2'), true);
    await store.putResponse(response('r3'));
    assert.deepEqual(await presentResponses(store, ['r1', 'r2', 'r3']), ['r1', 'r3']);
  });
});

describe('memory history store: conversation bound', () => {
  it('evicts the oldest conversation with its links and the items only it linked', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    await store.createConversation(conversation('c1'));
    await store.createConversation(conversation('c2'));
    await store.putItems([item('only-c1'), item('both')]);
    await store.linkItems('c1', ['only-c1', 'both']);
    await store.linkItems('c2', ['both']);
    await store.createConversation(conversation('c3'));

    assert.equal(await store.getConversation('c1'), undefined);
    assert.ok(await store.getConversation('c2'));
    assert.equal(await store.isLinked('c1', 'both'), false);
    assert.deepEqual(await store.listItems('c1', { limit: 10, order: 'asc' }), {
      items: [],
      hasMore: false,
    });
    assert.deepEqual(await presentItems(store, ['only-c1', 'both']), ['both']);
    assert.equal(await store.isLinked('c2', 'both'), true);
  });

  it('keeps the links of a deleted conversation until its turn to be evicted', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    await store.createConversation(conversation('c1'));
    await store.putItems([item('i1')]);
    await store.linkItems('c1', ['i1']);
    assert.equal(await store.deleteConversation('c1'), true);
    assert.equal(await store.isLinked('c1', 'i1'), true);
    await store.createConversation(conversation('c2'));
    assert.ok(await store.getItem('i1'));
    await store.createConversation(conversation('c3'));
    assert.equal(await store.isLinked('c1', 'i1'), false);
    assert.equal(await store.getItem('i1'), undefined);
    assert.ok(await store.getConversation('c2'));
    assert.ok(await store.getConversation('c3'));
  });

  it('frees the room of a deleted conversation that linked nothing', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    await store.createConversation(conversation('c1'));
    await store.createConversation(conversation('c2'));
    assert.equal(await store.deleteConversation('c2'), true);
    await store.createConversation(conversation('c3'));
    assert.ok(await store.getConversation('c1'));
    assert.ok(await store.getConversation('c3'));
  });
});

describe('memory history store: items linked nowhere', () => {
  it('keeps at most maxConversations of them, oldest dropped first', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    for (const id of ['a', 'b', 'c']) await store.putItems([item(id)]);
    assert.deepEqual(await presentItems(store, ['a', 'b', 'c']), ['b', 'c']);
  });

  it('keeps a batch larger than the bound until it is linked', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    await store.createConversation(conversation('c1'));
    await store.putItems(ids.map(item));
    await store.linkItems('c1', ids);
    const page = await store.listItems('c1', { limit: 10, order: 'asc' });
    assert.deepEqual(
      page.items.map((i) => i.id),
      ids,
    );
    // Linked items are outside this bound: more unlinked ones do not push them out.
    for (const id of ['x', 'y', 'z']) await store.putItems([item(id)]);
    assert.deepEqual(await presentItems(store, ids), ids);
  });

  it('keeps an unlinked item, which can be linked again, within the bound', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 2 });
    await store.createConversation(conversation('c1'));
    await store.putItems([item('i1')]);
    await store.linkItems('c1', ['i1']);
    assert.equal(await store.unlinkItem('c1', 'i1'), true);
    assert.ok(await store.getItem('i1'));
    await store.linkItems('c1', ['i1']);
    assert.equal(await store.isLinked('c1', 'i1'), true);
    assert.equal(await store.unlinkItem('c1', 'i1'), true);
    for (const id of ['x', 'y']) await store.putItems([item(id)]);
    assert.equal(await store.getItem('i1'), undefined);
  });
});

describe('memory history store: limits', () => {
  it('refuses a bound below 1 or not whole', () => {
    assert.throws(
      () => new MemoryHistoryStore({ maxResponses: 0, maxConversations: 1 }),
      RangeError,
    );
    assert.throws(
      () => new MemoryHistoryStore({ maxResponses: 1, maxConversations: 1.5 }),
      RangeError,
    );
  });

  it('hands out copies: editing what was read changes nothing stored', async () => {
    const store = new MemoryHistoryStore({ maxResponses: 10, maxConversations: 10 });
    const written = response('r1');
    await store.putResponse(written);
    (written.response as Record<string, unknown>)['object'] = 'edited before read';
    const read = await store.getResponse('r1');
    assert.ok(read);
    (read.response as Record<string, unknown>)['object'] = 'edited after read';
    assert.equal((await store.getResponse('r1'))?.response['object'], 'response');
  });
});
