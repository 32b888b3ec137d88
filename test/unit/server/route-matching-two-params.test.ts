// Routes with parameters in any segment and more than one of them (SMG's
// /v1/conversations/{conversation_id}/items/{item_id}): each parameter is percent-decoded and
// handed over in path order, a static segment wins over a parameter, and the metric label names
// the parameters, never their values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute } from '../../../src/server/routes.js';

test('both parameters of a conversation item, decoded, in path order', () => {
  const m = matchRoute('GET', '/v1/conversations/conv_1/items/msg%2F2');
  assert.ok(m.kind === 'route', m.kind);
  assert.deepEqual(m.params, ['conv_1', 'msg/2']);
  assert.equal(m.param, 'conv_1');
  assert.equal(m.route.label, '/v1/conversations/{conversation_id}/items/{item_id}');
  assert.equal(m.route.auth, 'data');
  const del = matchRoute('DELETE', '/v1/conversations/c/items/i');
  assert.ok(del.kind === 'route' && del.route.method === 'DELETE');
  const head = matchRoute('HEAD', '/v1/conversations/c/items/i');
  assert.ok(head.kind === 'route' && head.route.method === 'GET');
});

test('every history route, with its bounded label', () => {
  const cases: [string, string, string, string[]][] = [
    ['POST', '/v1/conversations', '/v1/conversations', []],
    ['GET', '/v1/conversations/c1', '/v1/conversations/{conversation_id}', ['c1']],
    ['POST', '/v1/conversations/c1', '/v1/conversations/{conversation_id}', ['c1']],
    ['DELETE', '/v1/conversations/c1', '/v1/conversations/{conversation_id}', ['c1']],
    ['GET', '/v1/conversations/c1/items', '/v1/conversations/{conversation_id}/items', ['c1']],
    ['POST', '/v1/conversations/c1/items', '/v1/conversations/{conversation_id}/items', ['c1']],
    ['GET', '/v1/responses/r1', '/v1/responses/{response_id}', ['r1']],
    ['DELETE', '/v1/responses/r1', '/v1/responses/{response_id}', ['r1']],
    ['GET', '/v1/responses/r1/input_items', '/v1/responses/{response_id}/input_items', ['r1']],
    ['POST', '/v1/responses/r1/cancel', '/v1/responses/{response_id}/cancel', ['r1']],
  ];
  for (const [method, path, label, params] of cases) {
    const m = matchRoute(method, path);
    assert.ok(m.kind === 'route', `${method} ${path}: ${m.kind}`);
    assert.equal(m.route.label, label, path);
    assert.deepEqual(m.params, params, path);
    assert.equal(m.route.auth, 'data', path);
  }
  // POST /v1/responses is still the inference route.
  const create = matchRoute('POST', '/v1/responses');
  assert.ok(create.kind === 'route' && create.route.label === '/v1/responses');
  assert.deepEqual(create.params, []);
});

test('405 names the methods of the path that matched; what is no route is 404', () => {
  const wrong = matchRoute('PUT', '/v1/conversations/c/items/i');
  assert.ok(wrong.kind === 'method_not_allowed');
  assert.deepEqual(wrong.allowed.sort(), ['DELETE', 'GET', 'HEAD']);
  assert.equal(wrong.label, '/v1/conversations/{conversation_id}/items/{item_id}');
  const cancel = matchRoute('GET', '/v1/responses/r/cancel');
  assert.ok(cancel.kind === 'method_not_allowed' && cancel.allowed.join() === 'POST');
  const list = matchRoute('GET', '/v1/conversations');
  assert.ok(list.kind === 'method_not_allowed' && list.allowed.join() === 'POST');
  for (const path of [
    '/v1/conversations/c/items/',
    '/v1/conversations//items/i',
    '/v1/conversations/c/items/i/x',
    '/v1/conversations/c/other/i',
    '/v1/conversations/c/items/%E0%A4%A',
    '/v1/responses/r/other',
  ]) {
    assert.equal(matchRoute('GET', path).kind, 'not_found', path);
  }
});
