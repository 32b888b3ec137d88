// Routes of the form prefix/{param}/last (SMG's /v1/tokenizers/{tokenizer_id}/status): the
// parameter is the segment before the fixed last one, decoded; the routes around them still
// match as before, and a wrong method is a 405 naming the route's methods.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute } from '../../../src/server/routes.js';

test('the segment before /status is the parameter, percent-decoded', () => {
  const m = matchRoute('GET', '/v1/tokenizers/0190-abc/status');
  assert.ok(m.kind === 'route', m.kind);
  assert.equal(m.param, '0190-abc');
  assert.equal(m.route.label, '/v1/tokenizers/{tokenizer_id}/status');
  // A name holding slashes (the startup path) is reached percent-encoded, as through axum.
  const encoded = matchRoute('GET', '/v1/tokenizers/%2Fmodels%2Fqwen3/status');
  assert.ok(encoded.kind === 'route' && encoded.param === '/models/qwen3');
  const head = matchRoute('HEAD', '/v1/tokenizers/x/status');
  assert.ok(head.kind === 'route' && head.route.method === 'GET');
});

test('the neighbours: list, by id, and what is not a route', () => {
  const list = matchRoute('POST', '/v1/tokenizers');
  assert.ok(list.kind === 'route' && list.route.label === '/v1/tokenizers');
  const byId = matchRoute('DELETE', '/v1/tokenizers/abc');
  assert.ok(byId.kind === 'route' && byId.param === 'abc');
  assert.equal(byId.route.label, '/v1/tokenizers/{tokenizer_id}');
  // "status" alone is an id, as axum matches it.
  const statusId = matchRoute('GET', '/v1/tokenizers/status');
  assert.ok(statusId.kind === 'route' && statusId.param === 'status');
  assert.equal(matchRoute('GET', '/v1/tokenizers//status').kind, 'not_found');
  assert.equal(matchRoute('GET', '/v1/tokenizers/a/b/status').kind, 'not_found');
  assert.equal(matchRoute('GET', '/v1/tokenizers/a/other').kind, 'not_found');
  assert.equal(matchRoute('GET', '/v1/tokenizers/%E0%A4%A/status').kind, 'not_found');
  assert.equal(matchRoute('GET', '/workers/a/status').kind, 'not_found');
  const wrong = matchRoute('DELETE', '/v1/tokenizers/a/status');
  assert.ok(wrong.kind === 'method_not_allowed');
  assert.deepEqual(wrong.allowed.sort(), ['GET', 'HEAD']);
});
