// `switchyard sim` through the real binary: the canned engine honours --max-running-requests
// (requests beyond the window queue), and a flag that has no effect on the chosen engine is
// refused with one line and exit 2 instead of being silently ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, runMain, startCli } from '../helpers/cli.js';

for (const [args, pattern] of [
  [
    ['--prefill-tps', '100'],
    /^error: --prefill-tps has no effect on the canned engine; it sets the realistic engine \(add --engine realistic\)\n$/,
  ],
  [
    ['--engine', 'canned', '--prefix-cache', 'false'],
    /^error: --prefix-cache has no effect on the canned engine/,
  ],
  [
    ['--engine', 'realistic', '--ttft-ms', '5'],
    /^error: --ttft-ms has no effect on the realistic engine; it sets the canned engine \(add --engine canned\)\n$/,
  ],
] as const) {
  test(`sim ${args.join(' ')} is refused with exit 2`, async () => {
    // The first case runs the real binary; the others run the same command table in process.
    const argv = ['sim', '--port', '0', ...args];
    const { status, stdout, stderr } =
      args[0] === '--prefill-tps' ? runCli(argv) : await runMain(argv);
    assert.equal(status, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, pattern);
  });
}

test('a canned worker queues requests beyond --max-running-requests', async () => {
  const sim = startCli([
    'sim',
    '--port',
    '0',
    '--max-running-requests',
    '1',
    '--ttft-ms',
    '1',
    '--itl-ms',
    '20',
  ]);
  try {
    const deadline = Date.now() + 10_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < deadline) {
      url = /listening on (http:\S+)/.exec(sim.stdout())?.[1];
      if (url === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(url, `no worker line; stderr: ${sim.stderr()}`);
    const send = (): Promise<Response> =>
      fetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim-model', prompt: 'x', max_tokens: 25 }),
      });
    const requests = [send(), send()];
    let seen = { num_running_reqs: 0, num_waiting_reqs: 0 };
    while (seen.num_waiting_reqs === 0 && Date.now() < deadline) {
      const body = (await (await fetch(`${url}/v1/loads`)).json()) as { loads: (typeof seen)[] };
      seen = body.loads[0] ?? seen;
    }
    assert.deepEqual(seen, { ...seen, num_running_reqs: 1, num_waiting_reqs: 1 });
    for (const res of await Promise.all(requests)) {
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
  } finally {
    sim.child.kill('SIGTERM');
    await sim.exited;
  }
});
