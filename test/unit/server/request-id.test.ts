import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, it } from 'node:test';
import {
  DEFAULT_REQUEST_ID_HEADERS,
  generateRequestId,
  pickRequestId,
  requestIdHeaderNames,
} from '../../../src/server/request-id.js';

void describe('requestIdHeaderNames', () => {
  void it('is SMG’s default list when --request-id-headers is not given', () => {
    assert.deepEqual(requestIdHeaderNames([]), [
      'x-request-id',
      'x-correlation-id',
      'x-trace-id',
      'request-id',
    ]);
    assert.deepEqual(requestIdHeaderNames([]), DEFAULT_REQUEST_ID_HEADERS);
  });

  void it('is replaced by the given list, lower-cased', () => {
    assert.deepEqual(requestIdHeaderNames(['X-Foo', 'x-bar']), ['x-foo', 'x-bar']);
  });
});

void describe('pickRequestId', () => {
  const names = requestIdHeaderNames([]);

  void it('takes the first listed header that has a value', () => {
    const headers = { 'x-trace-id': 'trace', 'x-correlation-id': 'corr' };
    assert.equal(pickRequestId(headers, names, '/v1/completions'), 'corr');
  });

  void it('skips empty values', () => {
    assert.equal(pickRequestId({ 'x-request-id': '', 'request-id': 'r' }, names, '/generate'), 'r');
  });

  void it('takes the first value of a repeated header', () => {
    const headers = { 'x-trace-id': ['first', 'second'] } as unknown as IncomingHttpHeaders;
    assert.equal(pickRequestId(headers, names, '/generate'), 'first');
  });

  void it('ignores headers outside the list', () => {
    assert.match(pickRequestId({ 'x-request-id': 'x' }, ['foo'], '/generate'), /^gnt-/);
  });
});

void describe('generateRequestId', () => {
  void it('uses SMG’s prefix for the route, then 24 alphanumerics', () => {
    const cases: [string, string][] = [
      ['/v1/chat/completions', 'chatcmpl-'],
      ['/v1/completions', 'cmpl-'],
      ['/generate', 'gnt-'],
      ['/v1/responses', 'resp-'],
      ['/v1/messages', 'msg_'],
      ['/v1/embeddings', 'req-'],
      ['/liveness', 'req-'],
    ];
    for (const [path, prefix] of cases) {
      const id = generateRequestId(path);
      assert.ok(id.startsWith(prefix), `${path} -> ${id}`);
      assert.match(id.slice(prefix.length), /^[A-Za-z0-9]{24}$/);
    }
  });

  void it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateRequestId('/generate')));
    assert.equal(ids.size, 1000);
  });
});
