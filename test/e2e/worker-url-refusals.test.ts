// The real binary refuses unsafe worker URLs at startup: exit 2 with one line naming the flag,
// never echoing a password, and never starting as its own worker.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { runCli, runMain } from '../helpers/cli.js';

/** A port that was free a moment ago, for a gateway that must know its own port up front. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

/**
 * The first refusal of the file goes through the real binary; the others run the same command
 * table in process, which answers the same exit code and line without a Node start per case.
 */
let spawned = false;
async function assertUsageExit(args: string[], pattern: RegExp): Promise<string> {
  const argv = ['launch', '--host', '127.0.0.1', '--prometheus-host', '127.0.0.1', ...args];
  const { status, stderr } = spawned ? await runMain(argv) : runCli(argv);
  spawned = true;
  assert.equal(status, 2, stderr);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0] ?? '', pattern);
  return stderr;
}

test('credentials in --worker-urls, --prefill and --decode exit 2 without echoing the password', async () => {
  const base = ['--port', '0', '--prometheus-port', '0'];
  for (const [flag, args] of [
    ['--worker-urls', ['--worker-urls', 'http://admin:hunter2@127.0.0.1:1']],
    ['--prefill', ['--pd-disaggregation', '--prefill', 'http://admin:hunter2@127.0.0.1:1', 'none']],
    ['--decode', ['--pd-disaggregation', '--decode', 'http://admin:hunter2@127.0.0.1:1']],
  ] as const) {
    const stderr = await assertUsageExit(
      [...base, ...args],
      new RegExp(`^switchyard launch: ${flag}: .*credentials.*api_key`),
    );
    assert.doesNotMatch(stderr, /hunter2/);
  }
});

test('a link-local worker URL exits 2 naming the flag', async () => {
  await assertUsageExit(
    ['--port', '0', '--prometheus-port', '0', '--worker-urls', 'http://2852039166/'],
    /^switchyard launch: --worker-urls: .*link-local or cloud metadata address \(169\.254\.169\.254\)/,
  );
});

test("the gateway's own listen or metrics address as a worker exits 2", async () => {
  const port = await freePort();
  const metricsPort = await freePort();
  await assertUsageExit(
    [
      '--port',
      String(port),
      '--prometheus-port',
      String(metricsPort),
      '--worker-urls',
      `http://127.0.0.1:${port}`,
    ],
    /^switchyard launch: --worker-urls: http:\/\/127\.0\.0\.1:\d+ must not be this gateway's own listen address/,
  );
  await assertUsageExit(
    [
      '--port',
      String(port),
      '--prometheus-port',
      String(metricsPort),
      '--worker-urls',
      `http://localhost:${metricsPort}`,
    ],
    /own metrics address/,
  );
});

test('an invalid --worker-allow-cidr exits 2 naming the flag', async () => {
  await assertUsageExit(
    ['--port', '0', '--prometheus-port', '0', '--worker-allow-cidr', '10.0.0.0/33'],
    /^switchyard launch: --worker-allow-cidr: must be an IPv4 or IPv6 CIDR/,
  );
});
