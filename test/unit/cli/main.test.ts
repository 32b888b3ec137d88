// The `switchyard` command table, in process: an unknown command, and a subcommand's usage error,
// are one line on stderr and exit code 2 (the e2e test spawns the binary for one such case).
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { main } from '../../../src/cli/main.js';

async function run(t: TestContext, argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  t.mock.method(process.stderr, 'write', (chunk: string | Uint8Array): boolean => {
    err += String(chunk);
    return true;
  });
  const code = await main(argv);
  t.mock.restoreAll();
  return { code, err };
}

void describe('main', () => {
  void it('an unknown command exits 2 with one line naming it', async (t) => {
    const { code, err } = await run(t, ['frobnicate']);
    assert.equal(code, 2);
    assert.equal(err, "switchyard: unknown command 'frobnicate' (try 'switchyard --help')\n");
  });

  void it('a sim duration longer than a timer can hold exits 2 with one line naming it', async (t) => {
    const { code, err } = await run(t, ['sim', '--ttft-ms', '1e12']);
    assert.equal(code, 2);
    assert.equal(err, "error: --ttft-ms expects a value in [0, 2147483647], got '1e12'\n");
  });
});
