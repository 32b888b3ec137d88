// `--control-plane-api-keys id:name:role:key` as a user types it: a malformed entry stops the
// binary with exit 2 and one line naming the flag, without ever printing the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, runMain } from '../helpers/cli.js';

const malformed: [string, string][] = [
  ['too few fields', 'ops:Ops:s3cret-value'],
  ['unknown role', 'ops:Ops:root:s3cret-value'],
  ['empty key', 'ops:Ops:admin:'],
];

// The first case runs the real binary; the others run the same command table in process.
for (const [i, [what, entry]] of malformed.entries()) {
  test(`a control-plane key with ${what} exits 2 naming the flag, not the key`, async () => {
    const argv = [
      'launch',
      '--port',
      '0',
      '--control-plane-api-keys',
      'good:Good:admin:fine-key',
      entry,
    ];
    const { status, stderr } = i === 0 ? runCli(argv) : await runMain(argv);
    assert.equal(status, 2, stderr);
    assert.match(
      stderr,
      /--control-plane-api-keys: must look like id:name:role:key .*\(entry 2, value redacted\)/,
    );
    assert.ok(!stderr.includes('s3cret-value'), 'the key is never printed');
  });
}

test('a control-plane key equal to --api-key exits 2', async () => {
  const { status, stderr } = await runMain([
    'launch',
    '--port',
    '0',
    '--api-key',
    'shared',
    '--control-plane-api-keys',
    'ops:Ops:admin:shared',
  ]);
  assert.equal(status, 2, stderr);
  assert.match(stderr, /--control-plane-api-keys: a control-plane key equals --api-key/);
});
