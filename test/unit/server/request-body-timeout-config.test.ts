// --request-body-timeout-secs (Switchyard-only): the deadline for a whole inference request body,
// and Node's own request timeout kept behind it so the gateway's JSON 408 is the one sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError, parseFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { buildConfig } from '../../../src/config/validate.js';
import { clientTimeouts } from '../../../src/server/http-server.js';

const build = (argv: string[]) => buildConfig(parseFlags(argv, GATEWAY_FLAGS));

test('--request-body-timeout-secs defaults to 120 s and must be at least 1', () => {
  assert.equal(build([]).requestBodyTimeoutSecs, 120);
  assert.equal(build(['--request-body-timeout-secs', '5']).requestBodyTimeoutSecs, 5);
  assert.throws(
    () => build(['--request-body-timeout-secs', '0']),
    (err: unknown) => {
      assert.ok(err instanceof UsageError && err.message.includes('--request-body-timeout-secs'));
      return true;
    },
  );
});

test("Node's request timeout falls after the headers timeout plus the body deadline", () => {
  for (const secs of [1, 120, 3600]) {
    const t = clientTimeouts(secs * 1000);
    assert.ok(
      t.headersTimeout <= t.requestTimeout,
      'Node requires headersTimeout <= requestTimeout',
    );
    assert.ok(
      t.requestTimeout > t.headersTimeout + secs * 1000,
      `${secs} s: Node's 408 would come first`,
    );
    assert.ok(t.keepAliveTimeout < t.headersTimeout);
  }
});
