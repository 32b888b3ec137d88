// `--history-backend none`: every write succeeds, and nothing written is ever read back.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import type { HistoryStore } from '../../../src/storage/history-store.js';
import { NoneHistoryStore } from '../../../src/storage/none-history-store.js';

it('accepts every write and finds nothing afterwards', async () => {
  const store: HistoryStore = new NoneHistoryStore();
  assert.equal(store.backend, 'none');
  const response = { id: 'resp_1', input: [], response: { id: 'resp_1' }, createdAt: 1 };
  await store.putResponse(response);
  await store.createConversation({ id: 'conv_1', createdAt: 1, metadata: { a: '1' } });
  await store.putItems([{ id: 'msg_1', item: { id: 'msg_1', type: 'message' }, createdAt: 1 }]);
  await store.linkItems('conv_1', ['msg_1']);

  assert.equal(await store.getResponse('resp_1'), undefined);
  assert.deepEqual(await store.responseChain('resp_1', 100), []);
  assert.equal(await store.deleteResponse('resp_1'), false);
  assert.equal(await store.getConversation('conv_1'), undefined);
  assert.equal(await store.setConversationMetadata('conv_1', { b: '2' }), undefined);
  assert.equal(await store.deleteConversation('conv_1'), false);
  assert.equal(await store.getItem('msg_1'), undefined);
  assert.equal(await store.isLinked('conv_1', 'msg_1'), false);
  assert.deepEqual(await store.listItems('conv_1', { limit: 10, order: 'asc' }), {
    items: [],
    hasMore: false,
  });
  assert.equal(await store.unlinkItem('conv_1', 'msg_1'), false);
  assert.equal(await store.reachable(), true);
  await store.close();
});
