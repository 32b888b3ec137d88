import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatHelp } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import {
  OVERLOAD_PROTECTION_TOKEN_USAGE,
  overloadThresholdsFrom,
  overloadVetoOn,
} from '../../../src/workers/overload.js';

const flags = {
  workerOverloadWaitingRequests: undefined,
  workerOverloadTokenUsage: undefined,
  workerOverloadProtection: false,
};

test('no overload flag: no veto', () => {
  assert.equal(overloadVetoOn(overloadThresholdsFrom(flags)), false);
});

test('--worker-overload-protection vetoes at 0.9 KV usage, as SMG, and --help says so', () => {
  assert.equal(OVERLOAD_PROTECTION_TOKEN_USAGE, 0.9);
  const t = overloadThresholdsFrom({ ...flags, workerOverloadProtection: true });
  assert.deepEqual(t, { waitingRequests: undefined, tokenUsage: 0.9 });
  assert.match(formatHelp('t', 't', GATEWAY_FLAGS), /Veto workers at 0\.9 KV usage/);
});

test('an explicit --worker-overload-token-usage wins over the protection ceiling', () => {
  const t = overloadThresholdsFrom({
    ...flags,
    workerOverloadProtection: true,
    workerOverloadTokenUsage: 0.5,
    workerOverloadWaitingRequests: 8,
  });
  assert.deepEqual(t, { waitingRequests: 8, tokenUsage: 0.5 });
  assert.equal(overloadVetoOn(t), true);
});
