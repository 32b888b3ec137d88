// Engine URLs: grpc:// dials in plaintext, grpcs:// over TLS, anything else is refused; the
// channel carries SMG's keepalive profile and raised message limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANNEL_OPTIONS, parseEngineUrl } from '../../../src/engine/channel.js';

test('grpc:// and grpcs:// URLs become a dial target and a TLS flag', () => {
  assert.deepEqual(parseEngineUrl('grpc://10.0.0.1:30000'), {
    target: '10.0.0.1:30000',
    secure: false,
  });
  assert.deepEqual(parseEngineUrl('grpcs://engine.local:443/'), {
    target: 'engine.local:443',
    secure: true,
  });
  assert.deepEqual(parseEngineUrl('grpc://[::1]:50051'), { target: '[::1]:50051', secure: false });
  for (const bad of ['http://h:1', 'grpc://', 'grpc://h:1/path', 'h:1']) {
    assert.throws(() => parseEngineUrl(bad), TypeError, bad);
  }
});

test("the channel profile is SMG's", () => {
  assert.equal(CHANNEL_OPTIONS['grpc.keepalive_time_ms'], 30_000);
  assert.equal(CHANNEL_OPTIONS['grpc.keepalive_timeout_ms'], 10_000);
  assert.equal(CHANNEL_OPTIONS['grpc.keepalive_permit_without_calls'], 1);
  assert.ok((CHANNEL_OPTIONS['grpc.max_receive_message_length'] as number) >= 64 * 1024 * 1024);
});
