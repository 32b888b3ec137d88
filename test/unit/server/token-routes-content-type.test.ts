// Which Content-Type the token routes take as JSON: axum's `Json` rule, `application/json` or any
// `application/*+json`, in any case and with parameters; anything else (or none) is a 415.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonContentType } from '../../../src/server/handlers/token-routes-io.js';

test('JSON content types', () => {
  for (const v of [
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    ' application/json ;charset=UTF-8',
    'application/vnd.api+json',
    'application/problem+json; q=1',
  ]) {
    assert.equal(isJsonContentType(v), true, v);
  }
});

test('not JSON content types', () => {
  for (const v of [
    undefined,
    '',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'application/jsonp',
    'application/json-seq',
    'multipart/form-data; boundary=x',
    'application/+json',
  ]) {
    assert.equal(isJsonContentType(v), false, String(v));
  }
});
