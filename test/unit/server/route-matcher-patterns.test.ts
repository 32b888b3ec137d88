// The route matcher on tables of its own: parameters in any segment, several per path, decoded
// and handed over in order; a static segment wins over a parameter at the same place, as axum's
// router picks; an exact path's match is made once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeMatcher } from '../../../src/server/route-matcher.js';
import { matchRoute } from '../../../src/server/routes.js';

test('two parameters, each decoded, in path order; an empty or malformed one is no match', () => {
  const match = routeMatcher([
    { method: 'GET', path: '/c/{}/items/{}', label: '/c/{c}/items/{i}' },
    { method: 'DELETE', path: '/c/{}/items/{}', label: '/c/{c}/items/{i}' },
  ]);
  const m = match('GET', '/c/a%20b/items/x%2Fy');
  assert.ok(m.kind === 'route', m.kind);
  assert.deepEqual(m.params, ['a b', 'x/y']);
  assert.equal(m.param, 'a b');
  const head = match('HEAD', '/c/a/items/b');
  assert.ok(head.kind === 'route' && head.route.method === 'GET');
  const wrong = match('PUT', '/c/a/items/b');
  assert.ok(wrong.kind === 'method_not_allowed' && wrong.label === '/c/{c}/items/{i}');
  assert.deepEqual(wrong.allowed.sort(), ['DELETE', 'GET', 'HEAD']);
  for (const path of ['/c//items/b', '/c/a/items/', '/c/a/items/%E0%A4%A', '/c/a/other/b'])
    assert.equal(match('GET', path).kind, 'not_found', path);
});

test('a static segment wins over a parameter at the same place, as in axum', () => {
  const match = routeMatcher([
    { method: 'GET', path: '/a/{}/x', label: 'param-first' },
    { method: 'GET', path: '/a/b/{}', label: 'static-first' },
    { method: 'GET', path: '/a/{}', label: 'param' },
    { method: 'GET', path: '/a/b', label: 'exact' },
  ]);
  const label = (path: string): string => {
    const m = match('GET', path);
    return m.kind === 'route' ? `${m.route.label} ${m.params.join(',')}` : m.kind;
  };
  assert.equal(label('/a/b/x'), 'static-first x');
  assert.equal(label('/a/c/x'), 'param-first c');
  assert.equal(label('/a/b'), 'exact ');
  assert.equal(label('/a/c'), 'param c');
  // The path fits the static route with another method: a 405, as axum (the path decides first).
  const wrong = match('POST', '/a/b/x');
  assert.ok(wrong.kind === 'method_not_allowed' && wrong.label === 'static-first');
});

test('an exact path matches with no parameters and the same object every time', () => {
  const a = matchRoute('POST', '/v1/chat/completions');
  const b = matchRoute('POST', '/v1/chat/completions');
  assert.ok(a.kind === 'route' && a.params.length === 0 && a.param === '');
  assert.equal(a, b);
});
