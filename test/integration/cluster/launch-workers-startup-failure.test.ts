// A gateway process of `launch --workers 2` that cannot start (here: its port is taken) ends the
// launch with its exit code instead of being forked again and again.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { startCli } from '../../helpers/cli.js';

test('a process that fails at startup ends the launch, with no restart loop', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  const run = startCli([
    'launch',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--prometheus-host',
    '127.0.0.1',
    '--prometheus-port',
    '0',
    '--workers',
    '2',
    '--log-json',
  ]);
  try {
    const code = await run.exited;
    assert.notEqual(code, 0);
    assert.match(run.stderr(), /EADDRINUSE/);
    assert.match(run.stderr(), /gateway processes failed to start/);
    assert.doesNotMatch(run.stderr(), /gateway process restarted|switchyard listening/);
  } finally {
    run.child.kill('SIGKILL');
    taken.close();
  }
});
