import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute } from '../../../src/server/routes.js';

test('exact routes, parameter routes, 405 and 404', () => {
  const chat = matchRoute('POST', '/v1/chat/completions');
  assert.equal(chat.kind, 'route');
  const byId = matchRoute('DELETE', '/workers/abc-1');
  assert.ok(
    byId.kind === 'route' && byId.param === 'abc-1' && byId.route.label === '/workers/{worker_id}',
  );
  const wrong = matchRoute('GET', '/v1/chat/completions');
  assert.ok(wrong.kind === 'method_not_allowed' && wrong.allowed.join() === 'POST');
  const list = matchRoute('DELETE', '/workers');
  assert.ok(list.kind === 'method_not_allowed' && list.allowed.sort().join() === 'GET,HEAD,POST');
  assert.equal(matchRoute('GET', '/nope').kind, 'not_found');
  assert.equal(matchRoute('GET', '/workers/a/b').kind, 'not_found');
  assert.equal(matchRoute('GET', '/workers/').kind, 'not_found');
});

test('a malformed percent-encoded id is a 404, not an exception in the request handler', () => {
  assert.doesNotThrow(() => matchRoute('GET', '/workers/%E0%A4%A'));
  assert.equal(matchRoute('GET', '/workers/%E0%A4%A').kind, 'not_found');
  const encoded = matchRoute('GET', '/workers/a%20b');
  assert.ok(encoded.kind === 'route' && encoded.param === 'a b');
});
