import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatHelp, parseFlags, UsageError } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import { buildConfig } from '../../../src/config/validate.js';

const build = (args: string[]) => buildConfig(parseFlags(args, GATEWAY_FLAGS));

test('--prefill URL [PORT|none] is parsed as SMG does', () => {
  const c = build([
    '--pd-disaggregation',
    '--prefill',
    'http://p1:30001',
    '9001',
    '--prefill',
    'http://p2:30002',
    'NONE',
    '--prefill',
    'http://p3:30003',
    '--decode',
    'http://d1:30004',
    '--decode',
    'http://d2:30005',
  ]);
  assert.deepEqual(c.prefill, [
    { url: 'http://p1:30001', bootstrapPort: 9001 },
    { url: 'http://p2:30002', bootstrapPort: null },
    { url: 'http://p3:30003', bootstrapPort: null },
  ]);
  assert.deepEqual(c.decode, ['http://d1:30004', 'http://d2:30005']);
});

test('leg policies fall back to --policy and are ignored outside PD mode, as SMG', () => {
  const c = build([
    '--pd-disaggregation',
    '--policy',
    'random',
    '--decode-policy',
    'power_of_two',
    '--decode',
    'http://d1:1',
    '--decode',
    'http://d2:1',
  ]);
  assert.equal(c.prefillPolicy, undefined);
  assert.equal(c.decodePolicy, 'power_of_two');
  assert.equal(build(['--decode-policy', 'random']).decodePolicy, undefined);
  assert.deepEqual(build(['--prefill', 'http://p:1']).prefill, []);
  assert.deepEqual(build(['--pd-disaggregation', '--worker-urls', 'http://w:1']).workerUrls, []);
  assert.throws(
    () =>
      build(['--pd-disaggregation', '--decode-policy', 'power_of_two', '--decode', 'http://d1:1']),
    (e: unknown) => e instanceof UsageError && /--decode-policy power_of_two/.test(e.message),
  );
});

test('the prefill queue defaults come from the flag table, and only a typed flag needs admission on', () => {
  const c = build(['--pd-disaggregation']);
  assert.equal(c.prefillQueueSize, 100);
  assert.equal(c.prefillQueueTimeoutSecs, 60);
  const help = formatHelp('t', 't', GATEWAY_FLAGS);
  assert.match(help, /--prefill-queue-size .*\[default: 100\]/);
  assert.match(help, /--prefill-queue-timeout-secs .*\[default: 60\]/);
  for (const flag of ['--prefill-queue-size', '--prefill-queue-timeout-secs']) {
    assert.throws(
      () => resolveLaunchFlags(['--pd-disaggregation', flag, '60']),
      (err: unknown) => err instanceof UsageError && /need a positive/.test(err.message),
    );
  }
});
