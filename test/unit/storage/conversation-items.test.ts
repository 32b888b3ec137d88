// Conversation item ids and JSON as SMG makes them: its prefixes with 50 hex digits, the item's
// own id kept, and each type's fields normalised the way SMG's persistence stores them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  itemJson,
  newConversationId,
  newItemId,
  storedItemOf,
} from '../../../src/storage/conversation-items.js';

test('item ids: SMG prefix, underscore, 50 hex digits; unknown types their first 3 letters', () => {
  const cases: [string, string][] = [
    ['message', 'msg'],
    ['reasoning', 'rs'],
    ['mcp_call', 'mcp'],
    ['mcp_list_tools', 'mcpl'],
    ['function_call', 'fc'],
    ['function_call_output', 'fun'],
    ['web_search_call', 'web'],
    ['ab', 'ab'],
    ['', 'itm'],
  ];
  for (const [type, prefix] of cases) {
    const id = newItemId(type);
    assert.match(id, new RegExp(`^${prefix}_[0-9a-f]{50}$`), type);
  }
  assert.notEqual(newItemId('message'), newItemId('message'));
  assert.match(newConversationId(), /^conv_[0-9a-f]{50}$/);
});

test('a message keeps its id, role, content and phase; status defaults to completed', () => {
  const s = storedItemOf(
    {
      id: 'msg_own',
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'hi' }],
      phase: 'final_answer',
      extra: 1,
    },
    100,
    'resp_1',
  );
  assert.equal(s.id, 'msg_own');
  assert.equal(s.responseId, 'resp_1');
  assert.equal(s.createdAt, 100);
  assert.deepEqual(s.item, {
    id: 'msg_own',
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'hi' }],
    phase: 'final_answer',
    status: 'completed',
  });
  assert.deepEqual(itemJson(s), { ...s.item, created_at: 100 });
});

test('an item without type is a message, and one without id gets a new id for its type', () => {
  const s = storedItemOf({ role: 'assistant', content: 'plain' }, 5);
  assert.match(s.id, /^msg_[0-9a-f]{50}$/);
  assert.deepEqual(s.item, {
    id: s.id,
    type: 'message',
    role: 'assistant',
    content: 'plain',
    status: 'completed',
  });
  const empty = storedItemOf({ id: '', type: 'message', role: 'user' }, 5);
  assert.match(empty.id, /^msg_/);
  assert.deepEqual(empty.item.content, []);
  const fc = storedItemOf({ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, 5);
  assert.match(fc.id, /^fc_[0-9a-f]{50}$/);
});

test('types with a field list keep only those fields; the rest keep every field', () => {
  const fc = storedItemOf(
    {
      id: 'fc_1',
      type: 'function_call',
      call_id: 'call_1',
      name: 'f',
      arguments: '{}',
      status: 'in_progress',
      junk: true,
    },
    1,
  );
  assert.deepEqual(fc.item, {
    id: 'fc_1',
    type: 'function_call',
    call_id: 'call_1',
    name: 'f',
    arguments: '{}',
    status: 'in_progress',
  });
  const out = storedItemOf(
    { id: 'o', type: 'function_call_output', call_id: 'call_1', output: 'x', name: 'dropped' },
    1,
  );
  assert.deepEqual(out.item, {
    id: 'o',
    type: 'function_call_output',
    call_id: 'call_1',
    output: 'x',
    status: 'completed',
  });
  const tools = storedItemOf(
    { id: 'l', type: 'mcp_list_tools', server_label: 's', tools: [], error: null, x: 1 },
    1,
  );
  assert.deepEqual(tools.item, {
    id: 'l',
    type: 'mcp_list_tools',
    server_label: 's',
    tools: [],
    error: null,
    status: 'completed',
  });
  const rs = storedItemOf(
    { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 's' }], content: [] },
    1,
  );
  assert.deepEqual(rs.item, {
    id: 'rs_1',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 's' }],
    content: [],
    status: 'completed',
  });
  // Replay references an image by id: its base64 result is not kept.
  const image = storedItemOf(
    {
      id: 'ig_1',
      type: 'image_generation_call',
      result: 'AAAA',
      revised_prompt: 'cat',
      status: 'completed',
    },
    1,
  );
  assert.deepEqual(image.item, {
    id: 'ig_1',
    type: 'image_generation_call',
    revised_prompt: 'cat',
    status: 'completed',
  });
});
